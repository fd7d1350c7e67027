import { startSqliteWorker } from './sqlite-worker.js';
import { HOLDER_WAIT_MS, holdWriter, releaseWriter } from './wal-hold.js';

/**
 * WAL checkpoints off the request path. A connection that commits small transactions at a high rate
 * (the listener's group commits) would otherwise copy the WAL back into the database itself every
 * 1 000 pages, syncing both files while its callers wait. Here its own automatic checkpoint is moved
 * far out (a backstop that bounds the WAL if this thread cannot keep up), and a worker thread with
 * its own connection runs PASSIVE checkpoints after commits, at most one every `intervalMs` (100 ms:
 * about SQLite's own cadence at the listener's full rate, so no more syncs than before). A
 * PASSIVE checkpoint takes no lock that a writer waits for, so commits go on meanwhile; durability
 * is unchanged (a commit is in the WAL before it returns, as before, and the checkpoint syncs the
 * WAL before it copies it, as SQLite's own does). With a writer thread sharing `hold` (wal-hold.ts),
 * a WAL of `restartFrames` or more is made to start over without that writer checkpointing.
 */
export interface WalCheckpointer {
  /** Tells the worker that something was committed (cheap: one message per checkpoint at most). */
  poke(): void;
  /** Closes the worker's connection and ends the worker. */
  close(): Promise<void>;
}

/** The WAL size (pages) at which a writing connection checkpoints by itself when the worker falls behind or is gone. */
export const BACKSTOP_PAGES = 16384;
/** The WAL size (frames) from which the worker holds a writer thread for a pass that lets the WAL start over (wal-hold.ts). */
export const RESTART_FRAMES = 4096;

/** The worker's part (sqlite-worker.ts opens its connection). */
const WORKER_SOURCE = `
const releaseWriter = ${releaseWriter.toString()};
const holdWriter = ${holdWriter.toString()};
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
const slots = workerData.hold ? new Int32Array(workerData.hold) : undefined;
let closed = false;
parentPort.on('message', (m) => {
  if (m === 'close') {
    closed = true;
    closeDb();
    return;
  }
  let done = 'done';
  try {
    const r = checkpoint.get();
    // A long WAL: one more pass with the writer held, which copies what came during this one. Not
    // when this pass stopped short (a reader's snapshot keeps frames in the WAL): the held one would
    // too, and the writer would wait for nothing.
    const whole = (p) => p.busy === 0 && p.checkpointed === p.log;
    if (slots && whole(r) && r.log >= workerData.restartFrames && holdWriter(slots, workerData.holdWaitMs)) {
      try {
        if (whole(checkpoint.get())) done = 'held';
      } finally {
        releaseWriter(slots);
      }
    }
  } catch {
    // Busy (another process checkpoints or holds an exclusive lock) or a failing disk: the next
    // commit asks again, and the writer's own backstop checkpoint reports what it must.
  }
  setTimeout(() => { if (!closed) parentPort.postMessage(done); }, workerData.intervalMs);
});
`;

/**
 * Starts a checkpoint worker for the database at `path` (already open in WAL mode by `db`, the
 * writing connection). `synchronous` is the writer's setting, for the checkpoint's own syncs.
 */
export async function startWalCheckpointer(
  db: import('better-sqlite3').Database,
  path: string,
  opts: {
    synchronous: 'NORMAL' | 'FULL';
    intervalMs?: number;
    backstopPages?: number;
    /** Shared with the writer thread (walHoldBuffer()); `restartFrames` defaults to RESTART_FRAMES. */
    hold?: SharedArrayBuffer;
    restartFrames?: number;
    /** After each checkpoint; `held`: it held the writer for a pass that left the whole WAL in the database. */
    onCheckpoint?: (held: boolean) => void;
  },
): Promise<WalCheckpointer> {
  const worker = await startSqliteWorker(
    WORKER_SOURCE,
    path,
    [
      ['busy_timeout', 0],
      ['synchronous', opts.synchronous],
      ['wal_autocheckpoint', 0],
    ],
    { intervalMs: opts.intervalMs ?? 100, hold: opts.hold, restartFrames: opts.restartFrames ?? RESTART_FRAMES, holdWaitMs: HOLDER_WAIT_MS },
  );
  let busy = false;
  let dirty = false;
  let ended = false;
  let onClosed: (() => void) | undefined;
  worker.on('message', (m) => {
    if (m === 'closed') return onClosed?.();
    busy = false;
    opts.onCheckpoint?.(m === 'held');
    if (dirty && !ended) {
      dirty = false;
      busy = true;
      worker.postMessage(0);
    }
  });
  // A worker gone while it held the writer thread (terminated mid-pass) must not leave it held.
  const release = () => opts.hold && releaseWriter(new Int32Array(opts.hold));
  worker.on('error', () => {
    // Without the worker, this connection checkpoints by itself at SQLite's usual size (a writer
    // thread's connection keeps its backstop: the WAL then grows to BACKSTOP_PAGES between its own).
    ended = true;
    release();
    if (db.open) db.pragma('wal_autocheckpoint = 1000');
    onClosed?.();
  });
  worker.on('exit', () => {
    ended = true;
    release();
    onClosed?.();
  });
  db.pragma(`wal_autocheckpoint = ${opts.backstopPages ?? BACKSTOP_PAGES}`);
  return {
    poke() {
      if (ended) return;
      if (busy) dirty = true;
      else {
        busy = true;
        worker.postMessage(0);
      }
    },
    async close() {
      if (ended) return;
      ended = true;
      await new Promise<void>((resolve) => {
        onClosed = resolve;
        worker.postMessage('close');
      });
      if (db.open) db.pragma('wal_autocheckpoint = 1000');
    },
  };
}
