import { EventPrune } from './event-prune.js';

export type { PruneResult } from './event-prune.js';
export type { ListQuery } from './event-queries.js';
export type { EventStoreOptions } from './event-store-core.js';
export { StoreBusyError, StoreWriteError } from './store-errors.js';
export { isStoredEvent, retryKey, type StoredEvent, type Verdict } from './stored-event.js';

/**
 * The listener's event store: a SQLite database (default `$XDG_DATA_HOME/paycli/events.db`), WAL,
 * `synchronous = NORMAL` unless `fsync` asks for FULL, opened by `openDatabase` (0600 in a 0700
 * directory, never through a symlink).
 *
 * The listener appends with group commit: every event handed to `appendWith` during one event-loop
 * turn is inserted in one transaction at the end of the turn, and every caller is told after it
 * committed (then, and only then, it answers 200). When another process holds the write lock (a
 * prune chunk, a clear, `paycli trigger`), the group is retried a few milliseconds later without
 * blocking the event loop, for up to `writeWaitMs`, then failed (503). Locks are SQLite's: they
 * belong to the process that holds them, live or stopped, and nobody takes one over.
 *
 * A store written by the previous release (JSONL) is imported on first open, in one transaction,
 * and the old file is renamed `*.jsonl.migrated` (see `importLegacy`).
 */
// The parts, each extending the one below: event-store-core.ts (opening, the JSONL import of
// store-files.ts), event-writer.ts (group commit), event-queries.ts, event-prune.ts (prune, clear).
export class EventStore extends EventPrune {
  /** Waits for queued writes, then closes the database. */
  async close(): Promise<void> {
    if (this.opening) await this.opening.catch(() => undefined);
    if (this.scheduled || this.groups.length > 0) await new Promise<void>((resolve) => (this.drained = resolve));
    this.closed = true;
    await this.writerStart;
    await this.writer?.close();
    this.writer = this.writerStart = undefined;
    await (await this.checkpointer)?.close();
    this.checkpointer = this.checkpoints = undefined;
    this.db?.close();
    this.db = undefined;
    this.stmts = undefined;
  }
}
