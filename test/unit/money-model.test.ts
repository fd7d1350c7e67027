import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callbackFromRecord, chargeFromRecord } from '../../src/core/api/recover.js';
import { chargeOf, feeFor } from '../../src/core/fees.js';
import { balanceOf, transactionRecord } from '../../src/core/sandbox/ledger.js';
import { callbackFieldsOf } from '../../src/core/sandbox/outbox.js';
import { SandboxState, type Transaction } from '../../src/core/sandbox/state.js';

/**
 * Issue 26 item 6: one money model (fees.ts chargeOf) for the callback the emulator sends, the
 * record check transaction answers, the balance, and the callback `recover` rebuilds from that
 * record, whichever side bears the fee.
 */

const METHODS: [string, string, string][] = [
  ['va', 'bca', '8868000000000001'],
  ['qris', 'mpm', ''],
  ['cstore', 'alfamart', '1234567890'],
  ['ewallet', 'dana', ''],
  ['cc', 'cc', ''],
  ['cod', 'rpx', ''],
  ['paylater', 'akulaku', ''],
];

const txnArb = fc.record({
  id: fc.integer({ min: 1, max: 10_000_000 }),
  amount: fc.integer({ min: 1, max: 1_000_000_000_000 }),
  method: fc.constantFrom(...METHODS),
  direction: fc.constantFrom<'MERCHANT' | 'BUYER'>('MERCHANT', 'BUYER'),
  settlement: fc.constantFrom<'immediate' | 'deferred'>('immediate', 'deferred'),
  createdAt: fc.integer({ min: 1_700_000_000, max: 1_900_000_000 }).map((s) => s * 1000),
  paidAfter: fc.integer({ min: 1, max: 3600 }).map((s) => s * 1000),
  referenceId: fc.constantFrom('', 'INV-1', 'order/77'),
});

type TxnInput = typeof txnArb extends fc.Arbitrary<infer T> ? T : never;

function transaction(x: TxnInput): Transaction {
  const [via, channel, paymentNo] = x.method;
  return {
    id: x.id,
    sid: 'SID-1',
    merchantVa: '1179000899',
    referenceId: x.referenceId,
    via,
    channel,
    paymentNo,
    paymentName: channel.toUpperCase(),
    amount: x.amount,
    fee: feeFor(via, x.amount),
    ...(x.direction === 'BUYER' ? { feeDirection: 'BUYER' as const } : {}),
    // Paid with deferred settlement is status 6 (statuses.ts `unsettled`) until it settles.
    status: x.settlement === 'deferred' ? 'unsettled' : 'berhasil',
    createdAt: x.createdAt,
    expiresAt: x.createdAt + 86_400_000,
    paidAt: x.createdAt + x.paidAfter,
    notifyUrl: 'https://toko.example/cb',
    buyer: { name: 'Putu', phone: '08123456789', email: 'p@x.co' },
    items: [{ product: 'Kopi', qty: 1, price: x.amount }],
  };
}

describe('one money model for callback, record, balance and recover', () => {
  // The balance is a query of the emulator's ledger: one in memory, holding one transaction at a time.
  let ledger: SandboxState;
  beforeAll(async () => {
    ledger = await SandboxState.open();
  });
  afterAll(() => ledger.close());
  const balanceWith = (t: Transaction, settlement: 'immediate' | 'deferred', now: number) => {
    ledger.bulk([{ txn: t }]);
    try {
      return balanceOf(ledger, t.merchantVa, settlement, now);
    } finally {
      ledger.db.exec('DELETE FROM txns; DELETE FROM txn_counts');
    }
  };

  it('takes the fee once: BUYER pays amount + fee and the merchant gets the amount; MERCHANT pays the amount and gets amount − fee', () => {
    expect(chargeOf(100_000, 700, 'BUYER')).toEqual({ subTotal: 100_000, fee: 700, total: 100_700, paidOff: 100_000 });
    expect(chargeOf(100_000, 700, 'MERCHANT')).toEqual({ subTotal: 100_000, fee: 700, total: 100_000, paidOff: 99_300 });
    expect(chargeOf(100_000, 700, undefined)).toEqual(chargeOf(100_000, 700, 'MERCHANT'));
  });

  it("the issue's case: a BUYER QRIS payment of 100 000", () => {
    const t = transaction({
      id: 7,
      amount: 100_000,
      method: METHODS[1]!,
      direction: 'BUYER',
      settlement: 'immediate',
      createdAt: 1_800_000_000_000,
      paidAfter: 1000,
      referenceId: '',
    });
    const now = t.paidAt! + 1;
    const callback = callbackFieldsOf(t, 'berhasil', 'immediate');
    expect([callback.total, callback.fee, callback.paid_off]).toEqual(['100700', '700', '100000']);
    const record = transactionRecord(t, 'Toko', 'immediate', now);
    expect([record.Total, record.PaidOff, record.Fee]).toEqual([100_700, 100_000, 700]);
    expect(balanceWith(t, 'immediate', now).settled).toBe(100_000);
    expect(callbackFromRecord(record as never, t.notifyUrl).amount).toBe('100700');
  });

  it('callback, record, balance and recover agree, for both directions (property)', () => {
    fc.assert(
      fc.property(txnArb, (x) => {
        const t = transaction(x);
        const now = t.paidAt! + 1; // just after the payment, when the callback is sent
        const money = chargeOf(t.amount, t.fee, x.direction);
        const callback = callbackFieldsOf(t, t.status);
        expect(Number(callback.total)).toBe(money.total);
        expect(Number(callback.amount)).toBe(money.total);
        expect(Number(callback.sub_total)).toBe(money.subTotal);
        expect(Number(callback.fee)).toBe(money.fee);
        expect(Number(callback.paid_off)).toBe(money.paidOff);
        // The fee is taken once: the buyer's total is what the merchant gets plus the fee.
        expect(money.total).toBe(money.paidOff + money.fee);
        const record = transactionRecord(t, 'Toko', x.settlement, now);
        expect(record.Total).toBe(money.total);
        expect(record.PaidOff).toBe(money.paidOff);
        expect(record.Fee).toBe(money.fee);
        const balance = balanceWith(t, x.settlement, now);
        expect(balance.settled + balance.unsettled).toBe(money.paidOff);
        expect(chargeFromRecord(record as never)).toEqual({ amount: t.amount, fee: t.fee, direction: x.direction });
        // recover rebuilds exactly the callback first sent.
        expect(callbackFromRecord(record as never, t.notifyUrl)).toEqual(callback);
        // A record without FeeDirection/SubTotal (another gateway version): the direction follows from Total.
        const { FeeDirection: _d, SubTotal: _s, ...bare } = record;
        if (t.fee > 0) expect(callbackFromRecord(bare as never, t.notifyUrl)).toEqual(callback);
      }),
      { numRuns: 500 },
    );
  });
});
