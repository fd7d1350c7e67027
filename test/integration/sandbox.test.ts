import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { buildSignedRequest } from '../../src/core/api/signed-request.js';
import { hashRequestBody } from '../../src/core/signing/request-signature.js';
import { hmacHex } from '../../src/core/signing/callback-signature.js';
import { parseFormBody, parseJsonBody } from '../../src/core/callback/parse.js';
import { checkCallback } from '../../src/core/callback/check.js';
import type { EmulatorHandle } from '../../src/core/sandbox/server.js';
import { EMULATOR_DEFAULT_API_KEY as KEY, EMULATOR_DEFAULT_VA as VA, sandbox, allDeliveries, signedPost } from '../helpers/sandbox.js';
import { receiver } from '../helpers/receiver.js';

let sb: EmulatorHandle;
beforeAll(async () => {
  sb = await sandbox({
    accounts: [
      { va: VA, apiKey: KEY, active: true, name: 'Toko Satu', callbackFormat: 'form' },
      { va: '2220002220', apiKey: 'JSON-MERCHANT-KEY-000', active: true, name: 'Toko Dua', callbackFormat: 'json' },
      { va: '3330003330', apiKey: 'INACTIVE-KEY-0000000', active: false, name: 'Tutup', callbackFormat: 'form' },
      { va: '4440004440', active: true, name: 'Tanpa Kunci', callbackFormat: 'form' },
    ],
  });
});
afterAll(() => sb.close());

async function api(method: string, path: string, body?: string, creds = { va: VA, apiKey: KEY }) {
  const req = buildSignedRequest({ baseUrl: sb.apiUrl, path, method, body, credentials: creds, now: new Date() });
  const res = await request(req.url, { method: method as 'GET', headers: req.headers, body });
  return { status: res.statusCode, json: (await res.body.json()) as Record<string, any> };
}

async function raw(method: string, path: string, headers: Record<string, string>, body?: string) {
  const res = await request(`${sb.apiUrl}/${path}`, { method: method as 'GET', headers, body });
  return { status: res.statusCode, json: (await res.body.json()) as Record<string, any> };
}

const sign = (method: string, body = '', va = VA, key = KEY) => hmacHex(key, `${method}:${va}:${hashRequestBody(body)}:${key}`);

describe('authentication exactly as the gateway does (docs/gateway.md, "Request signing")', () => {
  it('rejects a missing va, a missing signature, unknown/inactive/keyless accounts and wrong signatures', async () => {
    const cases: [Record<string, string>, string][] = [
      [{ signature: sign('GET') }, 'invalid header param - va is required'],
      [{ va: VA }, 'invalid header param - signature is required'],
      [{ va: '9990009990', signature: sign('GET') }, 'unauthorized credential'],
      [{ va: '3330003330', signature: sign('GET', '', '3330003330', 'INACTIVE-KEY-0000000') }, 'unauthorized credential'],
      [{ va: '4440004440', signature: sign('GET') }, 'unauthorized credential'],
      [{ va: VA, signature: 'f'.repeat(64) }, 'unauthorized signature'],
      [{ va: VA, signature: KEY }, 'unauthorized signature'],
      [{ va: VA, signature: sign('POST') }, 'unauthorized signature'],
    ];
    for (const [headers, message] of cases) {
      const r = await raw('GET', 'areas/province', headers);
      expect(r.status).toBe(401);
      expect(r.json).toEqual({ Status: 401, Success: false, Message: message, Data: null });
    }
  });

  it('accepts any HTTP method on region routes when the signature uses the method sent', async () => {
    for (const method of ['GET', 'POST', 'PUT', 'DELETE', 'PATCH']) {
      const r = await raw(method, 'areas/city/51', { va: VA, signature: sign(method), 'content-type': 'application/json' });
      expect(r.status, method).toBe(200);
      expect(r.json.Data.length).toBe(9);
    }
  });
});

describe('regions', () => {
  it('serves the hierarchy with codes without dots and upper-case names', async () => {
    const p = await api('GET', 'areas/province');
    expect(p.json).toMatchObject({ Status: 200, Success: true });
    const names = p.json.Data.map((r: { name: string }) => r.name);
    expect(names).toEqual([...names].sort());
    expect((await api('GET', 'areas/district/5171')).json.Data[0]).toEqual({ code: '517101', name: 'DENPASAR SELATAN' });
    const villages = (await api('GET', 'areas/village/517101')).json.Data;
    expect(villages[0]).toEqual({ code: '5171011001', name: 'SERANGAN', postal_code: null });
    for (const path of ['areas/city/99', 'areas/district/51', 'areas/village/5171011001', 'areas/village/abc']) {
      const r = await api('GET', path);
      expect(r.status).toBe(200);
      expect(r.json.Data).toEqual([]);
    }
  });
});

