import { describe, expect, it } from 'vitest';
import { encodePaymentBody } from '../../src/core/api/payments.js';
import { validatePaymentRequest, PAYMENT_METHODS } from '../../src/core/payment-rules.js';
import { buildPaymentRequest, collectItems, normalizeChannel, parseItem } from '../../src/cli/commands/pay-input.js';
import { feeFor } from '../../src/core/fees.js';
import { paymentNumber, qrisPayload } from '../../src/core/payment-numbers.js';

const buyer = { name: 'Putu', phone: '08123456789', email: 'putu@mail.com', notifyUrl: 'https://shop.example/cb', referenceId: 'REF-1' };

describe('payment rules (docs/gateway.md, "Payments")', () => {
  it('has the spec table of methods and channels', () => {
    expect(Object.fromEntries(PAYMENT_METHODS.map((m) => [m.method, m.channels.length]))).toEqual({
      va: 12,
      cstore: 2,
      cod: 1,
      qris: 1,
      cc: 1,
      paylater: 1,
      ewallet: 2,
    });
  });

  it('validates like the gateway with Indonesian messages', () => {
    const errors = validatePaymentRequest({ paymentMethod: 'va', paymentChannel: 'gopay', amount: -1, product: ['a'], qty: [1, 2], price: [1] });
    expect(errors.name).toEqual(['name wajib diisi.']);
    expect(errors.notifyUrl).toEqual(['notifyUrl wajib diisi.']);
    expect(errors.paymentChannel![0]).toMatch(/tidak valid untuk va/);
    expect(errors.amount![0]).toMatch(/minimal 1/);
    expect(errors.qty![0]).toMatch(/sama/);
  });

  it('requires the COD fields', () => {
    const errors = validatePaymentRequest({ ...buyer, amount: 1000, paymentMethod: 'cod', paymentChannel: 'rpx', product: ['a'], qty: [1], price: [1000] });
    // shipping and shippingService: required for COD by the gateway's docs table (cod, direct-payment pages).
    expect(Object.keys(errors).sort()).toEqual(['deliveryAddress', 'deliveryArea', 'length', 'shipping', 'shippingService', 'weight', 'width']);
    const withArea = validatePaymentRequest({
      ...buyer,
      amount: 1000,
      paymentMethod: 'cod',
      paymentChannel: 'rpx',
      product: ['a'],
      qty: [1],
      price: [1000],
      weight: [1],
      width: [1],
      length: [1],
      deliveryArea: 'Kuta',
      deliveryAddress: 'x',
      shipping: 'RPX',
      shippingService: 'REG',
      pickupArea: '17473',
    });
    expect(withArea).toEqual({ deliveryArea: ['deliveryArea harus berupa kode pos atau id area.'] });
  });
});

describe('paycli pay input', () => {
  it('parses items, names with colons, and COD dimensions', () => {
    expect(parseItem('Kopi Bali:2:50000')).toEqual({ product: 'Kopi Bali', qty: 2, price: 50000 });
    expect(parseItem('Jam 10:30 tour:1:250000')).toEqual({ product: 'Jam 10:30 tour', qty: 1, price: 250000 });
    expect(parseItem('Kaos:1:75000:0.3:20:5:30')).toEqual({ product: 'Kaos', qty: 1, price: 75000, weight: 0.3, width: 20, height: 5, length: 30 });
    expect(() => parseItem('Kopi')).toThrow(/NAME:QTY:PRICE/);
    expect(collectItems({ product: ['a', 'b'], qty: ['1', '2'], price: ['10', '20'] })).toHaveLength(2);
    expect(() => collectItems({ product: ['a', 'b'], qty: ['1'], price: ['10', '20'] })).toThrow(/--qty was given 1 times for 2/);
  });

  it('maps qris as a channel to mpm with a warning, and rejects foreign channels', () => {
    const warnings: string[] = [];
    expect(normalizeChannel(undefined, 'qris', (m) => warnings.push(m))).toEqual({ method: 'qris', channel: 'mpm' });
    expect(warnings[0]).toMatch(/alias/);
    expect(normalizeChannel('cstore', undefined, () => undefined)).toEqual({ method: 'cstore', channel: undefined });
    expect(normalizeChannel('cod', undefined, () => undefined)).toEqual({ method: 'cod', channel: 'rpx' });
    expect(() => normalizeChannel('va', 'dana', () => undefined)).toThrow(/not a channel of va/);
  });

  it('defaults the amount to the items total and refuses a mismatch', () => {
    const items = [
      { product: 'a', qty: 2, price: 50000 },
      { product: 'b', qty: 1, price: 2500 },
    ];
    expect(buildPaymentRequest({ ...buyer, method: 'va', channel: 'bca', items }).amount).toBe(102500);
    expect(() => buildPaymentRequest({ ...buyer, method: 'va', channel: 'bca', items, amount: 1000 })).toThrow(/differs/);
    expect(buildPaymentRequest({ ...buyer, method: 'va', channel: 'bca', items, amount: 1000, allowAmountMismatch: true }).amount).toBe(1000);
  });

  it('encodes the body byte for byte: spec order, / raw, non-ASCII \\u escaped', () => {
    const req = buildPaymentRequest({
      ...buyer,
      name: 'Ñyoman',
      method: 'va',
      channel: 'bca',
      items: [{ product: 'Kopi/Teh 🌺', qty: 1, price: 10000 }],
      expired: 2,
      expiredType: 'hours',
    });
    expect(encodePaymentBody(req)).toBe(
      '{"name":"\\u00d1yoman","phone":"08123456789","email":"putu@mail.com","amount":10000,"notifyUrl":"https://shop.example/cb","expired":2,"expiredType":"hours","referenceId":"REF-1","paymentMethod":"va","paymentChannel":"bca","product":["Kopi/Teh \\ud83c\\udf3a"],"qty":[1],"price":[10000]}',
    );
  });

  it('reports local validation with flag names', () => {
    expect(() => buildPaymentRequest({ ...buyer, email: 'nope', method: 'va', channel: 'bca', items: [{ product: 'a', qty: 1, price: 1 }] })).toThrow(
      /--email: not an e-mail address/,
    );
    expect(() => buildPaymentRequest({ ...buyer, phone: '12', method: 'va', channel: 'bca', items: [{ product: 'a', qty: 1, price: 1 }] })).toThrow(/--phone/);
  });
});

describe('emulator numbers and fees', () => {
  it('keeps leading zeros of VA numbers and makes them unique per transaction', () => {
    expect(paymentNumber('va', 'bag', 100001, 'x', 1).paymentNo).toBe('0098000000100001');
    expect(paymentNumber('va', 'bca', 100002, 'x', 1).paymentNo).not.toBe(paymentNumber('va', 'bca', 100003, 'x', 1).paymentNo);
    expect(paymentNumber('ewallet', 'dana', 1, 'x', 1).paymentNo).toBe('');
  });

  it('computes documented fees (QRIS 0.7% reproduces the real capture)', () => {
    expect(feeFor('qris', 102000)).toBe(714);
    expect(feeFor('va', 100000)).toBe(4000);
    expect(feeFor('va', 1000)).toBe(1000);
  });

  it('builds a QRIS payload with a valid CRC', () => {
    const qr = qrisPayload('Paycli Sandbox Store', 102000, 100001);
    expect(qr.startsWith('000201010212')).toBe(true);
    expect(qr).toMatch(/5303360540610200058\d*/);
    expect(qr).toMatch(/6304[0-9A-F]{4}$/);
  });
});
