// History pages by next_cursor (what `paycli history --all` follows) list every transaction that
// existed when the walk began exactly once, in the order it had then, under every order the API
// offers, while payments are paid and made between the pages. The changes are made between page
// fetches (awaited), so each run is the same.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { keepUntilExit } from '../../src/core/db.js';
import type { EmulatorHandle } from '../../src/core/sandbox/server.js';
import { runCli } from '../helpers/cli.js';
import { createDirectVa, localEnv, sandbox, signedPost } from '../helpers/sandbox.js';
import { afterEachTest } from '../helpers/cleanups.js';

const { started, later } = afterEachTest();

async function post(sb: EmulatorHandle, path: string, fields: Record<string, unknown>): Promise<{ status: number; data: Record<string, unknown> }> {
  const body = JSON.stringify(fields);
  const req = signedPost(sb.apiUrl, path, body);
  const res = await request(req.url, { method: 'POST', headers: req.headers, body });
  const json = (await res.body.json()) as { Data: Record<string, unknown> };
  return { status: res.statusCode, data: json.Data };
}

const create = (sb: EmulatorHandle, n: number) => createDirectVa(sb, n, 'bni');

/** The order the API answers, as the ledger stood: by the field (a pending payment's paid time is -1), the id breaking ties. */
function expectedOrder(sb: EmulatorHandle, ids: number[], orderBy: string, order: 'ASC' | 'DESC'): number[] {
  const key = (id: number) => {
    const t = sb.state.get(id)!;
    return orderBy === 'id' ? id : orderBy === 'created_at' ? t.createdAt : (t.paidAt ?? -1);
  };
  const keyed = ids.map((id) => [key(id), id] as const);
  keyed.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  if (order === 'DESC') keyed.reverse();
  return keyed.map(([, id]) => id);
}

describe('v2/history by next_cursor while payments change', () => {
  for (const orderBy of ['indate', 'created_at', 'id'])
    for (const order of ['DESC', 'ASC'] as const)
      it(`orderBy ${orderBy} ${order}: each transaction of the start once, in the order of the start`, async () => {
        const sb = await started();
        const ids: number[] = [];
        for (let n = 0; n < 24; n++) ids.push(await create(sb, n));
        for (const id of ids.filter((_, i) => i % 3 === 0)) await sb.pay(String(id)); // some paid before the walk
        const atStart = expectedOrder(sb, ids, orderBy, order);
        const listed: number[] = [];
        const made: number[] = [];
        let cursor: string | undefined;
        for (let page = 0; page < 20; page++) {
          const r = await post(sb, 'v2/history', { orderBy, order, limit: 4, ...(cursor ? { cursor } : {}) });
          expect(r.status).toBe(200);
          listed.push(...(r.data.Transaction as { TransactionId: number }[]).map((t) => t.TransactionId));
          // Between pages: the oldest and the newest pending payments not listed yet are paid, so is one already listed, and one is made.
          const pending = ids.filter((id) => sb.state.get(id)!.status === 'pending');
          const unlisted = pending.filter((id) => !listed.includes(id));
          for (const id of new Set([unlisted[0], unlisted.at(-1), pending.find((id) => listed.includes(id))])) if (id !== undefined) await sb.pay(String(id));
          made.push(await create(sb, 100 + page));
          cursor = (r.data.Pagination as { next_cursor: string | null }).next_cursor ?? undefined;
          if (!cursor) break;
        }
        expect(ids.filter((id) => sb.state.get(id)!.status !== 'pending').length).toBeGreaterThan(16);
        expect(listed).toEqual(atStart);
        for (const id of made) expect(listed).not.toContain(id);
      });

  it("a page without a cursor is the gateway's page (by offset, as the ledger stands): the same rows as the walk", async () => {
    const sb = await started();
    const ids: number[] = [];
    for (let n = 0; n < 9; n++) ids.push(await create(sb, n));
    await sb.pay(String(ids[4]));
    await sb.pay(String(ids[1]));
    const pages: number[] = [];
    for (let page = 1; page <= 3; page++) {
      const r = await post(sb, 'v2/history', { orderBy: 'indate', order: 'DESC', limit: 4, page });
      pages.push(...(r.data.Transaction as { TransactionId: number }[]).map((t) => t.TransactionId));
    }
    expect(pages).toEqual(expectedOrder(sb, ids, 'indate', 'DESC'));
    expect(new Set(pages.slice(0, 2))).toEqual(new Set([ids[1], ids[4]]));
  });
});

