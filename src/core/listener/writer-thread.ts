import { startSqliteWorker } from '../sqlite-worker.js';
import { BACKSTOP_PAGES } from '../wal-checkpointer.js';
import { enterWrite, leaveWrite, WRITER_WAIT_MS } from '../wal-hold.js';
import { BLOCK_ROWS, blockSummarizer, COMPLETE_SQL, insertEvents } from './event-schema.js';
import { advanceCount, decodeRows, encodeRows } from './writer-rows.js';

/**
 * The listener's inserts and commits on a thread of their own. The listener's thread (HTTP, the
 * signature check, the answers) hands each group of events to this worker in one message; the
 * worker commits the groups in order, and for each writes its outcome, then its number, into memory
 * both threads share. The listener's thread reads that number whenever it is about (`settled()`, one
 * atomic load, at every request it stores, and at every turn of its event loop while a group is
 * fresh: event-writer.ts's pollGroups), so that a group is answered as soon as it committed without
 * waiting for a message; the worker's message only wakes a listener with nothing else to do.
 * A group's outcome is in the shared memory before its number: a group the listener sees settled is
 * known committed or failed, never guessed. The worker has its own connection to the same file (WAL:
 * the listener's connection reads each group once it committed) and waits for another process's
 * write lock inside SQLite (its busy timeout), off the listener's event loop. Groups that arrive
 * while it commits (or syncs, with --fsync) are committed together, in one transaction.
 *
 * Why a thread: on the listener's thread, a group commit's inserts and commit cost ~8 µs per event
 * (BENCHMARKS.md), a quarter of its time per callback; here they overlap with the next requests.
 */
export interface WriterThread {
  /** Hands a group of rows (INSERT_SQL's parameters) to the worker: its number (1, 2, …), or undefined when too many are in flight (try again once some settled). */
  write(rows: readonly (readonly unknown[])[]): number | undefined;
  /** The number of the last group settled (committed or failed): groups settle in order. */
  settled(): number;
  /** Why group `n` (settled) failed, or undefined when it committed; read each group's once, in order. */
  failure(n: number): WriteFailure | undefined;
  /**
   * Whether group `n` (settled) failed and the worker's account of why (SQLite's own code and
   * message) is still on its way: its next message brings it, then says the group settled again.
   */
  awaitingDetails(n: number): boolean;
  /** True once the worker is gone (closed or failed): every later group fails. */
  readonly ended: boolean;
  /** Ends the worker once the groups handed to it are settled. */
  close(): Promise<void>;
}

export interface WriteFailure {
  /** SQLite's code (`SQLITE_FULL`, `SQLITE_IOERR_WRITE`, …). */
  code: string;
  message: string;
}

/** Groups in flight at most (the size of the shared ring of outcomes). */
const RING = 1024;
/** The outcomes the ring can hold besides 0 (committed): SQLite's primary codes, by index + 1; anything else is the last. */
const CODES = [
  'SQLITE_FULL',
  'SQLITE_IOERR',
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
  'SQLITE_READONLY',
  'SQLITE_CORRUPT',
  'SQLITE_NOTADB',
  'SQLITE_CANTOPEN',
  'SQLITE_CONSTRAINT',
  'SQLITE_NOMEM',
  'SQLITE_TOOBIG',
  'SQLITE_ERROR',
];
/** The counter is stored modulo this (an Int32Array slot); the listener's thread keeps the whole number. */
const WRAP = 2 ** 31;

