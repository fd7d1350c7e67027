// Schema 8 (`txn_days`, state-days.ts): counts within dates from per-day running counts, and a page in id
// order within paid dates read from the ids of the filter's rows on those days. Checked on query plans
// (as SQLite plans them for any size of table) and on results: the same rows and counts as the plain
// query on a ledger whose paid times are out of id order (paid late, as a COD parcel on delivery; imported
// paid before it was created; created out of id order), before and after statuses change.
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { keepUntilExit } from '../../src/core/db.js';
import type { EmulatorHandle } from '../../src/core/sandbox/server.js';
import type { BulkExtra, SeedPayment, Transaction, TxnFilter, TxnOrder, TxnStatus } from '../../src/core/sandbox/state.js';
import { afterEachTest } from '../helpers/cleanups.js';
import { plansOf as queryPlans } from '../helpers/query-plans.js';
import { createDirectVa } from '../helpers/sandbox.js';

const { started, tempDir } = afterEachTest();

const DAY = 86_400_000;
const HOUR = 3_600_000;
const VA = '1179000899';
const OTHER = '1179000900';
/** A Jakarta midnight (2024-03-01T00:00+07:00): history's dates are whole Jakarta days. */
const T0 = Date.parse('2024-03-01T00:00:00+07:00');

type Bulk = { bulk(payments: Iterable<(id: number) => SeedPayment>, extra?: BulkExtra): number };

/** A deterministic sequence in [0, 1). */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1_103_515_245 + 12_345) % 2 ** 31;
    return s / 2 ** 31;
  };
}

/**
 * 400 payments over 30 days from T0, two merchants, after a model payment: most paid within an hour, some
 * days later (up to 12), some stored paid up to 3 days before they were made (an import: a payment paid before
 * the dates' end may be made after it), some made out of id order.
 */
async function ledger(sb: EmulatorHandle): Promise<void> {
  const model = sb.state.get(await createDirectVa(sb, 1))!;
  const rnd = random(7);
  let i = 0;
  (sb.state as unknown as Bulk).bulk(
    Array.from({ length: 400 }, () => (id: number): SeedPayment => {
      const n = i++;
      // Some made out of id order: after rows with higher ids (an import), the others in id order.
      const createdAt = T0 + Math.floor((n / 400) * 30 * DAY) + (rnd() < 0.05 ? Math.floor(rnd() * 2 * DAY) : 0);
      const r = rnd();
      const status: TxnStatus = r < 0.55 ? 'berhasil' : r < 0.65 ? 'unsettled' : r < 0.7 ? 'refund' : r < 0.85 ? 'pending' : 'expired';
      const paid = status === 'berhasil' || status === 'unsettled' || status === 'refund';
      const late = rnd();
      const paidAt =
        late < 0.7 ? createdAt + Math.floor(rnd() * HOUR) : late < 0.9 ? createdAt + Math.floor(rnd() * 12 * DAY) : createdAt - Math.floor(rnd() * 3 * DAY);
      const txn: Transaction = { ...model, id, paymentNo: `d${id}`, referenceId: '', merchantVa: n % 3 === 0 ? OTHER : VA, status, createdAt };
      txn.paidAt = paid ? paidAt : undefined;
      return { txn };
    }),
  );
}

/** The plain query's ids (no bound, no plan of the ledger's), as the gateway's offset page defines them. */
function reference(sb: EmulatorHandle, f: TxnFilter, desc: boolean, limit: number, offset: number): number[] {
  const col = f.range!.field === 'paid' ? 'paid_at' : 'created_at';
  const terms = [`merchant_va = ?`, `${col} >= ?`, `${col} < ?`, ...(f.status ? ['status = ?'] : [])];
  const params = [f.merchantVa!, f.range!.from!, f.range!.to!, ...(f.status ? [f.status] : [])];
  const sql = `SELECT id FROM txns WHERE ${terms.join(' AND ')} ORDER BY id ${desc ? 'DESC' : 'ASC'} LIMIT ? OFFSET ?`;
  return sb.state.db
    .prepare(sql)
    .pluck()
    .all(...params, limit, offset) as number[];
}