describe('v2/history by next_cursor within paid dates (date=indate), in id order', () => {
  // Schema 8: each page reads the ids of the rows paid on those days (txn_days) as they stand when it is read.
  it('lists each payment paid within the dates once, by id: those paid ahead of the cursor during the walk too, not those paid behind it', async () => {
    const sb = await started();
    const ids: number[] = [];
    for (let n = 0; n < 14; n++) ids.push(await create(sb, n));
    for (const id of ids.filter((_, i) => i % 2 === 1)) await sb.pay(String(id));
    const day = (d: number) => new Date(Date.now() + 7 * 3_600_000 + d * 86_400_000).toISOString().slice(0, 10);
    const dates = { date: 'indate', startdate: day(-1), enddate: day(1), limit: 2 };
    const listed: number[] = [];
    const behind: number[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 20; page++) {
      const r = await post(sb, 'v2/history', { ...dates, ...(cursor ? { cursor } : {}) });
      listed.push(...(r.data.Transaction as { TransactionId: number }[]).map((t) => t.TransactionId));
      const pending = ids.filter((id) => sb.state.get(id)!.status === 'pending');
      const last = listed.at(-1) ?? Number.MAX_SAFE_INTEGER;
      // Paid between pages: the lowest pending (ahead of the cursor), the highest pending behind it, and a new payment.
      const ahead = pending.filter((id) => id < last)[0];
      const passed = pending.filter((id) => id > last).at(-1);
      if (ahead !== undefined) await sb.pay(String(ahead));
      if (passed !== undefined) {
        await sb.pay(String(passed));
        behind.push(passed);
      }
      await sb.pay(String(await create(sb, 100 + page)));
      cursor = (r.data.Pagination as { next_cursor: string | null }).next_cursor ?? undefined;
      if (!cursor) break;
    }
    expect(behind.length).toBeGreaterThan(0);
    const paid = ids.filter((id) => sb.state.get(id)!.paidAt !== undefined && !behind.includes(id));
    expect(listed).toEqual(paid.reverse());
  });
});

describe('next_cursor', () => {
  it('carries the snapshot (KEY:ID:MAXID:PAIDSEQ); an older KEY:ID cursor still pages, on the ledger as it stands', async () => {
    const sb = await started();
    const ids: number[] = [];
    for (let n = 0; n < 5; n++) ids.push(await create(sb, n));
    await sb.pay(String(ids[0]));
    const first = await post(sb, 'v2/history', { orderBy: 'indate', order: 'DESC', limit: 2 });
    const cursor = (first.data.Pagination as { next_cursor: string }).next_cursor;
    expect(cursor).toBe(`-1:${ids[4]}:${ids[4]}:1`);
    const old = await post(sb, 'v2/history', { orderBy: 'indate', order: 'DESC', limit: 2, cursor: cursor.split(':').slice(0, 2).join(':') });
    expect(old.status).toBe(200);
    expect((old.data.Transaction as { TransactionId: number }[]).map((t) => t.TransactionId)).toEqual([ids[3], ids[2]]);
    expect((await post(sb, 'v2/history', { cursor: '1:2:3' })).status).toBe(400);
  });
});

describe("a walk's pages are ranges of an index", () => {
  it('each read follows an index (no sort of the rows), with one bound on each side of the id (SQLite ranges the rowid by one upper bound only)', async () => {
    const sb = await started();
    const ids: number[] = [];
    for (let n = 0; n < 12; n++) ids.push(await create(sb, n));
    for (const id of ids.slice(0, 4)) await sb.pay(String(id));
    const db = sb.state.db;
    const seen: string[] = [];
    const prepare = db.prepare.bind(db);
    db.prepare = ((source: string) => {
      if (/^SELECT id FROM txns/.test(source)) seen.push(source);
      return prepare(source);
    }) as typeof db.prepare;
    try {
      for (const by of ['id', 'created', 'paid'] as const)
        for (const desc of [true, false]) {
          let cursor = sb.state.page({}, { by, desc }, 3).next;
          while (cursor) cursor = sb.state.page({}, { by, desc }, 3, { cursor }).next;
        }
    } finally {
      db.prepare = prepare;
    }
    expect(seen.length).toBeGreaterThan(6);
    for (const sql of new Set(seen)) {
      const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...Array((sql.match(/\?/g) ?? []).length).fill(0)) as { detail: string }[]).map(
        (p) => p.detail,
      );
      expect(plan.join('\n'), sql).not.toMatch(/TEMP B-TREE/);
      if (/ORDER BY id /.test(sql)) {
        expect(sql.match(/\bid <=? \?/g)?.length ?? 0, sql).toBeLessThanOrEqual(1);
        expect(sql.match(/\bid >=? \?/g)?.length ?? 0, sql).toBeLessThanOrEqual(1);
      }
    }
  });
});

