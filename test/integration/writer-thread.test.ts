// The listener's group commits on a worker thread (src/core/listener/writer-thread.ts): groups commit
// in order, a group is known committed or failed as soon as it counts as settled, and once the worker
// is gone every later group fails instead of being answered 200.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/core/db.js';
import { MIGRATIONS } from '../../src/core/listener/event-schema.js';
import { startWriterThread } from '../../src/core/listener/writer-thread.js';
import { appended } from '../helpers/event-store.js';

const dir = mkdtempSync(join(tmpdir(), 'paycli-writer-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const migrations = [(d: import('../../src/core/db.js').Database) => d.exec('CREATE TABLE t (seq INTEGER PRIMARY KEY, x TEXT NOT NULL, n INTEGER)')];

async function setUp(name: string) {
  const file = join(dir, name);
  const db = await openDatabase(file, { what: 'a test store', migrations });
  let wake: () => void = () => undefined;
  const writer = await startWriterThread(file, {
    sql: 'INSERT INTO t (x, n) VALUES (?, ?)',
    synchronous: 'NORMAL',
    busyMs: 200,
    onSettled: () => wake(),
  });
  const settledTo = (n: number) =>
    new Promise<void>((resolve) => {
      const check = () => (writer.settled() >= n ? resolve() : undefined);
      wake = check;
      check();
    });
  return { db, writer, settledTo };
}

describe('the writer thread', () => {
  it('commits groups in order and tells which failed, each as it settles', async () => {
    const { db, writer, settledTo } = await setUp('order.db');
    const a = writer.write([
      ['first', 1],
      ['second', 2],
    ])!;
    const b = writer.write([
      ['ok', 3],
      [null, 4],
    ])!; // NOT NULL: the whole group fails, nothing of it is stored
    const c = writer.write([['after', 5]])!;
    expect([a, b, c]).toEqual([1, 2, 3]);
    await settledTo(c);
    expect(writer.failure(a)).toBeUndefined();
    expect(writer.failure(b)?.code).toMatch(/^SQLITE_CONSTRAINT/);
    expect(writer.failure(c)).toBeUndefined();
    expect(db.prepare('SELECT x FROM t ORDER BY seq').pluck().all()).toEqual(['first', 'second', 'after']);
    await writer.close();
    expect(writer.ended).toBe(true);
    db.close();
  });

  it('fails every group it has not settled once it is gone, and every later one', async () => {
    const { db, writer, settledTo } = await setUp('gone.db');
    // Another connection holds the write lock longer than the worker waits (busyMs 200).
    const other = await openDatabase(join(dir, 'gone.db'), { what: 'a test store', migrations });
    other.prepare('BEGIN IMMEDIATE').run();
    const held = writer.write([['waits', 1]])!;
    await settledTo(held);
    expect(writer.failure(held)?.code).toMatch(/^SQLITE_BUSY/);
    other.prepare('ROLLBACK').run();
    await writer.close();
    const late = writer.write([['late', 2]])!;
    expect(writer.settled()).toBeGreaterThanOrEqual(late);
    expect(writer.failure(late)?.message).toMatch(/closed/);
    expect(db.prepare('SELECT count(*) FROM t').pluck().get()).toBe(0);
    other.close();
    db.close();
  });
});

async function waitFor(ok: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !ok(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(ok()).toBe(true);
}

describe('the writer thread, starting and closing', () => {
  it('fails to start, instead of failing every write, when it cannot open the store', async () => {
    await expect(
      startWriterThread(join(dir, 'missing', 'nowhere.db'), { sql: 'SELECT ?', synchronous: 'NORMAL', busyMs: 0, onSettled: () => undefined }),
    ).rejects.toThrow();
  });

  it('fails a group handed to it while it closes', async () => {
    const { db, writer } = await setUp('closing.db');
    const closed = writer.close();
    const n = writer.write([['too late', 1]])!;
    await closed;
    expect(writer.settled()).toBeGreaterThanOrEqual(n);
    expect(writer.failure(n)).toBeDefined();
    expect(db.prepare('SELECT count(*) FROM t').pluck().get()).toBe(0);
    db.close();
  });
});

/** An acknowledged callback as the listener stores it, the i-th of a test. */
const event = (i: number) => ({
  id: `evt_test${String(i).padStart(5, '0')}`,
  receivedAt: new Date(Date.UTC(2026, 10, 27, 0, 0, 0, i)).toISOString(),
  method: 'POST',
  path: '/',
  headers: { 'x-signature': `sig${i}`, 'x-note': 'ünïcödé ✓ "quoted" s3:n;i1;' },
  body: `trx_id=${i}&status=berhasil&note=${'x'.repeat(i % 7)}`,
  verdict: 'valid' as const,
  variant: null,
  reason: null,
  duplicate: false,
  trx_id: String(i),
  status: 'berhasil',
  answer: 200,
});

describe('the event store with and without its writer thread', () => {
  for (const writerThread of [true, false]) {
    it(`stores every group-committed event in arrival order${writerThread ? ' (writer thread)' : ' (on the listener thread)'}`, async () => {
      const { EventStore } = await import('../../src/core/listener/event-store.js');
      const store = new EventStore(join(dir, `store-${writerThread}.db`), { writerThread });
      await store.prepare();
      const acknowledged: number[] = [];
      const all: Promise<void>[] = [];
      for (let turn = 0; turn < 20; turn++) {
        for (let i = turn * 25; i < (turn + 1) * 25; i++)
          all.push(new Promise<void>((resolve, reject) => store.appendWith(event(i), (err) => (err ? reject(err) : (acknowledged.push(i), resolve())))));
        await new Promise((r) => setImmediate(r));
        // After the first group, the rest go through the worker once it runs.
        if (turn === 0 && writerThread) await waitFor(() => (store as unknown as { writer?: unknown }).writer !== undefined);
      }
      expect((store as unknown as { writer?: unknown }).writer !== undefined).toBe(writerThread);
      await Promise.all(all);
      // It looked for the outcomes at every turn while groups were out, and stops once none is.
      await waitFor(() => !(store as unknown as { polling: boolean }).polling);
      expect(acknowledged).toEqual([...Array(500).keys()]);
      const stored = await store.list({});
      expect(stored.map((e) => e.id)).toEqual([...Array(500).keys()].map((i) => event(i).id));
      expect(stored[499]).toEqual({ ...event(499), source: 'listen' });
      await store.close();
    });
  }
});

describe('the listener thread looking for its groups', () => {
  it('does not poll with --fsync (commits wait for the disk), and polls without', async () => {
    const { EventStore } = await import('../../src/core/listener/event-store.js');
    for (const fsync of [true, false]) {
      const store = new EventStore(join(dir, `poll-${fsync}.db`), { fsync });
      await store.prepare();
      const seen = { polled: false };
      const one = (i: number) => appended(store, event(i));
      await one(0);
      await waitFor(() => (store as unknown as { writer?: unknown }).writer !== undefined);
      for (let i = 1; i <= 50; i++) {
        const p = one(i);
        await new Promise((r) => setImmediate(r));
        seen.polled ||= (store as unknown as { polling: boolean }).polling;
        await p;
      }
      expect(seen.polled, `fsync ${fsync}`).toBe(!fsync);
      await store.close();
    }
  });
});

describe('failures and held locks with the writer thread', () => {
  async function started(name: string, writeWaitMs = 2000) {
    const { EventStore } = await import('../../src/core/listener/event-store.js');
    const store = new EventStore(join(dir, name), { writeWaitMs });
    await store.prepare();
    const append = (e: ReturnType<typeof event>) => new Promise<unknown>((resolve) => store.appendWith(e, (err) => resolve(err)));
    expect(await append(event(0))).toBeUndefined();
    await waitFor(() => (store as unknown as { writer?: unknown }).writer !== undefined);
    return { store, append, internals: store as unknown as { polling: boolean; groups: unknown[] } };
  }

  /** A started store whose write lock another connection holds from now on; `timed` adds when an append settled; `releaseAt` commits that lock at a time since then. */
  async function heldLock(name: string, writeWaitMs: number) {
    const started_ = await started(name, writeWaitMs);
    const other = await openDatabase(join(dir, name), { what: 'a test store', migrations: MIGRATIONS });
    other.prepare('BEGIN IMMEDIATE').run();
    const t0 = performance.now();
    const timed = (p: Promise<unknown>) => p.then((err) => ({ err, ms: performance.now() - t0 }));
    const releaseAt = (ms: number) =>
      new Promise<void>((resolve) =>
        setTimeout(
          () => {
            other.prepare('COMMIT').run();
            resolve();
          },
          ms - (performance.now() - t0),
        ),
      );
    return { ...started_, other, timed, releaseAt };
  }

  it("answers a failed group with SQLite's own reason, however soon the failure is seen", async () => {
    const { store, append } = await started('details.db');
    const other = await openDatabase(join(dir, 'details.db'), { what: 'a test store', migrations: MIGRATIONS });
    other.exec("CREATE TRIGGER refuse BEFORE INSERT ON events WHEN NEW.body = 'refuse me' BEGIN SELECT RAISE(ABORT, 'refused by a trigger'); END");
    for (let i = 1; i <= 20; i++) {
      const err = (await append({ ...event(i), body: 'refuse me' })) as { message?: string; sqliteCode?: string } | undefined;
      expect(err?.message, `event ${i}`).toContain('refused by a trigger');
      expect(err?.sqliteCode).toBe('SQLITE_CONSTRAINT_TRIGGER');
      await new Promise((r) => setTimeout(r, 2));
    }
    other.close();
    await store.close();
  });

  it('does not keep polling while another process holds the write lock', async () => {
    const { store, append, internals } = await started('held.db');
    const other = await openDatabase(join(dir, 'held.db'), { what: 'a test store', migrations: MIGRATIONS });
    other.prepare('BEGIN IMMEDIATE').run();
    const first = append(event(1));
    await new Promise((r) => setTimeout(r, 30));
    // The first group waits for the lock; a second one is handed: no poll starts for it.
    const second = append(event(2));
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect(internals.groups.length).toBe(2);
    expect(internals.polling).toBe(false);
    other.prepare('COMMIT').run();
    expect(await first).toBeUndefined();
    expect(await second).toBeUndefined();
    other.close();
    await store.close();
  });

  it('a group waits writeWaitMs in all for a held lock, not that much more behind a group that waited first', async () => {
    const { store, append, other, timed, releaseAt } = await heldLock('budget.db', 1000);
    const first = timed(append(event(1)));
    await new Promise((r) => setTimeout(r, 500));
    // Handed at 0.5 s: its second ends at 1.5 s, while the first waits until 1 s and the lock is held until 1.7 s.
    const second = timed(append(event(2)));
    const release = releaseAt(1700);
    const [a, b] = [await first, await second];
    await release;
    expect((a.err as { sqliteCode?: string })?.sqliteCode).toMatch(/^SQLITE_BUSY/);
    expect((b.err as { sqliteCode?: string })?.sqliteCode).toMatch(/^SQLITE_BUSY/);
    expect(b.ms).toBeLessThan(1700);
    expect(await append(event(3))).toBeUndefined();
    other.close();
    await store.close();
  });

  it('a group handed after the oldest of its transaction still waits writeWaitMs in all, and the oldest is answered at its time', async () => {
    const { store, append, other, timed, releaseAt } = await heldLock('budget-later.db', 1000);
    const first = timed(append(event(1)));
    await new Promise((r) => setTimeout(r, 200));
    // Handed at 0.2 s and 0.9 s, while the first waits: the two go in one transaction at 1 s. The
    // second's wait ends at 1.2 s; the third's at 1.9 s, after the lock is let go at 1.7 s.
    const second = timed(append(event(2)));
    await new Promise((r) => setTimeout(r, 700));
    const third = timed(append(event(3)));
    const release = releaseAt(1700);
    const [a, b, c] = [await first, await second, await third];
    await release;
    expect((a.err as { sqliteCode?: string })?.sqliteCode).toMatch(/^SQLITE_BUSY/);
    expect((b.err as { sqliteCode?: string })?.sqliteCode).toMatch(/^SQLITE_BUSY/);
    expect(b.ms).toBeLessThan(1600);
    expect(c.err).toBeUndefined();
    expect(c.ms).toBeGreaterThanOrEqual(1650);
    expect((await store.find(event(3).id))?.id).toBe(event(3).id);
    expect(await store.find(event(2).id)).toBeUndefined();
    other.close();
    await store.close();
  });
});
