// The ledger's reads built per request (pages and counts of history, `sandbox list` and the dashboard)
// read the rows of a page or of a date range, never every row of the ledger or of a status: checked
// on their query plans (as SQLite plans them for any size of table), not on timings.
import { describe, expect, it } from 'vitest';
import type { EmulatorHandle } from '../../src/core/sandbox/server.js';
import type { BulkExtra, SeedPayment, Transaction, TxnFilter, TxnOrder } from '../../src/core/sandbox/state.js';
import { afterEachTest } from '../helpers/cleanups.js';
import { plansOf } from '../helpers/query-plans.js';
import { createDirectVa } from '../helpers/sandbox.js';

const { started } = afterEachTest();

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
          const reads = plansOf(sb.state.db, () => sb.state.page({ status }, order, 10, from)).filter((r) => /ORDER BY paid_at/.test(r.sql));
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
        const reads = plansOf(sb.state.db, () => sb.state.page(f, order, 10, { offset: 10 }));
        expect(reads).toHaveLength(1);
        expect(reads[0]!.plan.join(' / '), reads[0]!.sql).toMatch(/USING COVERING INDEX txns_(status_)?paid_order/);
        expect(reads[0]!.plan.join(' / '), reads[0]!.sql).not.toMatch(/TEMP B-TREE/);
      }
  });

  it('a count of one status within paid dates reads the range of that status (date=indate)', async () => {
    const sb = await ledger();
    const reads = plansOf(sb.state.db, () => sb.state.count({ status: 'berhasil', range: { field: 'paid', from: 1, to: 2 } }));
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
        const reads = plansOf(sb.state.db, () => expect(sb.state.page(f, order, 10)).toEqual({ rows: [], next: null }));
        expect(reads.filter((r) => /\bFROM txns\b/.test(r.sql) && !/paid_seq IS NOT NULL\)/.test(r.sql))).toEqual([]);
      }
      const reads = plansOf(sb.state.db, () => expect(sb.state.count(f)).toBe(0));
      expect(reads.filter((r) => /\bFROM txns\b/.test(r.sql))).toEqual([]);
    });

  it('a filter some row matches is read as before', async () => {
    const sb = await ledger();
    expect(sb.state.page({ via: 'va' }, { by: 'id', desc: true }, 10).rows).toHaveLength(2);
    expect(sb.state.page({ status: 'berhasil' }, { by: 'paid', desc: true }, 10).rows).toHaveLength(1);
    expect(sb.state.count({ vias: ['va'], range: { field: 'created', from: 0 } })).toBe(2);
  });
});

// Schema 7: the reads a review timed at 1 000 000 payments (bench/ledger-shapes.js) that grew with the ledger.

type Bulk = { bulk(payments: Iterable<(id: number) => SeedPayment>, extra?: BulkExtra): number };

/** Stores `n` copies of transaction `model` (the ledger's store, as `sandbox seed` does), each with `change` applied. */
function copies(sb: EmulatorHandle, model: number, n: number, change: (t: Transaction, i: number) => Partial<Transaction>): void {
  const t = sb.state.get(model)!;
  let i = 0;
  (sb.state as unknown as Bulk).bulk(
    Array.from({ length: n }, () => (id: number) => ({ txn: { ...t, id, paymentNo: `copy${id}`, referenceId: '', ...change(t, i++) } })),
  );
}

const DAY = 86_400_000;
const text = (r: { plan: string[] }) => r.plan.join(' / ');