const validBody = (over: Record<string, unknown> = {}) =>
  JSON.stringify({
    name: 'Putu',
    phone: '08123456789',
    email: 'putu@mail.com',
    amount: 100000,
    notifyUrl: 'http://127.0.0.1:9/cb',
    referenceId: 'REF-1',
    paymentMethod: 'va',
    paymentChannel: 'bca',
    product: ['Kopi'],
    qty: [2],
    price: [50000],
    ...over,
  });

describe('direct payment', () => {
  it('validates like the gateway (400 with per-field errors)', async () => {
    const r = await api('POST', 'v2/payment/direct', JSON.stringify({ amount: 1000, paymentMethod: 'va' }));
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ Status: 400, Success: false, Message: 'error - invalid request', Data: null });
    expect(r.json.Error.name).toEqual(['name wajib diisi.']);
    expect(r.json.Error.paymentChannel).toEqual(['paymentChannel wajib diisi.']);
    const bad = await api('POST', 'v2/payment/direct', validBody({ paymentChannel: 'dana', qty: [1, 2], expiredType: 'weeks' }));
    expect(Object.keys(bad.json.Error).sort()).toEqual(['expiredType', 'paymentChannel', 'qty']);
    const malformed = await api('POST', 'v2/payment/direct', '{"name":');
    expect(malformed.status).toBe(400);
    expect(malformed.json.Error.body[0]).toMatch(/JSON/);
  });

  it('creates payments with increasing ids, unique VA numbers and the spec fields', async () => {
    const a = await api('POST', 'v2/payment/direct', validBody());
    const b = await api('POST', 'v2/payment/direct', validBody({ amount: '2000', qty: ['1'], price: ['2000'] }));
    expect(a.status).toBe(200);
    expect(Object.keys(a.json.Data).sort()).toEqual(
      ['Channel', 'Expired', 'Fee', 'Note', 'PaymentName', 'PaymentNo', 'ReferenceId', 'SessionId', 'Total', 'TransactionId', 'Url', 'Via'].sort(),
    );
    expect(b.json.Data.TransactionId).toBeGreaterThan(a.json.Data.TransactionId);
    expect(b.json.Data.PaymentNo).not.toBe(a.json.Data.PaymentNo);
    expect(a.json.Data).toMatchObject({ ReferenceId: 'REF-1', Via: 'va', Channel: 'bca', PaymentName: 'BCA', Total: 100000, Fee: 4000, Note: null });
  });

  it('keeps ids and numbers unique under 200 concurrent creations', async () => {
    const results = await Promise.all(Array.from({ length: 200 }, (_, i) => api('POST', 'v2/payment/direct', validBody({ referenceId: `C-${i}` }))));
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(new Set(results.map((r) => r.json.Data.TransactionId)).size).toBe(200);
    expect(new Set(results.map((r) => r.json.Data.PaymentNo)).size).toBe(200);
  });

  it('answers check transaction for the owner only', async () => {
    const a = await api('POST', 'v2/payment/direct', validBody());
    const id = a.json.Data.TransactionId;
    const c = await api('POST', 'v2/transaction', JSON.stringify({ transactionId: id }));
    expect(c.json.Data).toMatchObject({ TransactionId: id, Status: 0, StatusDesc: 'Pending', Amount: 100000, Fee: 4000 });
    const other = await api('POST', 'v2/transaction', JSON.stringify({ transactionId: id }), { va: '2220002220', apiKey: 'JSON-MERCHANT-KEY-000' });
    expect(other.status).toBe(404);
  });
});

