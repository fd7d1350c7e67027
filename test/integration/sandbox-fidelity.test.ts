import { spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { buildSignedRequest } from '../../src/core/api/signed-request.js';
import { parseFormBody } from '../../src/core/callback/parse.js';
import { checkCallback } from '../../src/core/callback/check.js';
import type { CallbackFields } from '../../src/core/signing/callback-canonical.js';
import type { EmulatorHandle } from '../../src/core/sandbox/server.js';
import { PAYMENT_LIMITS as LIMITS } from '../../src/core/payment-rules.js';
import { EMULATOR_DEFAULT_API_KEY as KEY, EMULATOR_DEFAULT_VA as VA, sandbox } from '../helpers/sandbox.js';
import { receiver } from '../helpers/receiver.js';

const JSON_VA = '2220002220';
const JSON_KEY = 'JSON-MERCHANT-KEY-000';
let sb: EmulatorHandle;
beforeAll(async () => {
  sb = await sandbox({
    accounts: [
      { va: VA, apiKey: KEY, active: true, name: 'Toko Satu', callbackFormat: 'form' },
      { va: JSON_VA, apiKey: JSON_KEY, active: true, name: 'Toko Dua', callbackFormat: 'json' },
    ],
  });
});
afterAll(() => sb.close());

/** Posts the exact bytes given (as an SDK would write them), signed over those bytes. */
async function post(body: string, creds = { va: VA, apiKey: KEY }, path = 'v2/payment/direct') {
  const req = buildSignedRequest({ baseUrl: sb.apiUrl, path, method: 'POST', body, credentials: creds, now: new Date() });
  const res = await request(req.url, { method: 'POST', headers: req.headers, body });
  return { status: res.statusCode, json: (await res.body.json()) as Record<string, any> };
}

const buyer = { name: 'Putu', phone: '08123456789', email: 'putu@mail.com', notifyUrl: 'http://127.0.0.1:9/cb' };

describe('requests shaped like the official SDKs and samples are accepted', () => {
  // Each body mirrors what that client writes on the wire (field set, nulls, types), not its code.
  const shapes: [string, string][] = [
    [
      'Go SDK, VA with unset optionals (null)',
      JSON.stringify({
        ...buyer,
        amount: 100000,
        expired: null,
        expiredType: null,
        comments: null,
        referenceId: null,
        paymentMethod: 'va',
        paymentChannel: 'bni',
      }),
    ],
    [
      'Go SDK, convenience store (no items at all)',
      JSON.stringify({
        ...buyer,
        amount: 25000,
        expired: 24,
        expiredType: 'hours',
        comments: null,
        referenceId: '20250101120000',
        paymentMethod: 'cstore',
        paymentChannel: 'alfamart',
      }),
    ],
    [
      'PHP sample (floatval amount, no items)',
      `{"name":"Putu Made Nyoman Ketut","phone":"081234567890","email":"test@example.com","amount":100000.0,"notifyUrl":"https://your-website.com/callback-url","referenceId":"1234","paymentMethod":"va","paymentChannel":"bca"}`,
    ],
    [
      'Python sample (amount as a string, comments)',
      JSON.stringify({ ...buyer, amount: '100000', comments: 'Payment to PT Demo', referenceId: '1234', paymentMethod: 'va', paymentChannel: 'bca' }),
    ],
    [
      'PHP SDK (string prices, empty COD arrays, nulls)',
      JSON.stringify({
        account: VA,
        ...buyer,
        amount: 120000,
        paymentMethod: 'va',
        paymentChannel: 'mandiri',
        comments: null,
        description: ['desc'],
        referenceId: null,
        product: ['Kopi'],
        qty: ['2'],
        price: ['60000'],
        weight: [],
        length: [],
        width: [],
        height: [],
        deliveryArea: null,
        deliveryAddress: null,
        pickupArea: null,
        pickupAddress: null,
        expired: 24,
        expiredType: 'hours',
      }),
    ],
    [
      'Node SDK (string amount and quantities)',
      JSON.stringify({
        account: VA,
        ...buyer,
        amount: '40000',
        paymentMethod: 'va',
        paymentChannel: 'bca',
        product: ['product 1', 'product2'],
        qty: ['1', '2'],
        price: ['10000', '15000'],
        weight: [1, 2],
        length: [30, 40],
        width: [10, 50],
        height: [10, 10],
        expired: 1,
      }),
    ],
    [
      'docs example (VA with item dimensions)',
      JSON.stringify({
        ...buyer,
        amount: 10000,
        expired: 24,
        expiredType: 'hours',
        comments: 'Payment for Order #123',
        referenceId: 'REF123456',
        paymentMethod: 'va',
        paymentChannel: 'bca',
        product: ['Product A'],
        qty: [1],
        price: [10000],
        weight: [1],
        width: [1],
        height: [1],
        length: [1],
        deliveryArea: '76111',
        deliveryAddress: 'Jalan Raya No. 1',
      }),
    ],
  ];
  it.each(shapes)('%s', async (_name, body) => {
    const r = await post(body);
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(r.json.Data.SessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(typeof r.json.Data.TransactionId).toBe('number');
  });

  it('still needs items, dimensions and delivery fields for COD, and checks items wherever they are sent', async () => {
    const cod = await post(JSON.stringify({ ...buyer, amount: 75000, paymentMethod: 'cod', paymentChannel: 'rpx' }));
    expect(cod.status).toBe(400);
    expect(Object.keys(cod.json.Error).sort()).toEqual([
      'deliveryAddress',
      'deliveryArea',
      'length',
      'price',
      'product',
      'qty',
      'shipping',
      'shippingService',
      'weight',
      'width',
    ]);
    const uneven = await post(
      JSON.stringify({ ...buyer, amount: 1000, paymentMethod: 'va', paymentChannel: 'bca', product: ['A', 'B'], qty: [1], price: [500, 500] }),
    );
    expect(uneven.status).toBe(400);
    expect(uneven.json.Error.qty).toEqual(['qty harus berjumlah sama dengan product.']);
    const halfItems = await post(JSON.stringify({ ...buyer, amount: 1000, paymentMethod: 'va', paymentChannel: 'bca', product: ['A'] }));
    expect(Object.keys(halfItems.json.Error).sort()).toEqual(['price', 'qty']);
  });
});

describe('QRIS and expiry units', () => {
  it('accepts channel qris for method qris and answers with SessionId and the QRIS extras, served by the emulator', async () => {
    const r = await post(JSON.stringify({ ...buyer, amount: 100000, paymentMethod: 'qris', paymentChannel: 'qris' }));
    expect(r.status).toBe(200);
    const d = r.json.Data;
    expect(d).toMatchObject({
      Via: 'qris',
      Channel: 'qris',
      SubTotal: 100000,
      Fee: 700,
      Total: 100000,
      FeeDirection: 'MERCHANT',
      Terminal: 'A01',
      NNSCode: '93600898',
    });
    expect(d.QrString).toBe(d.PaymentNo);
    expect(d.QrString).toMatch(/^000201/);
    expect(d.QrImage).toBe(`${sb.url}/qr/${d.TransactionId}`);
    expect(d.QrTemplate).toBe(`${sb.url}/qr/template/${d.TransactionId}`);
    const png = await request(d.QrImage);
    expect(png.statusCode).toBe(200);
    expect(png.headers['content-type']).toBe('image/png');
    expect((await png.body.arrayBuffer()).byteLength).toBeGreaterThan(100);
    const tpl = await request(d.QrTemplate);
    expect(await tpl.body.text()).toContain(`src="/qr/${d.TransactionId}"`);
    const none = await request(`${sb.url}/qr/999999`);
    expect(none.statusCode).toBe(404);
    await none.body.text();
  });

  it('with feeDirection BUYER the buyer pays the fee on top (Total and the callback amounts follow)', async () => {
    const rx = await receiver([200]);
    const r = await post(JSON.stringify({ ...buyer, notifyUrl: rx.url, amount: 150000, feeDirection: 'BUYER', paymentMethod: 'qris', paymentChannel: 'mpm' }));
    expect(r.json.Data).toMatchObject({ SubTotal: 150000, Fee: 1050, Total: 151050, FeeDirection: 'BUYER' });
    await sb.pay(String(r.json.Data.TransactionId));
    await rx.waitFor(1);
    const f = parseFormBody(rx.received[0]!.body.toString());
    expect(f).toMatchObject({ sub_total: '150000', total: '151050', amount: '151050', fee: '1050', paid_off: '150000' });
    expect(checkCallback(f, String(rx.received[0]!.headers['x-signature']), VA).verdict).toBe('valid');
    await rx.close();
  });

  it("takes expiredType seconds; null expiry means the channel's default (BCA VA 12 h, others 24 h)", async () => {
    const jakarta = (s: string) => Date.parse(s.replace(' ', 'T') + '+07:00');
    const before = Date.now();
    const r = await post(JSON.stringify({ ...buyer, amount: 5000, paymentMethod: 'va', paymentChannel: 'bca', expired: 90, expiredType: 'seconds' }));
    expect(r.status).toBe(200);
    const delta = jakarta(r.json.Data.Expired) - before;
    expect(delta).toBeGreaterThan(85_000);
    expect(delta).toBeLessThan(95_000);
    const dflt = await post(JSON.stringify({ ...buyer, amount: 5000, paymentMethod: 'va', paymentChannel: 'bca', expired: null, expiredType: null }));
    const bca = jakarta(dflt.json.Data.Expired) - before;
    expect(bca).toBeGreaterThan(11.9 * 3_600_000);
    expect(bca).toBeLessThan(12.1 * 3_600_000);
    const bni = await post(JSON.stringify({ ...buyer, amount: 5000, paymentMethod: 'va', paymentChannel: 'bni', expired: null }));
    expect(jakarta(bni.json.Data.Expired) - before).toBeGreaterThan(23.9 * 3_600_000);
  });
});

describe('amounts and expiries out of range', () => {
  const cases: [string, Record<string, unknown>, string, RegExp][] = [
    ['fractional Rupiah', { amount: 0.4 }, 'amount', /bilangan bulat/],
    ['zero', { amount: 0 }, 'amount', /minimal 1/],
    ['negative', { amount: -5 }, 'amount', /minimal 1/],
    ['1e21', { amount: 1e21 }, 'amount', /maksimal/],
    ['just over the limit', { amount: LIMITS.maxAmount + 1 }, 'amount', /maksimal/],
    ['exponent as text', { amount: '1e21' }, 'amount', /angka/],
    ['not a number', { amount: 'seratus' }, 'amount', /angka/],
    ['expiry 1e12 hours', { expired: 1e12 }, 'expired', /maksimal/],
    ['expiry 1e301', { expired: 1e301 }, 'expired', /maksimal/],
    ['fractional expiry', { expired: 1.5 }, 'expired', /bilangan bulat/],
    ['expiry over a year of days', { expired: 400, expiredType: 'days' }, 'expired', /maksimal 366/],
    ['unknown unit', { expired: 2, expiredType: 'weeks' }, 'expiredType', /seconds/],
    ['fractional price', { product: ['A'], qty: [1], price: [999.5] }, 'price.0', /bilangan bulat/],
    ['fractional quantity', { product: ['A'], qty: [1.5], price: [1000] }, 'qty.0', /bilangan bulat/],
  ];
  it.each(cases)('%s → 400 in the gateway shape', async (_name, over, field, message) => {
    const r = await post(JSON.stringify({ ...buyer, amount: 1000, paymentMethod: 'va', paymentChannel: 'bca', ...over }));
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ Status: 400, Success: false, Message: 'error - invalid request', Data: null });
    expect(r.json.Error[field]?.[0]).toMatch(message);
  });

  it('accepts the limits themselves', async () => {
    const r = await post(JSON.stringify({ ...buyer, amount: LIMITS.maxAmount, paymentMethod: 'va', paymentChannel: 'bca', expired: 366, expiredType: 'days' }));
    expect(r.status).toBe(200);
    expect(r.json.Data.Total).toBe(LIMITS.maxAmount);
    expect(JSON.stringify(r.json)).not.toMatch(/e\+|NaN/);
  });
});