describe('a page in id order within created dates', () => {
  it('reads the ids created then (txn_spans), in id order: not every row newer than the dates, nor the dates sorted', async () => {
    const sb = await ledger();
    const paid = sb.state.get(100_001)!;
    copies(sb, 100_001, 30, (t, i) => ({ createdAt: t.createdAt - (30 - i) * DAY }));
    const range = { field: 'created' as const, from: paid.createdAt - 20 * DAY, to: paid.createdAt - 10 * DAY };
    for (const f of [{ range }, { status: 'berhasil', range }, { merchantVa: '1179000899', range }] as TxnFilter[])
      for (const desc of [true, false])
        for (const from of [{}, { offset: 2 }]) {
          const order: TxnOrder = { by: 'id', desc };
          const reads = plansOf(sb.state.db, () => sb.state.page(f, order, 3, from)).filter((r) => /^SELECT id FROM txns/.test(r.sql));
          expect(reads.length).toBeGreaterThan(0);
          for (const r of reads) {
            expect(text(r), r.sql).toMatch(/(INTEGER PRIMARY KEY|INDEX txns_status) \(.*rowid>\? AND rowid<\?\)/);
            expect(text(r), r.sql).not.toMatch(/TEMP B-TREE/);
          }
        }
    // The same rows as a filter of every row: the ten created within the dates, newest first.
    const all = sb.state.page({}, { by: 'id', desc: true }, 50).rows.filter((t) => t.createdAt >= range.from && t.createdAt < range.to);
    expect(all).toHaveLength(10);
    let cursor = sb.state.page({ range }, { by: 'id', desc: true }, 4).next;
    const walked = sb.state.page({ range }, { by: 'id', desc: true }, 4).rows.map((t) => t.id);
    while (cursor) {
      const p = sb.state.page({ range }, { by: 'id', desc: true }, 4, { cursor });
      walked.push(...p.rows.map((t) => t.id));
      cursor = p.next;
    }
    expect(walked).toEqual(all.map((t) => t.id));
    expect(sb.state.page({ range: { field: 'created', from: 0, to: 1 } }, { by: 'id', desc: true }, 4).rows).toEqual([]);
  });

  it('a row created out of id order (an import) is listed: the ids of its hour cover it', async () => {
    const sb = await ledger();
    const first = sb.state.get(100_001)!;
    copies(sb, 100_001, 3, (t, i) => ({ createdAt: t.createdAt - (i === 1 ? 100 : 1) * DAY }));
    const range = { field: 'created' as const, from: first.createdAt - 101 * DAY, to: first.createdAt - 99 * DAY };
    expect(sb.state.page({ range }, { by: 'id', desc: true }, 5).rows.map((t) => t.id)).toEqual([100_004]);
    expect(sb.state.page({ range }, { by: 'id', desc: false }, 5, { offset: 0 }).rows.map((t) => t.id)).toEqual([100_004]);
  });
});

describe("a merchant's count within dates when the ledger has several merchants", () => {
  it('is read from an index alone (it looked up every row of the dates)', async () => {
    const sb = await ledger();
    copies(sb, 100_001, 3, () => ({ merchantVa: '1179000900' }));
    const range = { from: 0, to: 2 ** 50 };
    for (const [f, index] of [
      [{ merchantVa: '1179000899', range: { field: 'created', ...range } }, 'txns_merchant_created'],
      [{ merchantVa: '1179000899', status: 'berhasil', vias: ['va', 'cc'], range: { field: 'created', ...range } }, 'txns_merchant_created'],
      [{ merchantVa: '1179000899', range: { field: 'paid', ...range } }, 'txns_merchant_paid'],
      [{ merchantVa: '1179000899', status: 'berhasil', range: { field: 'paid', ...range } }, 'txns_merchant_paid'],
    ] as [TxnFilter, string][]) {
      // The parts of days at the range's ends (schema 8: its whole days are counted from txn_days).
      const reads = plansOf(sb.state.db, () => expect(sb.state.count(f)).toBe(f.range?.field === 'paid' ? 1 : f.status ? 1 : 2)).filter((r) =>
        /\bFROM txns\b/.test(r.sql),
      );
      expect(reads).toHaveLength(2);
      for (const r of reads) expect(text(r), r.sql).toMatch(new RegExp(`COVERING INDEX ${index} \\(merchant_va=\\?`));
    }
    expect(sb.state.count({ merchantVa: '1179000900', range: { field: 'created', ...range } })).toBe(3);
  });
});

