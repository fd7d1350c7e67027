// Schema 3 of the event store: each complete block of 1 024 rows keeps the verdicts and statuses of
// its rows (event_blocks.verdicts, .statuses), set by the commit that writes its last row number, so
// that `events list --status X` and `--invalid` read only the blocks that can hold a match and the
// newest one while it fills. A store of schema 2 gets them on first open, its table not copied.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { keepUntilExit, openDatabase } from '../../src/core/db.js';
import { candidateRanges } from '../../src/core/listener/event-queries.js';
import { BLOCK_BITS, INSERT_SQL, insertParams, MIGRATIONS, SUMMARIZE_SQL } from '../../src/core/listener/event-schema.js';
import { EventStore, type StoredEvent, type Verdict } from '../../src/core/listener/event-store.js';
import { fillStore } from '../helpers/event-store.js';

const dir = mkdtempSync(join(tmpdir(), 'paycli-events-v3-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const BLOCK = 2 ** BLOCK_BITS;
const T0 = Date.parse('2026-11-20T00:00:00.000Z');
const MAX = Number.MAX_SAFE_INTEGER;

/** Event `i` (row i + 1 of a new store): `berhasil` and valid unless told otherwise. */
function event(i: number, o: { status?: string | null; verdict?: Verdict } = {}): StoredEvent {
  return {
    id: `evt_${String(i).padStart(8, '0')}`,
    receivedAt: new Date(T0 + i * 1000).toISOString(),
    method: 'POST',
    path: '/',
    headers: { 'x-signature': `sig${i}` },
    body: `trx_id=${500000 + i}`,
    verdict: o.verdict ?? 'valid',
    variant: null,
    reason: null,
    duplicate: false,
    trx_id: String(500000 + i),
    status: o.status === undefined ? 'berhasil' : o.status,
    answer: 200,
  };
}

/** Appends events through the listener's group write, 300 to a transaction. */
const fill = (store: EventStore, events: StoredEvent[], group = 300) => fillStore(store, events, group);

/** The verdicts and statuses of each block, read on a connection of the test's own. */
function summaries(file: string): { blk: number; verdicts: number | null; statuses: string | null }[] {
  const db = keepUntilExit(new Sqlite(file, { readonly: true }));
  try {
    return db.prepare('SELECT blk, verdicts, statuses FROM event_blocks ORDER BY blk').all() as never;
  } finally {
    db.close();
  }
}

/** Sets, behind the store's back, the status of row `seq`: a row the filters find only if they read its block. */
function editBehind(file: string, seq: number, status: string): void {
  const db = keepUntilExit(new Sqlite(file));
  db.prepare('UPDATE events SET status = ? WHERE seq = ?').run(status, seq);
  db.close();
}

/** 3 blocks and 100 rows: a `gagal` in block 1 (row 1500) and one in the block still filling, an invalid one in block 2. */
const history = () =>
  Array.from({ length: 3 * BLOCK + 100 }, (_, i) =>
    event(i, i + 1 === 1500 || i + 1 === 3 * BLOCK + 50 ? { status: 'gagal' } : i + 1 === 2500 ? { verdict: 'invalid' } : {}),
  );

describe('event store schema 3: verdicts and statuses of complete blocks', () => {
  for (const writerThread of [true, false]) {
    it(`summarizes a block once complete, and lists a rare status or verdict from its blocks only (writer thread: ${writerThread})`, async () => {
      const file = join(dir, `rare-${writerThread}.db`);
      const store = new EventStore(file, { busyTimeoutMs: 0, writerThread });
      await fill(store, history().slice(0, 10));
      await (store as unknown as { writerStart?: Promise<void> }).writerStart;
      await fill(store, history().slice(10));
      expect(summaries(file)).toEqual([
        { blk: 0, verdicts: 1, statuses: ',berhasil,' },
        { blk: 1, verdicts: 1, statuses: expect.stringMatching(/^,(berhasil,gagal|gagal,berhasil),$/) },
        { blk: 2, verdicts: 1 | 4, statuses: ',berhasil,' },
        { blk: 3, verdicts: null, statuses: null },
      ]);
      const db = await store.prepare();
      // Rows of block 1, then from block 3 on (it fills); the other complete blocks are not read.
      expect(candidateRanges(db, { status: 'gagal' })).toEqual([
        [BLOCK, 2 * BLOCK - 1],
        [3 * BLOCK, MAX],
      ]);
      expect(candidateRanges(db, { status: 'expired' })).toEqual([[3 * BLOCK, MAX]]);
      expect(candidateRanges(db, { verdicts: ['invalid', 'malformed'] })).toEqual([[2 * BLOCK, MAX]]);
      expect(candidateRanges(db, { status: 'gagal', verdicts: ['invalid'] })).toEqual([[3 * BLOCK, MAX]]);
      expect((await store.list({ status: 'gagal' })).map((e) => e.id)).toEqual(['evt_00001499', `evt_0000${3 * BLOCK + 49}`]);
      expect((await store.list({ verdicts: ['invalid', 'malformed'] })).map((e) => e.id)).toEqual(['evt_00002499']);
      expect(await store.list({ status: 'expired' })).toEqual([]);
      // Proof that a ruled-out block is not read: a row changed there behind the store's back is not seen.
      editBehind(file, 100, 'gagal');
      editBehind(file, 2 * BLOCK + 100, 'gagal');
      expect((await store.list({ status: 'gagal' })).map((e) => e.id)).toEqual(['evt_00001499', `evt_0000${3 * BLOCK + 49}`]);
      let scanned = 0;
      expect(await store.scan(() => scanned++, { status: 'gagal' })).toBe(2);
      const at = (i: number) => new Date(T0 + i * 1000).toISOString();
      expect((await store.list({ status: 'gagal', since: at(0), until: at(4 * BLOCK) })).map((e) => e.id)).toEqual([
        'evt_00001499',
        `evt_0000${3 * BLOCK + 49}`,
      ]);
      expect(await store.scan(() => scanned++, { status: 'gagal', since: at(0) })).toBe(2);
      // Without a status filter, every row is read.
      expect((await store.list({ limit: 2 * BLOCK })).filter((e) => e.status === 'gagal').length).toBe(3);
      await store.close();
    });
  }

  it('never rules out a block that holds the status: commas, NUL, empty, too many to list', async () => {
    const file = join(dir, 'odd.db');
    const store = new EventStore(file, { busyTimeoutMs: 0, writerThread: false });
    const odd = ['a,b', 'x\u0000y', '', 'berhasil'];
    await fill(store, [
      ...Array.from({ length: BLOCK - 1 }, (_, i) => event(i, { status: odd[i % odd.length]!, verdict: i === 9 ? 'malformed' : 'valid' })),
      // Block 1: a made-up status on every row, more than a summary lists.
      ...Array.from({ length: BLOCK }, (_, i) => event(BLOCK - 1 + i, { status: `made-up-status-${i}`, verdict: 'valid-variant' })),
      event(2 * BLOCK, { status: null }),
    ]);
    const [b0, b1] = summaries(file);
    expect(b0!.verdicts).toBe(1 | 8);
    expect(b1).toEqual({ blk: 1, verdicts: 2, statuses: null });
    for (const s of odd) expect((await store.list({ status: s, limit: 1 })).length, JSON.stringify(s)).toBe(1);
    expect((await store.list({ status: 'made-up-status-77' })).map((e) => e.id)).toEqual([`evt_0000${BLOCK - 1 + 77}`]);
    expect((await store.list({ verdicts: ['malformed'] })).map((e) => e.id)).toEqual(['evt_00000009']);
    expect((await store.list({ verdicts: ['valid-variant'], limit: 1 })).map((e) => e.id)).toEqual([`evt_0000${2 * BLOCK - 2}`]);
    await store.close();
  });

  it('prune and clear keep the summaries of the rows left (wider, never narrower)', async () => {
    const file = join(dir, 'prune.db');
    const store = new EventStore(file, { busyTimeoutMs: 0, writerThread: false });
    await fill(store, history());
    await store.prune({ keepNewest: BLOCK + 100 });
    expect((await store.list({ status: 'gagal' })).map((e) => e.id)).toEqual([`evt_0000${3 * BLOCK + 49}`]);
    expect((await store.list({ verdicts: ['invalid'] })).map((e) => e.id)).toEqual(['evt_00002499']);
    await store.prune({ notBefore: new Date(T0 + 2600 * 1000) });
    expect(await store.list({ verdicts: ['invalid'] })).toEqual([]);
    expect(summaries(file).map((b) => b.blk)).toEqual([2, 3]);
    await store.clear();
    expect(summaries(file)).toEqual([]);
    // After a clear, row numbers go on: the block being filled is summarized when complete.
    await fill(
      store,
      Array.from({ length: BLOCK }, (_, i) => event(4 * BLOCK + i, { status: i === 5 ? 'gagal' : 'berhasil' })),
    );
    expect(summaries(file)[0]).toEqual({ blk: 3, verdicts: 1, statuses: expect.stringContaining(',gagal,') });
    expect((await store.list({ status: 'gagal' })).length).toBe(1);
    await store.close();
  });

  it('gives a store of schema 2 the summaries of its complete blocks on first open, without copying its table', async () => {
    const file = join(dir, 'v2.db');
    const v2 = await openDatabase(file, { what: 'a schema 2 store', migrations: MIGRATIONS.slice(0, 2) });
    const insert = v2.prepare(INSERT_SQL);
    const summarize = v2.prepare(SUMMARIZE_SQL);
    const n = 2 * BLOCK + 10;
    v2.transaction(() => {
      for (let i = 0; i < n; i++) insert.run(insertParams(event(i, i === 1200 ? { status: 'gagal', verdict: 'invalid' } : {})));
      summarize.run(1, n);
    })();
    // Rows 2040 to 2058 cleared: block 1 (up to row 2047) is complete all the same, block 2 is not.
    v2.prepare('DELETE FROM events WHERE seq >= ?').run(2040);
    const root = v2.prepare("SELECT rootpage FROM sqlite_schema WHERE name = 'events'").pluck().get();
    v2.close();
    const store = new EventStore(file, { busyTimeoutMs: 0, writerThread: false });
    expect((await store.list({ status: 'gagal' })).map((e) => e.id)).toEqual(['evt_00001200']);
    const db = keepUntilExit(new Sqlite(file, { readonly: true }));
    expect(db.pragma('user_version', { simple: true })).toBe(3);
    expect(db.prepare("SELECT rootpage FROM sqlite_schema WHERE name = 'events'").pluck().get()).toBe(root);
    db.close();
    expect(summaries(file)).toEqual([
      { blk: 0, verdicts: 1, statuses: ',berhasil,' },
      { blk: 1, verdicts: 1 | 4, statuses: expect.stringMatching(/^,(berhasil,gagal|gagal,berhasil),$/) },
      { blk: 2, verdicts: null, statuses: null },
    ]);
    expect(candidateRanges(await store.prepare(), { verdicts: ['invalid'] })).toEqual([[BLOCK, MAX]]);
    await store.close();
  });
});
