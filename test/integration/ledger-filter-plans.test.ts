// The ledger's reads built per request (pages and counts of history, `sandbox list` and the dashboard)
// read the rows of a page or of a date range, never every row of the ledger: checked on the
// statements they prepare and their query plans (as SQLite plans them for any size of table), not on timings.
import { describe, expect, it } from 'vitest';
import type { EmulatorHandle } from '../../src/core/sandbox/server.js';
import type { TxnFilter, TxnOrder } from '../../src/core/sandbox/state.js';
import { afterEachTest } from '../helpers/cleanups.js';
import { createDirectVa } from '../helpers/sandbox.js';

const { started } = afterEachTest();

/** The statements `fn` prepares on the ledger, each with its query plan (every parameter bound to 0). */
function plansOf(sb: EmulatorHandle, fn: () => unknown): { sql: string; plan: string[] }[] {
  const db = sb.state.db;
  const seen: string[] = [];
  const prepare = db.prepare;
  db.prepare = ((sql: string) => {
    seen.push(sql);
    return prepare.call(db, sql);
  }) as typeof db.prepare;
  try {
    fn();
  } finally {
    db.prepare = prepare;
  }
  return seen.map((sql) => ({
    sql,
    plan: (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...Array((sql.match(/\?/g) ?? []).length).fill(0)) as { detail: string }[]).map((p) => p.detail),
  }));
}

/** A ledger with a paid and a pending payment of the default merchant by VA. */
async function ledger(): Promise<EmulatorHandle> {
  const sb = await started();
  await sb.pay(String(await createDirectVa(sb, 1)));
  await createDirectVa(sb, 2);
  return sb;
}

const PAID_ORDER: TxnOrder[] = [
  { by: 'paid', desc: true },
  { by: 'paid', desc: false },
];

describe("the ledger's pages and counts of a filter no row matches", () => {
  // A method the ledger has no payment of (the dashboard's or `sandbox list`'s ?method=, history's
  // `type` of no method used): no index has the key, so a page once read every row looking for one.
  const NONE: TxnFilter[] = [
    { via: 'nope' },
    { vias: [] },
    { merchantVa: '1179000899', vias: [] },
    { status: 'escrow' },
    { status: 'berhasil', via: 'cod' },
    { via: 'nope', range: { field: 'created', from: 0, to: 2 ** 50 } },
    { vias: [], range: { field: 'paid', from: 0 } },
  ];
  for (const f of NONE)
    it(`${JSON.stringify(f)}: answered from the running totals, no row read`, async () => {
      const sb = await ledger();
      for (const order of [{ by: 'id', desc: true }, { by: 'created', desc: true }, ...PAID_ORDER] as TxnOrder[]) {
        const reads = plansOf(sb, () => expect(sb.state.page(f, order, 10)).toEqual({ rows: [], next: null }));
        expect(reads.filter((r) => /\bFROM txns\b/.test(r.sql) && !/paid_seq IS NOT NULL\)/.test(r.sql))).toEqual([]);
      }
      const reads = plansOf(sb, () => expect(sb.state.count(f)).toBe(0));
      expect(reads.filter((r) => /\bFROM txns\b/.test(r.sql))).toEqual([]);
    });

  it('a filter some row matches is read as before', async () => {
    const sb = await ledger();
    expect(sb.state.page({ via: 'va' }, { by: 'id', desc: true }, 10).rows).toHaveLength(2);
    expect(sb.state.page({ status: 'berhasil' }, { by: 'paid', desc: true }, 10).rows).toHaveLength(1);
    expect(sb.state.count({ vias: ['va'], range: { field: 'created', from: 0 } })).toBe(2);
  });
});
