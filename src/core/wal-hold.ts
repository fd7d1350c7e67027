/**
 * How the WAL checkpointer (wal-checkpointer.ts) and a writer thread (listener/writer-thread.ts) take
 * turns so that the WAL starts over without the writer copying it back itself.
 *
 * SQLite starts a WAL over from its first frame only when a write transaction begins while every
 * frame is already in the database. Under a steady stream of group commits that moment never comes
 * (each commit appends frames while a checkpoint copies the earlier ones), so the WAL grows until the
 * writer's own automatic checkpoint fires at its size limit: that checkpoint syncs both files on the
 * writer's thread, and every answer waits for it (measured under wrk: 14-100 ms, every ~0.3 s). Here
 * the checkpointer, once the WAL is long, holds the writer between two transactions for one more
 * pass (what was appended during its last one, then the syncs): nothing is appended meanwhile, so
 * the pass leaves every frame in the database, and the writer's next transaction starts the WAL over.
 *
 * Shared memory, three Int32 slots: HOLD (the checkpointer wants the writer out of its
 * transactions), WRITING (the writer is in one) and GENERATION (the latest hold's number). Each side
 * stores its own slot before it reads the other's (sequentially consistent atomics), so they are never both past the check at once; each wait is
 * bounded, and on timeout the side goes on without the other: a hold only ever decides whether the
 * WAL starts over, never what a transaction writes.
 *
 * Self-contained functions: the worker threads get their source text.
 */

const HOLD = 0;
const WRITING = 1;
const GENERATION = 2;

/** How long the checkpointer waits for the writer to leave its transaction (a commit behind another process's lock can take seconds). */
export const HOLDER_WAIT_MS = 50;
/** How long the writer waits for a hold to end (a pass takes ~10 ms; a failing disk's sync may take far longer). */
export const WRITER_WAIT_MS = 250;

/** The shared memory of one writer and one checkpointer. */
export function walHoldBuffer(): SharedArrayBuffer {
  return new SharedArrayBuffer(12);
}

/**
 * The writer, before a transaction: waits (at most `maxMs`) while the checkpointer holds it. `skip`
 * is the hold it waited out last time (0: none); returns the one to skip next time: a hold that
 * outlasted a whole wait is stuck (a sync on a failing disk), and the writer does not wait for it
 * before every transaction again.
 */
export function enterWrite(slots: Int32Array, maxMs: number, skip: number): number {
  Atomics.store(slots, 1 /* WRITING */, 1);
  if (Atomics.load(slots, 0 /* HOLD */) === 0) return skip;
  const hold = Atomics.load(slots, 2 /* GENERATION */);
  if (hold === skip) return skip;
  Atomics.store(slots, 1, 0);
  Atomics.notify(slots, 1);
  const end = performance.now() + maxMs;
  for (let left = maxMs; Atomics.load(slots, 0) === 1 && left > 0; left = end - performance.now()) Atomics.wait(slots, 0, 1, left);
  Atomics.store(slots, 1, 1);
  return Atomics.load(slots, 0) === 1 ? hold : skip;
}

/** The writer, after its transaction (committed or not). */
export function leaveWrite(slots: Int32Array): void {
  Atomics.store(slots, 1 /* WRITING */, 0);
  Atomics.notify(slots, 1);
}

/**
 * The checkpointer: holds the writer once it is out of its transaction; false (and no hold) when it
 * did not get out within `maxMs` (a commit waiting for another process's lock, say). Each hold has
 * a number of its own (GENERATION), set before the hold is raised.
 */
export function holdWriter(slots: Int32Array, maxMs: number): boolean {
  Atomics.add(slots, 2 /* GENERATION */, 1);
  Atomics.store(slots, 0 /* HOLD */, 1);
  const end = performance.now() + maxMs;
  while (Atomics.load(slots, 1 /* WRITING */) === 1) {
    const left = end - performance.now();
    if (left <= 0) {
      releaseWriter(slots);
      return false;
    }
    Atomics.wait(slots, 1, 1, left);
  }
  return true;
}

/** The checkpointer: lets the writer go on. */
export function releaseWriter(slots: Int32Array): void {
  Atomics.store(slots, 0 /* HOLD */, 0);
  Atomics.notify(slots, 0);
}

/** The slots' names, for tests. */
export const SLOTS = { HOLD, WRITING, GENERATION } as const;