/** The worker's part (sqlite-worker.ts opens its connection). */
const WORKER_SOURCE = `
const decodeRows = ${decodeRows.toString()};
const insertEvents = ${insertEvents.toString()};
const enterWrite = ${enterWrite.toString()};
const leaveWrite = ${leaveWrite.toString()};
const blockSummarizer = ${blockSummarizer.toString()};
const { RING, CODES } = workerData;
const shared = new Int32Array(workerData.shared);
const insert = db.prepare(workerData.sql);
const summarize = workerData.summarySql ? blockSummarizer(db.prepare(workerData.summarySql), db.prepare(${JSON.stringify(COMPLETE_SQL)}), ${BLOCK_ROWS}) : { run() {} };
const many = db.transaction((rows) => insertEvents(insert, summarize, rows));
/** The WAL checkpointer's holds (wal-hold.ts); \`skipHold\`: one this writer waited out, not waited for again. */
const slots = workerData.hold ? new Int32Array(workerData.hold) : undefined;
let skipHold = 0;
let n = 0;
let busyNow = workerData.busyMs;
/**
 * Commits the groups numbered from \`first\` in one transaction and stores their outcome; the error's
 * code when it failed. \`since\`: when the oldest of them was handed (Date.now()): a group waits for
 * another process's lock busyMs in all, not busyMs more for each transaction it waited behind.
 */
function commit(texts, first, since) {
  let outcome = 0;
  let code;
  // Out of the checkpointer's hold first: its wait counts in the group's busyMs like any other.
  if (slots) skipHold = enterWrite(slots, workerData.holdWaitMs, skipHold);
  const waited = Date.now() - since;
  const budget = waited > 20 ? Math.max(0, workerData.busyMs - waited) : workerData.busyMs;
  if (budget !== busyNow) db.pragma('busy_timeout = ' + (busyNow = budget));
  try {
    many.immediate(texts.length === 1 ? decodeRows(texts[0], workerData.width) : texts.flatMap((t) => decodeRows(t, workerData.width)));
  } catch (err) {
    code = String((err && err.code) || 'SQLITE_ERROR');
    const i = CODES.findIndex((c) => code === c || code.startsWith(c + '_'));
    outcome = i < 0 ? CODES.length : i + 1;
    for (let k = 0; k < texts.length; k++) parentPort.postMessage({ n: first + k, code, message: String((err && err.message) || err) });
  } finally {
    if (slots) leaveWrite(slots);
  }
  for (let k = 0; k < texts.length; k++) Atomics.store(shared, 1 + ((first + k) % RING), outcome);
  return code;
}
/** Tells the listener's thread that the groups up to \`k\` are settled. */
const settle = (k) => (Atomics.store(shared, 0, k % workerData.WRAP), parentPort.postMessage(k));
parentPort.postMessage('ready');
parentPort.on('message', (m) => {
  if (m === 'close') return closeDb();
  // Groups that arrived while the last commit ran (a sync with --fsync, another process's lock)
  // go in one transaction together: one commit, one sync for all of them.
  // Each group: when it was handed (Date.now()), ';', its rows.
  const texts = [];
  const since = [];
  let closing = false;
  for (let next = m; ; ) {
    if (next === 'close') {
      closing = true;
      break;
    }
    const semi = next.indexOf(';');
    since.push(Number(next.slice(0, semi)));
    texts.push(next.slice(semi + 1));
    const more = texts.length < 256 ? receiveMessageOnPort(parentPort) : undefined;
    if (more === undefined) break;
    next = more.message;
  }
  const first = n + 1;
  n += texts.length;
  let from = 0;
  for (let failed = commit(texts, first, since[0]); failed; ) {
    // Together they failed: unless the lock stayed taken (SQLITE_BUSY or SQLITE_LOCKED, and their
    // extended codes), each group on its own, so that one group's failure is not another's.
    if (!/^SQLITE_(BUSY|LOCKED)/.test(failed)) {
      if (texts.length - from > 1) texts.slice(from).forEach((t, k) => commit([t], first + from + k, since[from + k]));
      break;
    }
    // The lock stayed taken for the oldest group's wait: those handed later wait on, each busyMs in
    // all, the ones whose wait is over answered meanwhile (groups settle in order). One handed "after"
    // now (the clock was set back) counts as waited out, so that this ends by the newest one's time.
    for (const now = Date.now(); ++from < texts.length && (now - since[from] >= workerData.busyMs || since[from] > now); );
    if (from >= texts.length) break;
    settle(first + from - 1);
    failed = commit(texts.slice(from), first + from, since[from]);
  }
  settle(n);
  if (closing) closeDb();
});
`;

export interface WriterThreadOptions {
  sql: string;
  summarySql?: string;
  synchronous: 'NORMAL' | 'FULL';
  busyMs: number;
  onSettled: () => void;
  /** Shared with the WAL checkpointer (wal-hold.ts), which then makes the WAL start over for this writer. */
  hold?: SharedArrayBuffer;
}

