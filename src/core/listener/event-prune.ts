import { IN_BLOCK } from './event-schema.js';
import { blockRanges, EventQueries } from './event-queries.js';
import { StoreWriteError, isBusy } from './store-errors.js';

export interface PruneResult {
  before: number;
  removed: number;
  kept: number;
}

const EMPTY_BLOCKS_SQL = `DELETE FROM event_blocks WHERE NOT EXISTS (SELECT 1 FROM events WHERE ${IN_BLOCK})`;

/** How long one prune chunk holds the write lock: a listener waiting for it answers that much later at most. */
const PRUNE_CHUNK_MS = 15;

/** The event store's deletes: `prune` by age and count, in short chunks, and `clear`. */
export class EventPrune extends EventQueries {
  /**
   * Deletes the events received before `notBefore`, then all but the newest `keepNewest`, in chunks
   * of ~15 ms each, so that a listener writing meanwhile waits for one chunk at most.
   * Events stored while it runs are newer than its rules and stay.
   */
  async prune(rule: { keepNewest?: number; notBefore?: Date }): Promise<PruneResult> {
    const db = await this.prepare();
    const before = db.prepare('SELECT count(*) FROM events').pluck().get() as number;
    let removed = 0;
    let chunk = 500;
    // A prune interrupted by a power cut is only partly done, which is harmless: its chunks skip the
    // fsync of each commit (a checkpoint still syncs). And it waits for the lock in short steps of its
    // own rather than in SQLite's growing sleeps, so that it and the listener take turns.
    db.pragma('synchronous = NORMAL');
    db.pragma('busy_timeout = 0');
    const deadline = () => Date.now() + (this.options.busyTimeoutMs ?? 5000);
    db.pragma('cache_size = -16384'); // a chunk's pages fit in memory: no spill to the WAL mid-transaction
    db.pragma('wal_autocheckpoint = 0');
    /** Runs `step(chunk)` (rows removed, or -1 when done) in transactions of ~15 ms of lock each. */
    const deleteChunks = async (step: (chunk: number) => number) => {
      for (;;) {
        let n: number | undefined;
        const t0 = performance.now();
        for (const until = deadline(); n === undefined; ) {
          try {
            n = db.transaction(() => step(chunk)).immediate();
          } catch (err) {
            if (!isBusy(err)) throw new StoreWriteError(err, this.path);
            if (Date.now() >= until) throw this.busyError();
            await new Promise((r) => setTimeout(r, 1));
          }
        }
        if (n < 0) return;
        removed += n;
        // Aim at ~15 ms of lock per chunk, whatever the disk; then let a waiting writer in.
        const ms = performance.now() - t0;
        chunk = Math.max(100, Math.min(20_000, Math.round((chunk * PRUNE_CHUNK_MS) / Math.max(ms, 1))));
        await new Promise((r) => setTimeout(r, 2));
        // The chunk's pages, copied from the WAL into the database here, without the write lock: else
        // the listener's next commit would find a large WAL to checkpoint and answer late.
        db.pragma('wal_checkpoint(PASSIVE)');
      }
    };
    if (rule.notBefore) {
      // Only the blocks with an older event can hold one (event-schema.ts), walked in row order.
      const old = db
        .prepare('DELETE FROM events WHERE seq IN (SELECT seq FROM events WHERE seq BETWEEN ? AND ? AND received_at < ? ORDER BY seq LIMIT ?) RETURNING seq')
        .pluck();
      const cutoff = rule.notBefore.toISOString();
      for (const [from, to] of blockRanges(db, 'min_at < ?', [cutoff])) {
        let next = from;
        await deleteChunks((chunk) => {
          const gone = old.all(next, to, cutoff, chunk) as number[];
          if (gone.length === 0) return -1;
          for (const seq of gone) next = Math.max(next, seq + 1);
          return gone.length;
        });
      }
    }
    if (rule.keepNewest !== undefined) {
      // Everything below the newest N's first row number, by row-number ranges (the cheapest delete).
      const end =
        rule.keepNewest === 0
          ? (db.prepare('SELECT coalesce(max(seq), 0) FROM events').pluck().get() as number) + 1
          : (db
              .prepare('SELECT seq FROM events ORDER BY seq DESC LIMIT 1 OFFSET ?')
              .pluck()
              .get(rule.keepNewest - 1) as number | undefined);
      if (end !== undefined) {
        let from = (db.prepare('SELECT coalesce(min(seq), 0) FROM events').pluck().get() as number) ?? 0;
        const range = db.prepare('DELETE FROM events WHERE seq >= ? AND seq < ?');
        await deleteChunks((chunk) => {
          if (from >= end) return -1;
          const to = Math.min(end, from + chunk);
          const n = range.run(from, to).changes;
          from = to;
          return n;
        });
      }
    }
    // The summaries of blocks left empty go (one range probe each).
    const emptyBlocks = db.prepare(EMPTY_BLOCKS_SQL);
    let summariesDone = false;
    await deleteChunks(() => {
      if (summariesDone) return -1;
      emptyBlocks.run();
      summariesDone = true;
      return 0;
    });
    const kept = db.prepare('SELECT count(*) FROM events').pluck().get() as number;
    return { before, removed, kept };
  }

  /** Deletes every event in one transaction; returns how many there were. */
  async clear(): Promise<{ cleared: number }> {
    const db = await this.prepare();
    const cleared = this.write(db, () => {
      const n = db.prepare('SELECT count(*) FROM events').pluck().get() as number;
      db.prepare('DELETE FROM events').run();
      db.prepare('DELETE FROM event_blocks').run();
      return n;
    });
    return { cleared };
  }
}
