// The listener's writer thread and the WAL checkpointer share a hold (src/core/wal-hold.ts): the
// checkpointer makes a long WAL start over with one pass while the writer waits between two
// transactions, so that the writer never copies the WAL back itself (its syncs stalled every answer).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { type Database, keepUntilExit, openDatabase } from '../../src/core/db.js';
import { startWriterThread } from '../../src/core/listener/writer-thread.js';
import { startWalCheckpointer } from '../../src/core/wal-checkpointer.js';
import { holdWriter, releaseWriter, walHoldBuffer } from '../../src/core/wal-hold.js';

const dir = mkdtempSync(join(tmpdir(), 'paycli-walhold-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const migrations = [(d: Database) => d.exec('CREATE TABLE t (seq INTEGER PRIMARY KEY, x TEXT NOT NULL)')];
const group = Array.from({ length: 20 }, (_, i) => [`${i}`.padEnd(900, 'x')]);

async function setUp(name: string, hold: SharedArrayBuffer) {
  const file = join(dir, name);
  const db = await openDatabase(file, { what: 'a test store', migrations });
  let wake: () => void = () => undefined;
  const writer = await startWriterThread(file, { sql: 'INSERT INTO t (x) VALUES (?)', synchronous: 'NORMAL', busyMs: 200, onSettled: () => wake(), hold });
  const settledTo = (n: number) =>
    new Promise<void>((resolve) => {
      const check = () => (writer.settled() >= n ? resolve() : undefined);
      wake = check;
      check();
    });
  return { db, file, writer, settledTo };
}

/** The frames in the WAL now (a PASSIVE checkpoint of the test's own connection reports them). */
const walFrames = (db: Database) => (db.pragma('wal_checkpoint(PASSIVE)') as { log: number }[])[0]!.log;

/** A checkpointer sharing `hold` from a WAL of one frame, which records whether each pass held the writer; `pass()` asks for one and waits for it. */
async function checkpointer(db: Database, file: string, hold: SharedArrayBuffer) {
  const passes: boolean[] = [];
  let passed: () => void = () => undefined;
  const onCheckpoint = (held: boolean) => {
    passes.push(held);
    passed();
  };
  const ckpt = await startWalCheckpointer(db, file, { synchronous: 'NORMAL', intervalMs: 1, hold, restartFrames: 1, onCheckpoint });
  const pass = () =>
    new Promise<void>((resolve) => {
      passed = resolve;
      ckpt.poke();
    });
  return { ckpt, passes, pass };
}

describe('the WAL checkpointer holding the writer thread', () => {
  it('holds the writer for a pass that leaves the whole WAL in the database, then the WAL starts over', async () => {
    const hold = walHoldBuffer();
    const { db, file, writer, settledTo } = await setUp('restart.db', hold);
    const { ckpt, passes, pass } = await checkpointer(db, file, hold);
    const n = writer.write(group)!;
    await settledTo(n);
    await pass();
    expect(passes).toEqual([true]);
    // Everything is in the database: the next transaction writes from the WAL's first frame.
    const m = writer.write([['after']])!;
    await settledTo(m);
    expect(walFrames(db)).toBeLessThanOrEqual(3);
    expect(db.prepare('SELECT count(*) FROM t').pluck().get()).toBe(21);
    await ckpt.close();
    await writer.close();
    db.close();
  });

  it('does not hold the writer when a reader keeps frames in the WAL (its pass could not leave them in the database)', async () => {
    const hold = walHoldBuffer();
    const { db, file, writer, settledTo } = await setUp('reader.db', hold);
    await settledTo(writer.write(group)!);
    // Another process's long read (`events export` scanning a large store): the frames after its snapshot stay in the WAL.
    const reader = keepUntilExit(new Sqlite(file, { readonly: true }));
    reader.exec('BEGIN');
    reader.prepare('SELECT count(*) FROM t').pluck().get();
    await settledTo(writer.write(group)!);
    const { ckpt, passes, pass } = await checkpointer(db, file, hold);
    await pass();
    expect(passes).toEqual([false]);
    reader.exec('COMMIT');
    reader.close();
    await ckpt.close();
    await writer.close();
    db.close();
  });

  it('keeps the writer between transactions while it is held, and lets it commit once released', async () => {
    const hold = walHoldBuffer();
    const { db, writer, settledTo } = await setUp('held.db', hold);
    const slots = new Int32Array(hold);
    expect(holdWriter(slots, 1000)).toBe(true);
    const n = writer.write(group)!;
    await new Promise((r) => setTimeout(r, 100));
    expect(writer.settled()).toBe(0);
    expect(db.prepare('SELECT count(*) FROM t').pluck().get()).toBe(0);
    releaseWriter(slots);
    await settledTo(n);
    expect(writer.failure(n)).toBeUndefined();
    expect(db.prepare('SELECT count(*) FROM t').pluck().get()).toBe(20);
    await writer.close();
    db.close();
  });

  it('does not leave the writer held when the checkpointer ends', async () => {
    const hold = walHoldBuffer();
    const { db, file, writer, settledTo } = await setUp('ended.db', hold);
    const ckpt = await startWalCheckpointer(db, file, { synchronous: 'NORMAL', hold });
    const slots = new Int32Array(hold);
    expect(holdWriter(slots, 1000)).toBe(true); // as if the worker had held it when it went
    await ckpt.close();
    // close() ends the worker; its exit lets the writer go (else each commit would wait its longest).
    for (let i = 0; i < 100 && Atomics.load(slots, 0) === 1; i++) await new Promise((r) => setTimeout(r, 20));
    expect(Atomics.load(slots, 0)).toBe(0);
    const n = writer.write(group)!;
    await settledTo(n);
    expect(writer.failure(n)).toBeUndefined();
    await writer.close();
    db.close();
  });
});
