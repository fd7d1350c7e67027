// Schema 2 of the event store: no index on `id` or `received_at` (each commit of the listener
// rewrote pages of both), and `event_blocks`, the range of ids and times of each block of 1 024
// rows, through which lookups by id and time ranges find their rows. A store of schema 1 is copied
// into it on first open, its rows, row numbers and sequence kept.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { keepUntilExit, openDatabase } from '../../src/core/db.js';
import { EventStore, type StoredEvent } from '../../src/core/listener/event-store.js';
import { BLOCK_BITS, eventWrites, insertEvents, insertParams, MIGRATIONS } from '../../src/core/listener/event-schema.js';
import { fillStore } from '../helpers/event-store.js';

const dir = mkdtempSync(join(tmpdir(), 'paycli-events-v2-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const BLOCK = 2 ** BLOCK_BITS;
const T0 = Date.parse('2026-11-20T00:00:00.000Z');

/** Event `i`: received `i` seconds after T0 (or at `at`), an acknowledged callback of transaction 500000 + i. */
function event(i: number, at?: string): StoredEvent {
  return {
    id: `evt_${String(i).padStart(8, '0')}`,
    receivedAt: at ?? new Date(T0 + i * 1000).toISOString(),
    method: 'POST',
    path: '/',
    headers: { 'x-signature': `sig${i}` },
    body: `trx_id=${500000 + i}`,
    verdict: 'valid',
    variant: null,
    reason: null,
    duplicate: false,
    trx_id: String(500000 + i),
    status: 'berhasil',
    answer: 200,
  };
}

/** Appends events through the listener's group write, 500 to a transaction. */
const fill = (store: EventStore, events: StoredEvent[], group = 500) => fillStore(store, events, group);

const schema = (file: string) => {
  const db = keepUntilExit(new Sqlite(file, { readonly: true }));
  try {
    return {
      version: db.pragma('user_version', { simple: true }) as number,
      integrity: db.pragma('integrity_check', { simple: true }) as string,
      indexes: (db.prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'events'").pluck().all() as string[]).sort(),
      blocks: db.prepare('SELECT blk, min_id, max_id FROM event_blocks ORDER BY blk').all() as { blk: number; min_id: string; max_id: string }[],
    };
  } finally {
    db.close();
  }
};

describe('event store schema 2', () => {
  it('finds events by id, prefix and time range in every block, with no index on either', async () => {
    const file = join(dir, 'blocks.db');
    const store = new EventStore(file, { busyTimeoutMs: 0 });
    const n = 3 * BLOCK + 100;
    await fill(
      store,
      Array.from({ length: n }, (_, i) => event(i)),
    );
    const s = schema(file);
    expect(s.version).toBe(3);
    expect(s.indexes).toEqual(['events_acknowledged']);
    expect(s.blocks.map((b) => b.blk)).toEqual([0, 1, 2, 3]);
    for (const i of [0, BLOCK - 2, BLOCK - 1, 2 * BLOCK + 7, n - 1]) {
      expect((await store.find(`evt_${String(i).padStart(8, '0')}`))?.body).toBe(`trx_id=${500000 + i}`);
    }
    // A prefix of one event; of many (ambiguous); of none.
    expect((await store.lookup(`evt_0000${2 * BLOCK + 7}`)).event?.body).toBe(`trx_id=${500000 + 2 * BLOCK + 7}`);
    expect((await store.lookup('evt_00001')).matches).toBe(2);
    expect((await store.lookup('evt_9')).matches).toBe(0);
    // A time range inside the third block, and across the second and third.
    const at = (i: number) => new Date(T0 + i * 1000).toISOString();
    const inside = await store.list({ since: at(2 * BLOCK + 10), until: at(2 * BLOCK + 13) });
    expect(inside.map((e) => e.body)).toEqual([10, 11, 12].map((k) => `trx_id=${500000 + 2 * BLOCK + k}`));
    const across = await store.list({ since: at(2 * BLOCK - 5), until: at(2 * BLOCK + 5), limit: 7 });
    expect(across.map((e) => e.id)).toEqual(Array.from({ length: 7 }, (_, k) => `evt_${String(2 * BLOCK - 2 + k).padStart(8, '0')}`));
    let scanned = 0;
    expect(await store.scan(() => scanned++, { since: at(BLOCK - 1), until: at(3 * BLOCK) })).toBe(2 * BLOCK + 1);
    expect(scanned).toBe(2 * BLOCK + 1);
    // A retry after a restart is still found (the one index kept).
    expect(store.acknowledged(String(500000 + 9), `${500000 + 9}|berhasil|sig9`)).toBe(true);
    await store.close();
  });

  it('orders a time range by the time received, across blocks, when a writer had its own clock', async () => {
    const file = join(dir, 'clocks.db');
    const store = new EventStore(file, { busyTimeoutMs: 0 });
    // Block 0 holds late times, block 1 early ones (a `trigger --now` in the past, say).
    await fill(store, [
      ...Array.from({ length: BLOCK }, (_, i) => event(i, new Date(T0 + 86_400_000 + i * 1000).toISOString())),
      ...Array.from({ length: 50 }, (_, i) => event(BLOCK + i)),
    ]);
    const since = new Date(T0).toISOString();
    const got: string[] = [];
    await store.scan((e) => got.push(e.receivedAt), { since, until: new Date(T0 + 86_400_000 + 3000).toISOString() });
    expect(got).toHaveLength(53);
    expect(got).toEqual([...got].sort());
    expect(got[0]).toBe(new Date(T0 + BLOCK * 1000).toISOString());
    // The newest by arrival: block 1's.
    expect((await store.list({ since, limit: 2 })).map((e) => e.id)).toEqual([`evt_0000${BLOCK + 48}`, `evt_0000${BLOCK + 49}`]);
    await store.close();
  });

  it('prune by age and by count walks the blocks, and drops the summaries of blocks left empty', async () => {
    const file = join(dir, 'prune.db');
    const store = new EventStore(file, { busyTimeoutMs: 0 });
    const n = 4 * BLOCK;
    await fill(
      store,
      Array.from({ length: n }, (_, i) => event(i)),
    );
    // Older than event 1.5 blocks in: the first block and half the second go.
    const r = await store.prune({ notBefore: new Date(T0 + ((3 * BLOCK) / 2) * 1000) });
    expect(r).toEqual({ before: n, removed: (3 * BLOCK) / 2, kept: n - (3 * BLOCK) / 2 });
    expect(schema(file).blocks.map((b) => b.blk)).toEqual([1, 2, 3, 4]);
    expect(await store.find('evt_00000000')).toBeUndefined();
    expect((await store.find(`evt_0000${(3 * BLOCK) / 2}`))?.body).toBe(`trx_id=${500000 + (3 * BLOCK) / 2}`);
    // Event i is row i + 1: the newest 10 are rows 4087-4096, in blocks 3 and 4.
    await store.prune({ keepNewest: 10 });
    expect(schema(file).blocks.map((b) => b.blk)).toEqual([3, 4]);
    expect((await store.list()).map((e) => e.id)).toEqual(Array.from({ length: 10 }, (_, k) => `evt_0000${n - 10 + k}`));
    await store.clear();
    expect(schema(file).blocks).toEqual([]);
    // Row numbers are never reused: the next event goes on after the last one cleared.
    await fill(store, [event(n)]);
    expect(await store.lastSeq()).toBe(n + 1);
    await store.close();
  });

  it('lists more events than one call can take as arguments (150 000, across blocks)', async () => {
    const file = join(dir, 'many.db');
    const store = new EventStore(file, { busyTimeoutMs: 0 });
    await store.prepare();
    const n = 150_000;
    const db = keepUntilExit(new Sqlite(file));
    const { insert, summarize } = eventWrites(db);
    db.transaction(() =>
      insertEvents(
        insert,
        summarize,
        Array.from({ length: n }, (_, i) => insertParams(event(i))),
      ),
    ).immediate();
    db.close();
    // `events list --limit 150000`: each block range's rows were spread into one push (a RangeError past ~120 000).
    const all = await store.list({ limit: n });
    expect(all.length).toBe(n);
    expect(all[0]!.id).toBe('evt_00000000');
    expect(all.at(-1)!.id).toBe(`evt_00${n - 1}`);
    expect((await store.list({ since: new Date(T0).toISOString() })).length).toBe(n);
    await store.close();
  });

  it('copies a store of schema 1 on first open: rows, row numbers and sequence kept, indexes gone', async () => {
    const file = join(dir, 'v1.db');
    const v1 = await openDatabase(file, { what: 'a schema 1 store', migrations: MIGRATIONS.slice(0, 1) });
    const insert = v1.prepare(
      'INSERT INTO events (id, received_at, method, path, headers, body, verdict, variant, reason, duplicate, trx_id, status, answer, source, seen_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    const n = BLOCK + 40;
    v1.transaction(() => {
      for (let i = 0; i < n; i++) {
        const e = event(i);
        insert.run(
          e.id,
          e.receivedAt,
          'POST',
          '/',
          JSON.stringify(e.headers),
          e.body,
          'valid',
          null,
          null,
          0,
          e.trx_id,
          'berhasil',
          200,
          'listen',
          `${e.trx_id}|berhasil|sig${i}`,
        );
      }
    })();
    // The newest 20 cleared: their row numbers must not come back.
    v1.prepare('DELETE FROM events WHERE seq > ?').run(n - 20);
    expect(v1.prepare('SELECT seq FROM sqlite_sequence').pluck().get()).toBe(n);
    v1.close();

    const store = new EventStore(file, { busyTimeoutMs: 0 });
    expect((await store.list({ limit: 1 }))[0]!.id).toBe(`evt_0000${n - 21}`);
    const s = schema(file);
    expect(s.version).toBe(3);
    expect(s.integrity).toBe('ok');
    expect(s.indexes).toEqual(['events_acknowledged']);
    // Event i is row i + 1: block 0 holds rows 1-1023.
    expect(s.blocks).toEqual([
      { blk: 0, min_id: 'evt_00000000', max_id: `evt_0000${BLOCK - 2}` },
      { blk: 1, min_id: `evt_0000${BLOCK - 1}`, max_id: `evt_0000${n - 21}` },
    ]);
    expect((await store.find(`evt_0000${BLOCK + 3}`))?.trx_id).toBe(String(500000 + BLOCK + 3));
    expect(store.acknowledged(String(500000 + 5), `${500000 + 5}|berhasil|sig5`)).toBe(true);
    await fill(store, [event(n + 1)]);
    expect(await store.lastSeq()).toBe(n + 1);
    expect((await store.find(`evt_0000${n + 1}`))?.body).toBe(`trx_id=${500000 + n + 1}`);
    await store.close();
  });

  it('imports a JSONL store of the previous release with its blocks, a line written twice once', async () => {
    const file = join(dir, 'legacy.jsonl');
    const lines = Array.from({ length: BLOCK + 5 }, (_, i) => JSON.stringify(event(i)));
    writeFileSync(file, `${[...lines, lines[7]].join('\n')}\n`);
    const store = new EventStore(file, { busyTimeoutMs: 0 });
    expect((await store.list()).length).toBe(BLOCK + 5);
    expect((await store.lookup('evt_00000007')).matches).toBe(1);
    expect(schema(file).blocks.map((b) => b.blk)).toEqual([0, 1]);
    await store.close();
  });
});