describe('a paid status in paid-time order, ascending', () => {
  it("reads its rows paid since the walk began by their payment number, not every row of the status (the walk's unpaid segment)", async () => {
    const sb = await ledger();
    for (const from of [{}, { cursor: { key: -1, id: 100_001, snapshot: { maxId: 100_002, paidSeq: 0 } } }]) {
      const reads = plansOf(sb.state.db, () => sb.state.page({ status: 'berhasil' }, { by: 'paid', desc: false }, 10, from)).filter((r) =>
        /paid_at IS NULL/.test(r.sql),
      );
      expect(reads).toHaveLength(1);
      expect(text(reads[0]!)).toMatch(/INDEX txns_paid_seq \(paid_seq>\?\).*INDEX txns_status_paid_order \(status=\? AND <expr>=\?\)/);
      expect(text(reads[0]!)).not.toMatch(/INDEX txns_status \(/);
    }
    // Paid during a walk: listed first (unpaid when it began), then the one paid before.
    const first = sb.state.page({ status: 'berhasil' }, { by: 'paid', desc: false }, 1);
    await sb.pay('100002');
    const next = sb.state.page({ status: 'berhasil' }, { by: 'paid', desc: false }, 5, { cursor: first.next! });
    expect([...first.rows, ...next.rows].map((t) => t.id)).toEqual([100_001]);
    expect(sb.state.page({ status: 'berhasil' }, { by: 'paid', desc: false }, 5).rows.map((t) => t.id)).toEqual([100_001, 100_002]);
  });
});

describe('a method filter', () => {
  it('of a method with few rows reads them from txns_via in any order (a page scanned the ledger until it was full)', async () => {
    const sb = await ledger();
    copies(sb, 100_002, 2, () => ({ via: 'paylater', channel: 'akulaku' }));
    for (const order of [{ by: 'id', desc: true }, { by: 'created', desc: true }, ...PAID_ORDER] as TxnOrder[]) {
      const reads = plansOf(sb.state.db, () => expect(sb.state.page({ vias: ['paylater'] }, order, 10).rows).toHaveLength(2)).filter((r) =>
        /^SELECT id FROM txns/.test(r.sql),
      );
      for (const r of reads) expect(text(r), r.sql).toMatch(/INDEX txns_via \(via=\?/);
    }
  });

  it("of a method with many rows keeps to the order's index, but for one method in id order", async () => {
    const sb = await ledger();
    copies(sb, 100_002, 2100, () => ({}));
    const created = plansOf(sb.state.db, () => sb.state.page({ via: 'va' }, { by: 'created', desc: true }, 10)).filter((r) => /^SELECT id/.test(r.sql));
    expect(text(created[0]!)).toMatch(/INDEX txns_created/);
    const byId = plansOf(sb.state.db, () => sb.state.page({ via: 'va' }, { by: 'id', desc: true }, 10)).filter((r) => /^SELECT id/.test(r.sql));
    expect(text(byId[0]!)).toMatch(/INDEX txns_via \(via=\? AND rowid<\?\)/);
    const count = plansOf(sb.state.db, () => sb.state.count({ via: 'va', range: { field: 'created', from: 0 } })).filter((r) => /\bFROM txns\b/.test(r.sql));
    expect(text(count[0]!)).toMatch(/INDEX txns_created/);
  });
});

describe('transfers', () => {
  it("a VA's net is one row of transfer_net, kept with every transfer (it summed all of the VA's transfers)", async () => {
    const sb = await ledger();
    const at = Date.now();
    const transfers = [
      { id: 900_001, by: 'A', sender: 'A', receiver: 'B', amount: 500, referenceId: 'r1', notes: '', at },
      { id: 900_002, by: 'B', sender: 'B', receiver: 'A', amount: 120, referenceId: 'r2', notes: '', at },
      { id: 900_003, by: 'A', sender: 'A', receiver: 'A', amount: 70, referenceId: 'r3', notes: '', at },
    ];
    (sb.state as unknown as Bulk).bulk([], { records: { transfers } });
    const reads = plansOf(sb.state.db, () => {
      expect(sb.state.transferNet('A')).toBe(-380);
      expect(sb.state.transferNet('B')).toBe(380);
      expect(sb.state.transferNet('C')).toBe(0);
    });
    expect(reads.map((r) => r.sql)).toEqual([]);
    const stmt = (sb.state as unknown as { stmts: { transferNet: { source: string } } }).stmts.transferNet.source;
    const plan = (sb.state.db.prepare(`EXPLAIN QUERY PLAN ${stmt}`).all('A') as { detail: string }[]).map((p) => p.detail).join(' / ');
    expect(plan).not.toMatch(/\btransfers\b/);
    expect(plan).toMatch(/transfer_net USING PRIMARY KEY \(va=\?\)/);
    // Kept by triggers, whoever writes transfers: a transfer deleted takes its amount back.
    sb.state.db.prepare('DELETE FROM transfers WHERE id = 900002').run();
    expect([sb.state.transferNet('A'), sb.state.transferNet('B')]).toEqual([-500, 500]);
  });
});
