import { startWalCheckpointer, type WalCheckpointer } from '../wal-checkpointer.js';
import { walHoldBuffer } from '../wal-hold.js';
import { EventStoreCore, type Pending } from './event-store-core.js';
import { INSERT_SQL, insertEvents, insertParams, SUMMARIZE_SQL } from './event-schema.js';
import { startWriterThread, type WriterThread } from './writer-thread.js';
import { StoreWriteError, isBusy } from './store-errors.js';
import type { StoredEvent } from './stored-event.js';

/** How long the listener's thread looks for its groups' outcome before it waits for the worker's message instead (ms). */
const POLL_MS = 1;

/**
 * The event store's writes: `append`, and the listener's group commit (`appendWith`: the events of
 * one event-loop turn in one transaction, each caller told after it committed), on the writer thread
 * (writer-thread.ts) once it runs, else on this one; with the start of the worker thread that
 * checkpoints the WAL; and the lookup of a retry acknowledged by an earlier run.
 */
export class EventWriter extends EventStoreCore {
  protected queue: Pending[] = [];
  protected scheduled = false;
  protected firstTry = 0;
  protected retryDelay = 1;
  protected drained?: () => void;
  protected closed = false;
  /** Checkpoints in a worker thread, started by the first group write (the listener's hot path). */
  protected checkpointer?: Promise<WalCheckpointer | undefined>;
  protected checkpoints?: WalCheckpointer;
  /** The writer thread, once it runs (and until it ends). */
  protected writer?: WriterThread;
  protected writerStart?: Promise<void>;
  /** The groups handed to the writer thread and not yet settled, oldest first (`at`: when, performance.now()). */
  protected groups: { n: number; batch: Pending[]; at: number }[] = [];
  /** Whether pollGroups runs. */
  protected polling = false;
  /** Shared by the writer thread and the checkpointer: the WAL starts over without the writer checkpointing (wal-hold.ts). */
  protected readonly walHold = walHoldBuffer();
  /**
   * Called when the listener's thread waits for this store: a look for its groups found none
   * settled (their commits still run), or the last one out settled. Work that can wait (`listen`'s
   * output lines) is best done then: under load, not between requests.
   */
  whenIdle?: () => void;

  /** Whether an earlier run acknowledged a callback of this transaction with this retry key (see `retryKey`). Call `prepare()` first. */
  acknowledged(trxId: string | null, key: string): boolean {
    return trxId !== null && this.stmts!.seen.get(trxId, key) !== undefined;
  }

  /** Appends one event; resolves once it is committed. Waits up to the busy timeout for another writer. */
  async append(event: StoredEvent): Promise<void> {
    await this.prepare();
    try {
      const { insert, summarize } = this.stmts!;
      this.db!.transaction(() => insertEvents(insert, summarize, [insertParams(event)])).immediate();
    } catch (err) {
      if (isBusy(err)) throw this.busyError();
      throw new StoreWriteError(err, this.path);
    }
  }

  /**
   * `append` for the listener's hot path (call `prepare()` first): queued, inserted with the others of
   * this event-loop turn in one transaction; `done` gets nothing once it committed, or the error.
   */
  appendWith(event: StoredEvent, done: (err?: unknown) => void, key?: string | null): void {
    if (!this.stmts) throw new Error('EventStore.appendWith before prepare()');
    this.queue.push({ params: insertParams(event, key), done });
    this.checkpointer ??= this.startCheckpoints();
    if (this.options.writerThread !== false) this.writerStart ??= this.startWriter();
    // Groups that committed meanwhile are answered now, not when the worker's message arrives.
    if (this.groups.length > 0) this.settleGroups();
    this.scheduleFlush();
  }