describe('admin API paths', () => {
  it('answers 400 for a malformed percent-encoding, never 500', async () => {
    for (const path of ['/_sandbox/transactions/%E0%A4%A/pay', '/_sandbox/transactions/%/expire', '/_sandbox/transactions/%zz']) {
      const r = await request(`${sb.url}${path}`, { method: path.endsWith('%zz') ? 'GET' : 'POST' });
      expect(r.statusCode, path).toBe(400);
      expect(((await r.body.json()) as { error: string }).error).toMatch(/percent-encoding/);
    }
  });
});

describe('callbacks', () => {
  it('JSON callbacks carry typed values; a handler that hashes the decoded JSON as it gets it (PHP) accepts them', async () => {
    const rx = await receiver([200]);
    const r = await post(JSON.stringify({ ...buyer, notifyUrl: rx.url, amount: 102000, paymentMethod: 'qris', paymentChannel: 'mpm', referenceId: 'ID1234' }), {
      va: JSON_VA,
      apiKey: JSON_KEY,
    });
    await sb.pay(String(r.json.Data.TransactionId));
    await rx.waitFor(1);
    const body = rx.received[0]!.body.toString();
    const signature = String(rx.received[0]!.headers['x-signature']);
    const parsed = JSON.parse(body) as CallbackFields;
    expect(parsed).toMatchObject({
      trx_id: r.json.Data.TransactionId,
      status_code: 1,
      transaction_status_code: 1,
      paid_off: 101286,
      is_escrow: false,
      additional_info: [],
      amount: '102000',
      fee: '714',
      status: 'berhasil',
    });
    for (const [k, v] of Object.entries(parsed)) {
      if (!['trx_id', 'status_code', 'transaction_status_code', 'paid_off', 'is_escrow', 'additional_info'].includes(k)) expect(typeof v, k).toBe('string');
    }
    expect(checkCallback(parsed, signature, JSON_VA).verdict).toBe('valid');
    const php = spawnSync('php', ['-v']);
    if (php.status === 0 || process.env.CI) {
      // The gateway's JSON-mode reference handler: json_decode, ksort, json_encode, HMAC with the VA.
      const script = '$d = json_decode(file_get_contents("php://stdin"), true); ksort($d); echo hash_hmac("sha256", json_encode($d), $argv[1]);';
      const out = spawnSync('php', ['-r', script, JSON_VA], { input: body, encoding: 'utf8' });
      expect(out.stdout).toBe(signature);
    }
    await rx.close();
  });

  it('callbacks to one handler reuse connections (keep-alive) instead of one TCP connection each', async () => {
    let connections = 0;
    let requests = 0;
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        requests++;
        res.end('ok');
      });
    });
    server.on('connection', () => connections++);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/cb`;
    for (let i = 0; i < 10; i++) {
      const r = await post(JSON.stringify({ ...buyer, notifyUrl: url, amount: 1000 + i, paymentMethod: 'va', paymentChannel: 'bca' }));
      await sb.pay(String(r.json.Data.TransactionId));
      expect(await sb.idle(5000)).toBe(true);
    }
    expect(requests).toBe(10);
    expect(connections).toBeLessThanOrEqual(2);
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
});

describe("the official samples' demo credentials", () => {
  // The public sandbox key that the gateway's PHP/Python samples and Go SDK tests pair with VA 1179000899.
  const SAMPLES_KEY = 'QbGcoO0Qds9sQFDmY0MWg1Tq.xtuh1';

  it('paycli sandbox --va 1179000899 --api-key-file FILE lets the samples run unmodified', async () => {
    const { writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { run } = await import('../../src/cli/run.js');
    const { tempHome, testContext } = await import('../helpers/cli.js');
    const h = tempHome();
    const keyFile = join(h.home, 'samples-key.txt');
    writeFileSync(keyFile, `${SAMPLES_KEY}\n`, { mode: 0o600 });
    const controller = new AbortController();
    const { ctx, out } = testContext({ home: h.home, signal: controller.signal });
    const done = run(['sandbox', '--port', '0', '--in-memory', '--va', '1179000899', '--api-key-file', keyFile, '--json'], ctx);
    for (let i = 0; i < 300 && !out().includes('"started"'); i++) await new Promise((r) => setTimeout(r, 10));
    const started = JSON.parse(out().split('\n')[0]!) as { baseUrl: string; apiKey: string };
    expect(started.apiKey).not.toContain('O0Qds9sQFDmY0MWg1Tq'); // masked
    // The PHP sample's request, signed as the sample signs it, with only the base URL changed.
    const body =
      '{"name":"Putu Made Nyoman Ketut","phone":"081234567890","email":"test@example.com","amount":100000.0,"notifyUrl":"https://your-website.com/callback-url","referenceId":"1234","paymentMethod":"va","paymentChannel":"bca"}';
    const req = buildSignedRequest({
      baseUrl: started.baseUrl,
      path: 'v2/payment/direct',
      method: 'POST',
      body,
      credentials: { va: '1179000899', apiKey: SAMPLES_KEY },
      now: new Date(),
    });
    const res = await request(req.url, { method: 'POST', headers: req.headers, body });
    expect(res.statusCode).toBe(200);
    expect(((await res.body.json()) as { Data: { PaymentName: string } }).Data.PaymentName).toBe('BCA');
    // paycli's own default key is then refused for that VA, as a different key would be by the gateway.
    const other = buildSignedRequest({
      baseUrl: started.baseUrl,
      path: 'v2/payment/direct',
      method: 'POST',
      body,
      credentials: { va: '1179000899', apiKey: KEY },
      now: new Date(),
    });
    const refused = await request(other.url, { method: 'POST', headers: other.headers, body });
    expect(refused.statusCode).toBe(401);
    await refused.body.text();
    controller.abort('SIGTERM');
    expect(await done).toBe(0);
    h.cleanup();
  });
});
