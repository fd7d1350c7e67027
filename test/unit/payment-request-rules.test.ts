import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expiry, PAYMENT_LIMITS, rupiahAmount, validatePaymentRequest } from '../../src/core/payment-rules.js';
import { parseRedirectRequest } from '../../src/core/sandbox/redirect-request.js';
import { readPaymentRequest } from '../../src/core/sandbox/validate.js';

/** Numbers and texts around every edge of the rules: fractions, huge, tiny, negative, exponents, non-finite. */
const numberish = fc.oneof(
  fc.constantFrom(
    0,
    0.4,
    1,
    1.5,
    -1,
    24,
    366,
    367,
    1e12,
    1e21,
    1e301,
    Number.MAX_SAFE_INTEGER,
    PAYMENT_LIMITS.maxAmount,
    PAYMENT_LIMITS.maxAmount + 1,
    5e-324,
    -0,
  ),
  fc.constantFrom('1000', ' 24 ', '0.4', '1e21', '-5', '', 'seratus', '1.0', '999999999999', '1000000000000'),
  fc.double(),
  fc.integer(),
  fc.constant(null),
);
const unit = fc.constantFrom(undefined, null, '', 'days', 'hours', 'minutes', 'seconds', 'weeks', 'toString', 5);

const buyer = { name: 'Putu', phone: '08123456789', email: 'putu@mail.com', notifyUrl: 'http://127.0.0.1:9/cb' };
const wholeAndFinite = (n: number) => Number.isSafeInteger(n);

describe('payment-request rules: no accepted request has a non-integer or non-finite amount or expiry', () => {
  it('direct payments in the emulator', () => {
    fc.assert(
      fc.property(numberish, numberish, numberish, numberish, unit, fc.boolean(), (amount, qty, price, expired, expiredType, items) => {
        const body = {
          ...buyer,
          amount,
          paymentMethod: 'va',
          paymentChannel: 'bca',
          expired,
          expiredType,
          ...(items ? { product: ['A'], qty: [qty], price: [price] } : {}),
        };
        const read = readPaymentRequest(body);
        if (!read.ok) return;
        expect(wholeAndFinite(read.request.amount)).toBe(true);
        expect(read.request.amount).toBeGreaterThan(0);
        expect(read.request.amount).toBeLessThanOrEqual(PAYMENT_LIMITS.maxAmount);
        expect(wholeAndFinite(read.request.expiresInMs)).toBe(true);
        expect(read.request.expiresInMs).toBeLessThanOrEqual(PAYMENT_LIMITS.maxExpiryMs);
        for (const it of read.request.items) expect(wholeAndFinite(it.qty) && wholeAndFinite(it.price)).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  it('redirect payments in the emulator', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(numberish, numberish), { minLength: 1, maxLength: 3 }), numberish, unit, (items, expired, expiredType) => {
        const body = {
          product: items.map((_, i) => `P${i}`),
          qty: items.map(([q]) => q),
          price: items.map(([, p]) => p),
          notifyUrl: 'http://127.0.0.1:9/cb',
          expired,
          expiredType,
        };
        const read = parseRedirectRequest(body, '1179000899', 'sid', 1_700_000_000_000);
        if (!read.ok) return;
        const s = read.session;
        expect(wholeAndFinite(s.amount)).toBe(true);
        expect(s.amount).toBeGreaterThan(0);
        expect(s.amount).toBeLessThanOrEqual(PAYMENT_LIMITS.maxAmount);
        expect(wholeAndFinite(s.expiresAt)).toBe(true);
        expect(s.expiresAt - s.createdAt).toBeLessThanOrEqual(PAYMENT_LIMITS.maxExpiryMs);
        for (const it of s.items) expect(wholeAndFinite(it.qty) && wholeAndFinite(it.price)).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  it("pay's local check (numbers only, as pay sends them)", () => {
    fc.assert(
      fc.property(numberish, numberish, numberish, numberish, unit, (amount, qty, price, expired, expiredType) => {
        const body = {
          ...buyer,
          amount,
          paymentMethod: 'va',
          paymentChannel: 'bca',
          product: ['A'],
          qty: [qty],
          price: [price],
          ...(expired === null ? {} : { expired }),
          ...(expiredType === undefined ? {} : { expiredType }),
        };
        if (Object.keys(validatePaymentRequest(body)).length > 0) return;
        expect(typeof amount === 'number' && wholeAndFinite(amount)).toBe(true);
        expect(typeof price === 'number' && wholeAndFinite(price) && typeof qty === 'number' && wholeAndFinite(qty)).toBe(true);
        const e = expiry(body.expired, body.expiredType);
        expect(e.ok && wholeAndFinite(e.ms)).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  it('one table: the three readers give the same verdict on an amount', () => {
    for (const v of [0.4, 1e21, 0, -5, 1, PAYMENT_LIMITS.maxAmount, PAYMENT_LIMITS.maxAmount + 1, 1000]) {
      const ok = rupiahAmount('amount', v).ok;
      expect(readPaymentRequest({ ...buyer, amount: v, paymentMethod: 'va', paymentChannel: 'bca' }).ok, String(v)).toBe(ok);
      expect(parseRedirectRequest({ product: ['A'], qty: [1], price: [v], notifyUrl: buyer.notifyUrl }, 'va', 'sid', 0).ok, String(v)).toBe(ok);
      expect(
        validatePaymentRequest({ ...buyer, amount: v, paymentMethod: 'va', paymentChannel: 'bca', product: ['A'], qty: [1], price: [v] }).amount === undefined,
        String(v),
      ).toBe(ok);
    }
  });
});
