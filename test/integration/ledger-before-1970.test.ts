// A ledger may hold payments made before 1970 (an import stores any created time): a page in id
// order within created dates with no start still lists them (txn_spans' hours are floored, and an
// open start reads every hour, not from hour 0).
import { describe, expect, it } from 'vitest';
import type { SeedPayment, Transaction, TxnFilter } from '../../src/core/sandbox/state.js';
import { afterEachTest } from '../helpers/cleanups.js';
import { createDirectVa } from '../helpers/sandbox.js';

const { started } = afterEachTest();
const VA = '1179000899';
const HOUR = 3_600_000;

type Bulk = { bulk(payments: Iterable<(id: number) => SeedPayment>): number };

describe('payments made before 1970', () => {
  it('are listed by a page in id order within created dates that has no start', async () => {
    const sb = await started();
    const model = sb.state.get(await createDirectVa(sb, 1))!;
    // Made from 30 hours before the epoch to 30 hours after, 90 minutes apart.
    const made = Array.from({ length: 41 }, (_, n) => -30 * HOUR + n * 90 * 60_000 + 1);
    (sb.state as unknown as Bulk).bulk(
      made.map((createdAt, n) => (id: number): SeedPayment => {
        const txn: Transaction = { ...model, id, paymentNo: `e${n}`, referenceId: '', merchantVa: VA, status: 'pending', createdAt };
        return { txn };
      }),
    );
    const f: TxnFilter = { merchantVa: VA, range: { field: 'created', to: 10 * HOUR } };
    const expected = sb.state.db
      .prepare('SELECT id FROM txns WHERE merchant_va = ? AND created_at < ? ORDER BY id')
      .pluck()
      .all(VA, 10 * HOUR) as number[];
    expect(expected.length).toBeGreaterThan(20);
    expect(sb.state.page(f, { by: 'id', desc: false }, 100).rows.map((t) => t.id)).toEqual(expected);
    expect(sb.state.page(f, { by: 'id', desc: true }, 100).rows.map((t) => t.id)).toEqual([...expected].reverse());
  });
});