  /** A flush after this turn of the event loop, unless one is due already. */
  protected scheduleFlush(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  /** Moves WAL checkpoints off the listener's thread (wal-checkpointer.ts); without a worker, SQLite's own go on. */
  protected async startCheckpoints(): Promise<WalCheckpointer | undefined> {
    try {
      this.checkpoints = await startWalCheckpointer(this.db!, this.path, { synchronous: this.synchronous, hold: this.walHold });
      return this.checkpoints;
    } catch {
      return undefined;
    }
  }

  protected async startWriter(): Promise<void> {
    try {
      this.writer = await startWriterThread(this.path, {
        sql: INSERT_SQL,
        summarySql: SUMMARIZE_SQL,
        synchronous: this.synchronous,
        busyMs: this.writeWaitMs,
        onSettled: () => this.settleGroups(),
        hold: this.walHold,
      });
      if (this.closed) await this.writer.close();
    } catch {
      // No worker: the group commits stay on this thread.
    }
  }

  protected flush(): void {
    if (this.writer && !this.writer.ended) {
      this.handToWriter();
      return;
    }
    const batch = this.queue;
    this.queue = [];
    let error: unknown;
    try {
      this.stmts!.insertMany.immediate(batch);
      this.checkpoints?.poke();
    } catch (err) {
      if (isBusy(err) && !this.closed) {
        this.firstTry ||= Date.now();
        if (Date.now() - this.firstTry < this.writeWaitMs) {
          // Another process writes (a prune chunk, a clear, trigger): try again soon, the loop free meanwhile.
          this.queue = batch.concat(this.queue);
          const delay = this.retryDelay;
          this.retryDelay = Math.min(2, this.retryDelay * 2);
          setTimeout(() => this.flush(), delay);
          return;
        }
        error = new StoreWriteError(err, this.path);
      } else error = new StoreWriteError(err, this.path);
    }
    this.firstTry = 0;
    this.retryDelay = 1;
    for (const p of batch) p.done(error);
    if (this.queue.length > 0) setImmediate(() => this.flush());
    else {
      this.scheduled = false;
      this.tellDrained();
      this.whenIdle?.();
    }
  }

  /** Wakes a `close` waiting for the queued writes (once). */
  protected tellDrained(): void {
    const drained = this.drained;
    this.drained = undefined;
    drained?.();
  }

  /** The queued events, as one group, to the writer thread (answered in settleGroups). */
  protected handToWriter(): void {
    this.settleGroups();
    const batch = this.queue;
    const rows = new Array<unknown[]>(batch.length);
    for (let i = 0; i < batch.length; i++) rows[i] = batch[i]!.params;
    const n = this.writer!.write(rows);
    this.scheduled = false;
    if (n === undefined) return; // too many groups in flight: this one goes when some settled
    this.queue = [];
    this.groups.push({ n, batch, at: performance.now() });
    if (!this.polling && !this.options.fsync) {
      this.polling = true;
      setImmediate(() => this.pollGroups());
    }
  }

  /**
   * While groups are out, looks for their outcome at every turn of the event loop (turns that also
   * take new requests: the loop does not sleep while an immediate is due), as long as the oldest of
   * them was handed less than POLL_MS ago, instead of sleeping until the worker's message wakes it.
   * A commit takes ~0.2 ms: the answers leave without the wake-up's delay, and under load the
   * listener keeps its core instead of handing it to whoever runs next (measured: 2-4 % more
   * callbacks per second under wrk on two cores). A commit that waits (another process holds the
   * write lock) is left to the message: the oldest group is then too old, however many come after
   * it. Not with --fsync, whose commits wait for the disk.
   */
  protected pollGroups(): void {
    const out = this.groups.length;
    this.settleGroups();
    const oldest = this.groups[0];
    if (oldest !== undefined && performance.now() - oldest.at < POLL_MS) setImmediate(() => this.pollGroups());
    else this.polling = false;
    // Last: whatever it runs (or throws) finds this store's own state complete.
    if (this.groups.length === out) this.whenIdle?.();
  }

  /** Answers the groups the writer thread settled (in order); once it ended, later writes stay on this thread. */
  protected settleGroups(): void {
    const writer = this.writer;
    if (!writer) return;
    const settled = writer.settled();
    const out = this.groups.length;
    let committed = false;
    while (this.groups.length > 0 && this.groups[0]!.n <= settled) {
      // Failed, and why is still on its way (seen here before the worker's message): that message answers it.
      if (writer.awaitingDetails(this.groups[0]!.n)) break;
      const g = this.groups.shift()!;
      const f = writer.failure(g.n);
      const error = f ? new StoreWriteError(Object.assign(new Error(f.message), { code: f.code }), this.path) : undefined;
      committed ||= !f;
      for (const p of g.batch) p.done(error);
    }
    if (committed) this.checkpoints?.poke();
    if (writer.ended) this.writer = undefined;
    if (this.queue.length > 0) this.scheduleFlush();
    else if (this.groups.length === 0 && !this.scheduled) this.tellDrained();
    if (this.groups.length === 0 && out > 0) this.whenIdle?.();
  }
}