describe('buyer simulation and callbacks', () => {
  it('pays, signs the callback with the merchant VA, and retries until 200', async () => {
    const rx = await receiver([500, 503, 200]);
    const a = await api('POST', 'v2/payment/direct', validBody({ notifyUrl: rx.url }));
    const id = String(a.json.Data.TransactionId);
    const result = await sb.pay(id);
    expect(result.ok).toBe(true);
    await rx.waitFor(3);
    expect(await sb.idle(5000)).toBe(true);
    const [first, , last] = rx.received;
    expect(first!.body.equals(last!.body)).toBe(true);
    expect(first!.headers['x-external-id']).not.toBe(last!.headers['x-external-id']);
    expect(last!.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(last!.headers['accept']).toBe('application/json');
    expect(last!.headers['x-timestamp']).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+07:00$/);
    expect(last!.headers['x-external-id']).toMatch(/^\d{20}$/);
    const fields = parseFormBody(last!.body.toString());
    expect(checkCallback(fields, String(last!.headers['x-signature']), VA).verdict).toBe('valid');
    expect(fields).toMatchObject({
      trx_id: id,
      status: 'berhasil',
      status_code: '1',
      amount: '100000',
      fee: '4000',
      paid_off: '96000',
      via: 'va',
      channel: 'bca',
      system_notes: 'Sandbox notify',
      settlement_status: 'settled',
    });
    expect(fields.va).toBe(fields.payment_no);
    const d = allDeliveries(sb.state).find((x) => x.trxId === Number(id))!;
    expect(d).toMatchObject({ state: 'delivered', attempts: 3 });
    await rx.close();
  });

  it('sends JSON callbacks for JSON merchants; QRIS has an empty payment_no and no va', async () => {
    const rx = await receiver([200]);
    const a = await api('POST', 'v2/payment/direct', validBody({ notifyUrl: rx.url, paymentMethod: 'qris', paymentChannel: 'mpm' }), {
      va: '2220002220',
      apiKey: 'JSON-MERCHANT-KEY-000',
    });
    await sb.pay(String(a.json.Data.TransactionId));
    await rx.waitFor(1);
    const got = rx.received[0]!;
    expect(got.headers['content-type']).toBe('application/json');
    const fields = parseJsonBody(got.body.toString());
    expect(fields.payment_no).toBe('');
    expect('va' in fields).toBe(false);
    expect(checkCallback(fields, String(got.headers['x-signature']), '2220002220').verdict).toBe('valid');
    await rx.close();
  });

  it('expires on the clock and via the admin API; transitions are idempotent and guarded', async () => {
    let now = Date.now();
    const clocked = await sandbox({ now: () => new Date(now) });
    const rx = await receiver([200]);
    const create = async () => {
      const req = signedPost(clocked.apiUrl, 'v2/payment/direct', validBody({ notifyUrl: rx.url, expired: 1, expiredType: 'minutes' }));
      const res = await request(req.url, { method: 'POST', headers: req.headers, body: req.body });
      return String(((await res.body.json()) as any).Data.TransactionId);
    };
    const id = await create();
    now += 61_000;
    expect(await clocked.expireDue()).toBe(1);
    expect(clocked.state.find(id)!.status).toBe('expired');
    const pay = await clocked.pay(id);
    expect(pay).toMatchObject({ ok: false, status: 409 });
    expect((pay as { message: string }).message).toMatch(/expired and cannot be paid/);
    const id2 = await create();
    expect(await clocked.pay(id2)).toMatchObject({ ok: true, changed: true });
    expect(await clocked.pay(id2)).toMatchObject({ ok: true, changed: false });
    expect(await clocked.expire(id2)).toMatchObject({ ok: false, status: 409 });
    await rx.waitFor(2);
    expect(rx.received.map((r) => parseFormBody(r.body.toString()).status).sort()).toEqual(['berhasil', 'expired']);
    await rx.close();
    await clocked.close();
  });

  it('serves the payment page and the admin API', async () => {
    const a = await api('POST', 'v2/payment/direct', validBody({ paymentMethod: 'qris', paymentChannel: 'mpm', amount: 102000, price: [51000] }));
    const page = await request(a.json.Data.Url);
    const html = await page.body.text();
    expect(page.statusCode).toBe(200);
    expect(html).toContain('Rp 102.000');
    expect(html).toContain('<svg');
    expect(html).not.toMatch(/src="http|href="http/);
    const list = (await (await request(`${sb.url}/_sandbox/transactions`)).body.json()) as { transactions: unknown[] };
    expect(list.transactions.length).toBeGreaterThan(0);
    const missing = await request(`${sb.url}/_sandbox/transactions/424242/pay`, { method: 'POST' });
    expect(missing.statusCode).toBe(404);
    await missing.body.text();
  });

  it('answers 413 for huge bodies and 404 for unknown routes, and keeps running', async () => {
    const big = 'x'.repeat(2 * 1024 * 1024);
    const r = await request(`${sb.apiUrl}/v2/payment/direct`, { method: 'POST', headers: { va: VA, signature: sign('POST', big) }, body: big }).catch(
      (e: Error) => e,
    );
    if (!(r instanceof Error)) {
      expect(r.statusCode).toBe(413);
      await r.body.text();
    }
    const nf = await request(`${sb.apiUrl}/v3/nothing`);
    expect(nf.statusCode).toBe(404);
    await nf.body.text();
    expect((await api('GET', 'areas/province')).status).toBe(200);
  });
});