/** Starts the writer for the database at `path` (already created, in WAL mode, by the listener's connection); `sql` is the insert of one row, with one `?` per value, and `summarySql` (two `?`: the first and last row inserted) runs after the rows of each transaction, with COMPLETE_SQL for the blocks it completes (event-schema.ts's blockSummarizer); `onSettled` runs when the worker reports groups settled or ends. */
export async function startWriterThread(path: string, opts: WriterThreadOptions): Promise<WriterThread> {
  const shared = new Int32Array(new SharedArrayBuffer(4 * (RING + 1)));
  const worker = await startSqliteWorker(
    WORKER_SOURCE,
    path,
    [
      ['busy_timeout', opts.busyMs],
      ['synchronous', opts.synchronous],
      // The checkpoint worker copies the WAL back; this is the backstop should it not keep up or stop.
      ['wal_autocheckpoint', BACKSTOP_PAGES],
    ],
    { ...opts, onSettled: undefined, width: opts.sql.split('?').length - 1, shared: shared.buffer, RING, CODES, WRAP, holdWaitMs: WRITER_WAIT_MS },
  );
  const { onSettled } = opts;
  const details = new Map<number, WriteFailure>();
  let handed = 0;
  /** The last group whose outcome the listener read (`failure`): a slot of the ring is reused only after. */
  let read = 0;
  /** Set when the worker is gone: the groups it did not settle failed with this. */
  let gone: WriteFailure | undefined;
  /** The worker's own count when it went (the groups above it never settled there). */
  let settledThere = 0;
  let closing = false;
  let onClosed: (() => void) | undefined;
  /** The last group known settled (the shared slot holds it modulo WRAP). */
  let settledUpTo = 0;
  const settledNow = () => (settledUpTo = advanceCount(settledUpTo, Atomics.load(shared, 0), WRAP));
  /** Group `n`'s outcome in the ring: 0 committed, else 1 + its index in CODES. */
  const outcomeOf = (n: number) => Atomics.load(shared, 1 + (n % RING));
  const closed: WriteFailure = { code: 'SQLITE_MISUSE', message: 'the writer thread is closed' };
  const end = (message: string) => {
    if (opts.hold) leaveWrite(new Int32Array(opts.hold)); // gone inside a transaction: no hold waits for it
    if (!gone) {
      settledThere = settledNow();
      // Closing, its exit may come before close() resumes (in the same turn as its last message).
      gone = closing ? closed : { code: 'SQLITE_IOERR', message };
    }
    onClosed?.();
    onSettled();
  };
  // Ready once its connection is open and its statement prepared: a failure before is a failure to start.
  await new Promise<void>((resolve, reject) => {
    worker.once('message', (m) => (m === 'ready' ? resolve() : reject(new Error(`the writer thread said ${String(m)}`))));
    worker.once('error', reject);
    worker.once('exit', () => reject(new Error('the writer thread ended before it was ready')));
  }).catch(async (err) => {
    await worker.terminate();
    throw err;
  });
  worker.on('message', (m) => {
    if (m === 'closed') return onClosed?.();
    // Details of a group not read yet (those that arrive after it was answered are dropped).
    if (typeof m === 'object' && m !== null) {
      if (m.n > read) details.set(m.n, { code: m.code, message: m.message });
    } else onSettled();
  });
  worker.on('error', (err) => end(`the writer thread failed: ${String((err as Error)?.message ?? err)}`));
  worker.on('exit', () => end('the writer thread ended'));
  return {
    write(rows) {
      if (gone || closing) {
        handed++;
        return handed;
      }
      if (handed - read >= RING - 1) return undefined;
      const text = encodeRows(rows);
      handed++;
      worker.postMessage(`${Date.now()};${text}`);
      return handed;
    },
    settled: () => (gone ? handed : settledNow()),
    awaitingDetails: (n) => !gone && outcomeOf(n) !== 0 && !details.has(n),
    failure(n) {
      read = Math.max(read, n);
      if (gone && n > settledThere) return gone;
      const outcome = outcomeOf(n);
      const known = details.get(n);
      details.delete(n); // also a failure of a shared transaction that committed on its own afterwards
      if (outcome === 0) return undefined;
      return known ?? { code: CODES[outcome - 1] ?? 'SQLITE_ERROR', message: 'the write failed' };
    },
    get ended() {
      return gone !== undefined;
    },
    async close() {
      if (gone || closing) return;
      closing = true;
      await new Promise<void>((resolve) => {
        onClosed = resolve;
        worker.postMessage('close');
      });
      settledThere = settledNow();
      gone ??= closed;
      onSettled(); // groups handed while it closed fail now
    },
  };
}
