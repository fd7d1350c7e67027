// The ledger's reads built per request (pages and counts of history, `sandbox list` and the dashboard)
// read the rows of a page or of a date range, never every row of the ledger or of a status: checked
// on their query plans (as SQLite plans them for any size of table), not on timings.
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

describe("the ledger's pages and counts by status and paid time", () => {
  it('a page in paid-time order of one status reads that order from an index (it once sorted every row of the status: 200 ms per page at 1 000 000 payments)', async () => {
    const sb = await ledger();
    for (const status of ['berhasil', 'pending'])
      for (const order of PAID_ORDER)
        for (const from of [{}, { cursor: { key: 1, id: 1, snapshot: { maxId: 200_000, paidSeq: 5 } } }]) {
          const reads = plansOf(sb, () => sb.state.page({ status }, order, 10, from)).filter((r) => /ORDER BY paid_at/.test(r.sql));
          expect(reads.length, `${status} ${JSON.stringify(order)} ${JSON.stringify(from)}`).toBeGreaterThan(0);
          for (const r of reads) {
            expect(r.plan.join(' / '), r.sql).toMatch(/USING (COVERING )?INDEX txns_status_paid \(status=\?/);
            expect(r.plan.join(' / '), r.sql).not.toMatch(/TEMP B-TREE/);
          }
        }
  });

  it("an offset page in the gateway's paid-time order (page 2 and up) reads it from an index (it once sorted every row)", async () => {
    const sb = await ledger();
    for (const f of [{}, { status: 'berhasil' }, { status: 'pending' }] as TxnFilter[])
      for (const order of PAID_ORDER) {
        const reads = plansOf(sb, () => sb.state.page(f, order, 10, { offset: 10 }));
        expect(reads).toHaveLength(1);
        expect(reads[0]!.plan.join(' / '), reads[0]!.sql).toMatch(/USING COVERING INDEX txns_(status_)?paid_order/);
        expect(reads[0]!.plan.join(' / '), reads[0]!.sql).not.toMatch(/TEMP B-TREE/);
      }
  });

  it('a count of one status within paid dates reads the range of that status (date=indate)', async () => {
    const sb = await ledger();
    const reads = plansOf(sb, () => sb.state.count({ status: 'berhasil', range: { field: 'paid', from: 1, to: 2 } }));
    expect(reads).toHaveLength(1);
    expect(reads[0]!.plan.join(' / ')).toMatch(/INDEX txns_status_paid \(status=\? AND paid_at>\? AND paid_at<\?\)/);
  });
});

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