function referenceCount(sb: EmulatorHandle, f: TxnFilter): { count: number; net: number } {
  const col = f.range!.field === 'paid' ? 'paid_at' : 'created_at';
  const status = f.status ? ' AND status = ?' : '';
  return sb.state.db
    .prepare(`SELECT count(*) AS count, coalesce(sum(paid_off), 0) AS net FROM txns WHERE merchant_va = ? AND ${col} >= ? AND ${col} < ?${status}`)
    .get(f.merchantVa, f.range!.from, f.range!.to, ...(f.status ? [f.status] : [])) as { count: number; net: number };
}

/** Ranges of whole days and of parts of days, over and past the ledger's 30 days (+ a paid time up to 12 days later). */
const RANGES: [number, number][] = [
  [T0, T0 + 50 * DAY],
  [T0 + 5 * DAY, T0 + 20 * DAY],
  [T0 + 10 * DAY, T0 + 11 * DAY],
  [T0 + 28 * DAY, T0 + 45 * DAY],
  [T0 - 4 * DAY, T0 + 2 * DAY],
  [T0 + 3 * DAY + 5 * HOUR, T0 + 17 * DAY + 13 * HOUR],
  [T0 + 7 * DAY + HOUR, T0 + 7 * DAY + 9 * HOUR],
  [T0 + 60 * DAY, T0 + 61 * DAY],
];

function expectAsPlainQuery(sb: EmulatorHandle): void {
  for (const field of ['paid', 'created'] as const)
    for (const [from, to] of RANGES)
      for (const merchantVa of [VA, OTHER])
        for (const status of [undefined, 'berhasil', 'refund', 'pending']) {
          const f: TxnFilter = { merchantVa, range: { field, from, to }, ...(status ? { status } : {}) };
          const what = JSON.stringify(f);
          expect(sb.state.count(f), what).toBe(referenceCount(sb, f).count);
          expect(sb.state.aggregate(f), what).toEqual(referenceCount(sb, f));
          for (const desc of [true, false]) {
            const order: TxnOrder = { by: 'id', desc };
            for (const offset of [0, 7, 40])
              expect(
                sb.state.page(f, order, 7, { offset }).rows.map((t) => t.id),
                `${what} ${desc} ${offset}`,
              ).toEqual(reference(sb, f, desc, 7, offset));
            // A walk by cursor lists the same rows (nothing changes during it).
            const walked: number[] = [];
            let p = sb.state.page(f, order, 9);
            walked.push(...p.rows.map((t) => t.id));
            while (p.next) {
              p = sb.state.page(f, order, 9, { cursor: p.next });
              walked.push(...p.rows.map((t) => t.id));
            }
            expect(walked, `${what} ${desc} walk`).toEqual(reference(sb, f, desc, 10_000, 0));
          }
        }
}

describe('txn_days: within dates, as the plain query', () => {
  it('pages in id order and counts within paid and created dates, paid times out of id order', async () => {
    const sb = await started();
    await ledger(sb);
    expect(sb.state.count({ range: { field: 'paid', from: T0, to: T0 + 50 * DAY } })).toBeGreaterThan(200);
    expectAsPlainQuery(sb);
  });

  it('after statuses change: paid late (days after it was made), refunded, expired', async () => {
    const sb = await started();
    await ledger(sb);
    const rows = sb.state.page({}, { by: 'id', desc: false }, 1000).rows;
    const rnd = random(11);
    for (const t of rows) {
      const r = rnd();
      if (t.status === 'pending' && r < 0.6) await sb.state.transition(t.id, 'berhasil', t.createdAt + Math.floor(rnd() * 9 * DAY));
      else if (t.status === 'pending') await sb.state.transition(t.id, 'expired', t.createdAt + DAY);
      else if (t.status === 'berhasil' && r < 0.2) await sb.state.transition(t.id, 'refund', T0 + 40 * DAY);
      else if (t.status === 'unsettled' && r < 0.5) await sb.state.transition(t.id, 'berhasil', T0 + 41 * DAY);
    }
    expectAsPlainQuery(sb);
  });
});