describe('a ledger written by schema 4 (before paid_seq)', () => {
  it('its paid payments count as paid before any walk began; those paid after the migration are numbered', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'paycli-schema4-'));
    later(() => rmSync(dir, { recursive: true, force: true }));
    let sb = await sandbox({ dataDir: dir });
    const ids: number[] = [];
    for (let n = 0; n < 8; n++) ids.push(await create(sb, n));
    for (const id of [ids[0], ids[5]]) await sb.pay(String(id));
    await sb.close();
    const db = keepUntilExit(new Sqlite(join(dir, 'ledger.db')));
    db.exec(
      'DROP INDEX txns_merchant_created; DROP INDEX txns_merchant_paid; DROP INDEX txns_via; DROP TABLE txn_spans; DROP TRIGGER transfer_net_in; DROP TRIGGER transfer_net_out; DROP TABLE transfer_net; ' +
        'DROP INDEX txns_paid_seq; DROP INDEX txns_status_paid; DROP INDEX txns_paid_order; DROP INDEX txns_status_paid_order; ALTER TABLE txns DROP COLUMN paid_seq; PRAGMA user_version = 4;',
    );
    db.close();
    sb = await started({ dataDir: dir });
    const atStart = expectedOrder(sb, ids, 'indate', 'DESC');
    const listed: number[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 10; page++) {
      const r = await post(sb, 'v2/history', { orderBy: 'indate', order: 'DESC', limit: 3, ...(cursor ? { cursor } : {}) });
      listed.push(...(r.data.Transaction as { TransactionId: number }[]).map((t) => t.TransactionId));
      const next = ids.find((id) => !listed.includes(id) && sb.state.get(id)!.status === 'pending');
      if (next !== undefined) await sb.pay(String(next));
      cursor = (r.data.Pagination as { next_cursor: string | null }).next_cursor ?? undefined;
      if (!cursor) break;
    }
    expect(listed).toEqual(atStart);
  });
});

describe('paycli history --all --order-by paid while payments are paid', () => {
  it('lists every transaction once: those paid during the run where they stood when it began', async () => {
    const paid: number[] = [];
    let sb: EmulatorHandle | undefined;
    let pages = 0;
    sb = await started({
      onEvent: (e) => {
        // Once a history page is answered, the two oldest pending payments (not listed yet) are paid: their paid time moves them first.
        if (e.type !== 'request' || e.path !== '/api/v2/history' || !sb) return;
        pages++;
        for (const t of sb.state.page({ status: 'pending' }, { by: 'id', desc: false }, 2).rows) {
          paid.push(t.id);
          void sb.pay(String(t.id));
        }
      },
    });
    const ids: number[] = [];
    for (let n = 0; n < 30; n++) ids.push(await create(sb, n));
    const cli = await runCli(['history', '--all', '--order-by', 'paid', '--limit', '5', '--json'], { env: localEnv(sb) });
    expect(cli.code, cli.stderr).toBe(0);
    const rows = cli.stdout
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { TransactionId: number }).TransactionId);
    expect(pages).toBeGreaterThan(5);
    expect(paid.length).toBeGreaterThan(10);
    expect(rows).toEqual([...ids].reverse());
  });
});

describe("the ledger's statements", () => {
  it('read no table that grows with history whole (a max() outside its partial index once did: 160 ms per page at 1 000 000 payments)', async () => {
    const sb = await started();
    const db = sb.state.db;
    const stmts = Object.entries((sb.state as unknown as { stmts: Record<string, { source?: unknown }> }).stmts);
    expect(stmts.length).toBeGreaterThan(20);
    for (const [name, stmt] of stmts) {
      if (typeof stmt?.source !== 'string') continue;
      const named = [...stmt.source.matchAll(/@(\w+)/g)].map((m) => m[1]!);
      const args = named.length > 0 ? [Object.fromEntries(named.map((k) => [k, 0]))] : Array((stmt.source.match(/\?/g) ?? []).length).fill(0);
      const plan = (db.prepare(`EXPLAIN QUERY PLAN ${stmt.source}`).all(...args) as { detail: string }[]).map((p) => p.detail);
      // A row of the plan on such a table without an index or the rowid is a read of all of it.
      for (const step of plan)
        expect(step, `${name}: ${stmt.source}`).not.toMatch(/^(SCAN|SEARCH) (txns|deliveries|attempts|sessions|parcel_steps)( AS \w+)?$/);
    }
  });
});