/** The statements `fn` prepares on the ledger, each with its query plan in one line. */
const plansOf = (sb: EmulatorHandle, fn: () => unknown) => queryPlans(sb.state.db, fn).map((r) => ({ sql: r.sql, plan: r.plan.join(' / ') }));

describe('txn_days: the plans', () => {
  it('a page in id order within paid dates reads ids in order, and the payments paid late by txns_paid_late (it sorted every row paid in the dates: 268 ms at 1 000 000 payments)', async () => {
    const sb = await started();
    await ledger(sb);
    const f: TxnFilter = { merchantVa: VA, range: { field: 'paid', from: T0 + 5 * DAY, to: T0 + 20 * DAY } };
    for (const desc of [true, false])
      for (const from of [{}, { offset: 7 }, { cursor: { key: 100_200, id: 100_200, snapshot: { maxId: 100_400, paidSeq: 0 } } }]) {
        const reads = plansOf(sb, () => expect(sb.state.page(f, { by: 'id', desc }, 7, from).rows).toHaveLength(7)).filter(
          (r) => /\bFROM txns\b/.test(r.sql) && !/^SELECT (id, merchant_va|\(SELECT seq)/.test(r.sql),
        );
        expect(reads.map((r) => r.sql.slice(0, 44))).toEqual(['SELECT id FROM (SELECT id FROM txns WHERE +m']);
        // The prompt ones by the rowid (no sort of them), the late ones by their partial index; never every row paid in the dates.
        expect(reads[0]!.plan).toMatch(/CO-ROUTINE \(subquery-1\) \/ SEARCH txns USING INTEGER PRIMARY KEY \(rowid>\? AND rowid<\?\) \/ SCAN \(subquery-1\)/);
        expect(reads[0]!.plan).toMatch(/SEARCH txns USING INDEX txns_paid_late \(paid_at>\? AND paid_at<\?\)/);
        expect(reads[0]!.plan).not.toMatch(/INDEX txns_paid \(|txns_merchant_paid|SCAN txns/);
      }
  });

  it('a count within whole days reads txn_days, not the rows (it read every row of the dates: 26 ms for 60 days)', async () => {
    const sb = await started();
    await ledger(sb);
    for (const field of ['paid', 'created'] as const)
      for (const f of [{ merchantVa: VA }, { merchantVa: VA, status: 'berhasil' }, { status: 'refund', vias: ['va'] }] as TxnFilter[]) {
        const reads = plansOf(sb, () => sb.state.count({ ...f, range: { field, from: T0, to: T0 + 60 * DAY } }));
        expect(reads.filter((r) => /\bFROM txns\b/.test(r.sql))).toEqual([]);
        expect(reads.map((r) => r.plan)).toEqual([expect.stringMatching(/^SEARCH txn_days USING PRIMARY KEY \(field=\?/)]);
      }
  });

  it('migration 8 fills txn_days from the rows, and runs again on a ledger that has it', async () => {
    const dir = tempDir();
    let sb = await started({ dataDir: dir });
    await ledger(sb);
    const days = () => sb.state.db.prepare('SELECT * FROM txn_days WHERE n <> 0 ORDER BY 1, 2, 3, 4, 5').all();
    const kept = days();
    await sb.close();
    for (const older of ['DROP TABLE txn_days; PRAGMA user_version = 7;', 'PRAGMA user_version = 7;']) {
      const db = keepUntilExit(new Sqlite(join(dir, 'ledger.db')));
      db.exec(older);
      db.close();
      sb = await started({ dataDir: dir });
      expect(days()).toEqual(kept);
      await sb.close();
    }
  });
});
