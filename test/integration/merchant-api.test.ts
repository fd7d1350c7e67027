import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSignedRequest } from '../../src/core/api/signed-request.js';
import type { EmulatorHandle, SandboxOptions } from '../../src/core/sandbox/server.js';
import { EMULATOR_DEFAULT_API_KEY as KEY, EMULATOR_DEFAULT_VA as VA, sandbox, allTxns } from '../helpers/sandbox.js';

type Json = Record<string, any>;

async function api(sb: EmulatorHandle, method: string, path: string, body?: string, creds = { va: VA, apiKey: KEY }): Promise<{ status: number; json: Json }> {
  const req = buildSignedRequest({ baseUrl: sb.apiUrl, path, method, body, credentials: creds, now: new Date() });
  const res = await request(req.url, { method: method as 'GET', headers: req.headers, body });
  return { status: res.statusCode, json: (await res.body.json()) as Json };
}

const direct = (over: Json = {}) =>
  JSON.stringify({
    name: 'Putu',
    phone: '08123456789',
    email: 'putu@mail.com',
    amount: 100000,
    notifyUrl: 'http://127.0.0.1:9/cb',
    paymentMethod: 'va',
    paymentChannel: 'bca',
    product: ['Kopi'],
    qty: [1],
    price: [100000],
    ...over,
  });

describe('merchant API of the emulator: one ledger', () => {
  let sb: EmulatorHandle;
  let clock = Date.parse('2026-03-10T03:00:00Z');
  const ids: number[] = [];
  beforeAll(async () => {
    sb = await sandbox({ now: () => new Date(clock), settlement: 'deferred' });
    for (const [i, method, channel, amount] of [
      [0, 'va', 'bca', 100000],
      [1, 'cstore', 'alfamart', 50000],
      [2, 'qris', 'mpm', 102000],
      [3, 'va', 'bni', 20000],
    ] as const) {
      const r = await api(
        sb,
        'POST',
        'v2/payment/direct',
        direct({ paymentMethod: method, paymentChannel: channel, amount, price: [amount], referenceId: `ORD-${i}` }),
      );
      expect(r.status, JSON.stringify(r.json)).toBe(200);
      ids.push(r.json.Data.TransactionId);
      clock += 60_000;
    }
    await sb.pay(String(ids[0]));
    await sb.pay(String(ids[2]));
    await sb.expire(String(ids[1]));
  });
  afterAll(() => sb.close());

  it('check transaction answers the documented fields, for a numeric or string id', async () => {
    for (const body of [{ transactionId: ids[0] }, { transactionId: String(ids[0]) }, { transactionId: String(ids[0]), account: VA }]) {
      const r = await api(sb, 'POST', 'v2/transaction', JSON.stringify(body));
      expect(r.status).toBe(200);
      const d = r.json.Data;
      for (const k of [
        'TransactionId',
        'SessionId',
        'ReferenceId',
        'RelatedId',
        'Sender',
        'Receiver',
        'Amount',
        'Fee',
        'Status',
        'StatusDesc',
        'PaidStatus',
        'IsLocked',
        'Type',
        'TypeDesc',
        'Notes',
        'CreatedDate',
        'SuccessDate',
        'ExpiredDate',
        'SettlementDate',
        'PaymentChannel',
        'PaymentCode',
        'BuyerName',
        'BuyerPhone',
        'BuyerEmail',
      ]) {
        expect(d, k).toHaveProperty(k);
      }
      expect(d).toMatchObject({
        TransactionId: ids[0],
        ReferenceId: 'ORD-0',
        Amount: 100000,
        Fee: 4000,
        Status: 6,
        PaidStatus: 'paid',
        Type: 7,
        PaymentChannel: 'bca',
        SettlementDate: null,
        IsLocked: false,
      });
      expect(d.SuccessDate).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    }
  });

  it('types per method, unpaid and expired status', async () => {
    const cs = (await api(sb, 'POST', 'v2/transaction', JSON.stringify({ transactionId: ids[1] }))).json.Data;
    expect(cs).toMatchObject({ Status: -2, StatusDesc: 'Expired', PaidStatus: 'unpaid', Type: 11, TypeDesc: 'Convenience Store', SuccessDate: null });
    const q = (await api(sb, 'POST', 'v2/transaction', JSON.stringify({ transactionId: ids[2] }))).json.Data;
    expect(q).toMatchObject({ Type: 27, PaidStatus: 'paid' });
    const p = (await api(sb, 'POST', 'v2/transaction', JSON.stringify({ transactionId: ids[3] }))).json.Data;
    expect(p).toMatchObject({ Status: 0, StatusDesc: 'Pending', PaidStatus: 'unpaid' });
  });

  it("check transaction refuses a missing or non-numeric id, and others' transactions", async () => {
    const missing = await api(sb, 'POST', 'v2/transaction', '{}');
    expect(missing.status).toBe(400);
    expect(missing.json.Error).toEqual({ transactionId: ['transaction id wajib diisi.'] });
    const bad = await api(sb, 'POST', 'v2/transaction', JSON.stringify({ transactionId: 'abc' }));
    expect(bad.status).toBe(400);
    const unknown = await api(sb, 'POST', 'v2/transaction', JSON.stringify({ transactionId: 999999 }));
    expect(unknown.status).toBe(404);
  });

  it("history lists every transaction with real-response pagination, filters and the Go SDK's nulls", async () => {
    const all = await api(sb, 'POST', 'v2/history', '{}');
    expect(all.status).toBe(200);
    expect(all.json.Data.Pagination).toEqual({ total: 4, count: 4, per_page: 10, current_page: 1, total_pages: 1, next_cursor: null });
    expect(all.json.Data.Transaction.map((t: Json) => t.TransactionId)).toEqual([...ids].reverse());
    // The Go SDK sends every field, null when unset; the docs send numbers as strings.
    const go = JSON.stringify({
      id: null,
      status: 6,
      date: null,
      startdate: null,
      enddate: null,
      page: null,
      orderBy: 'id',
      order: 'ASC',
      limit: null,
      lang: null,
      bulkId: null,
      account: null,
      lockStatus: null,
    });
    const paid = await api(sb, 'POST', 'v2/history', go);
    expect(paid.json.Data.Transaction.map((t: Json) => t.TransactionId)).toEqual([ids[0], ids[2]]);
    const paged = await api(sb, 'POST', 'v2/history', JSON.stringify({ limit: '3', page: '2', order: 'ASC' }));
    expect(paged.json.Data.Pagination).toEqual({ total: 4, count: 1, per_page: 3, current_page: 2, total_pages: 2, next_cursor: null });
    expect(paged.json.Data.Transaction[0].TransactionId).toBe(ids[3]);
    const bulk = await api(sb, 'POST', 'v2/history', JSON.stringify({ bulkId: `${ids[1]},${ids[3]}` }));
    expect(bulk.json.Data.Pagination.total).toBe(2);
    const capped = await api(sb, 'POST', 'v2/history', JSON.stringify({ limit: 500 }));
    expect(capped.json.Data.Pagination.per_page).toBe(20);
    const day = new Date(clock + 7 * 3_600_000).toISOString().slice(0, 10);
    const dated = await api(sb, 'POST', 'v2/history', JSON.stringify({ startdate: day, enddate: day }));
    expect(dated.json.Data.Pagination.total).toBe(4);
    const none = await api(sb, 'POST', 'v2/history', JSON.stringify({ startdate: '2020-01-01', enddate: '2020-01-02' }));
    expect(none.json.Data.Pagination.total).toBe(0);
    const invalid = await api(sb, 'POST', 'v2/history', JSON.stringify({ startdate: '10/03/2026', order: 'UP' }));
    expect(invalid.status).toBe(400);
    expect(Object.keys(invalid.json.Error).sort()).toEqual(['order', 'startdate']);
  });

  it('balance: paid amounts unsettled until T+1 with deferred settlement, then settled', async () => {
    const body = JSON.stringify({ account: VA });
    const before = await api(sb, 'POST', 'v2/balance', body);
    expect(before.status).toBe(200);
    const net = 100000 - 4000 + (102000 - 714);
    expect(before.json.Data).toMatchObject({ Va: VA, MerchantBalance: 0, MemberBalance: 0, UnsettledBalance: net });
    clock += 86_400_000 + 1000;
    const after = await api(sb, 'POST', 'v2/balance', body);
    expect(after.json.Data).toMatchObject({ MerchantBalance: net, UnsettledBalance: 0 });
    const t = (await api(sb, 'POST', 'v2/transaction', JSON.stringify({ transactionId: ids[0] }))).json.Data;
    expect(t).toMatchObject({ Status: 1, StatusDesc: 'Berhasil' });
    expect(t.SettlementDate).toMatch(/^\d{4}-/);
    expect((await api(sb, 'POST', 'v2/balance', '{}')).json.Error).toEqual({ account: ['account wajib diisi.'] });
    expect((await api(sb, 'POST', 'v2/balance', JSON.stringify({ account: '123' }))).json.Error).toEqual({ account: ['Invalid va'] });
  });

  it("channel lists: the docs' GET payment-channels and the Go SDK's POST payment-method-list", async () => {
    const g = await api(sb, 'GET', 'v2/payment-channels');
    expect(g.status).toBe(200);
    const va = g.json.Data.find((m: Json) => m.Code === 'va');
    expect(va.Channels.find((c: Json) => c.Code === 'bca')).toMatchObject({
      Name: 'BCA',
      FeatureStatus: 'active',
      HealthStatus: 'online',
      TransactionFee: { ActualFee: 4000, ActualFeeType: 'FLAT', AdditionalFee: 0 },
    });
    expect(g.json.Data.map((m: Json) => m.Code)).toEqual(['va', 'cstore', 'cod', 'qris', 'cc', 'paylater', 'ewallet']);
    const p = await api(sb, 'POST', 'v2/payment-method-list', JSON.stringify({ request: true }));
    expect(p.status).toBe(200);
    expect(p.json.Data[3]).toMatchObject({ Code: 'qris', Channels: [{ Code: 'mpm', TransactionFee: { ActualFee: 0.7, ActualFeeType: 'PERCENT' } }] });
    expect(p.json.Data[0].Channels[0]).toHaveProperty('PaymentIntrucionsDoc');
  });

  it('unknown routes: authentication first under /api/v2, then 404 naming the route', async () => {
    const r = await api(sb, 'POST', 'v2/escrow/release', '{}');
    expect(r.status).toBe(404);
    expect(r.json).toEqual({ Status: 404, Success: false, Message: 'not emulated by paycli sandbox: POST /api/v2/escrow/release', Data: null });
    const unauth = await request(`${sb.apiUrl}/v2/escrow/release`, { method: 'POST', body: '{}' });
    expect(unauth.statusCode).toBe(401);
    await unauth.body.dump();
    const area = await api(sb, 'GET', 'areas/regency/51');
    expect(area.status).toBe(404);
    expect(area.json.Message).toBe('not emulated by paycli sandbox: GET /api/areas/regency/51');
    const areaUnsigned = await request(`${sb.apiUrl}/areas/regency/51`);
    expect(areaUnsigned.statusCode).toBe(401);
    await areaUnsigned.body.dump();
    const other = await request(`${sb.url}/nothing/here`);
    expect(other.statusCode).toBe(404);
    expect(((await other.body.json()) as Json).Message).toBe('not emulated by paycli sandbox: GET /nothing/here');
  });
});

describe('redirect payments in the emulator', () => {
  let sb: EmulatorHandle;
  let dir: string;
  const open = (o: SandboxOptions = {}) => sandbox({ dataDir: dir, ...o });
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'paycli-redirect-'));
    sb = await open();
  });
  afterAll(async () => {
    await sb.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each([
    ['a fractional price (once made a payment of Rp 0)', { price: [0.4] }, 'price.0', /bilangan bulat/],
    ['a price of 1e21 (once accepted)', { price: [1e21] }, 'price.0', /maksimal/],
    ['an expiry of 1e12 hours (once an ExpiredDate of NaN)', { expired: 1e12 }, 'expired', /maksimal/],
    ['a fractional quantity', { qty: [1.5] }, 'qty.0', /bilangan bulat/],
    ['a total over the limit', { qty: [1000], price: [999_999_999_999] }, 'amount', /maksimal/],
    ['an unknown expiry unit', { expired: 2, expiredType: 'weeks' }, 'expiredType', /seconds/],
  ])('refuses %s with a 400 in the gateway shape, as a direct payment does', async (_name, over, field, message) => {
    const r = await api(sb, 'POST', 'v2/payment', JSON.stringify({ product: ['A'], qty: [1], price: [1000], notifyUrl: 'http://127.0.0.1:9/cb', ...over }));
    expect(r.status, JSON.stringify(r.json)).toBe(400);
    expect(r.json.Error[field]?.[0]).toMatch(message);
    expect(JSON.stringify(r.json)).not.toMatch(/NaN/);
  });

  it("accepts the PHP/Node SDK body (strings, nulls, both buyer spellings) and the Go SDK's trailing slash", async () => {
    const php = {
      account: VA,
      product: ['Kaos', 'Topi'],
      qty: ['2', '1'],
      price: ['50000', '25000'],
      description: null,
      notifyUrl: 'http://127.0.0.1:9/cb',
      returnUrl: 'http://127.0.0.1:9/thanks',
      cancelUrl: 'http://127.0.0.1:9/cancel',
      weight: null,
      dimension: null,
      name: 'Putu',
      email: 'putu@mail.com',
      phone: '08123456789',
      pickupArea: null,
      pickupAddress: null,
      buyerName: 'Putu',
      buyerEmail: 'putu@mail.com',
      buyerPhone: '08123456789',
      referenceId: 'R-1',
      expired: 24,
      expiredType: 'hours',
    };
    const r = await api(sb, 'POST', 'v2/payment', JSON.stringify(php));
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(r.json.Data.SessionID).toMatch(/^[0-9A-F-]{36}$/);
    expect(r.json.Data.Url).toBe(`${sb.url}/payment/${r.json.Data.SessionID}`);
    expect(sb.merchant.session(r.json.Data.SessionID)?.amount).toBe(125000);
    const go = await api(
      sb,
      'POST',
      'v2/payment/',
      JSON.stringify({
        description: null,
        returnUrl: null,
        notifyUrl: 'http://127.0.0.1:9/cb',
        cancelUrl: null,
        referenceId: null,
        product: ['A'],
        qty: [1],
        price: [1000],
        weight: null,
        dimension: null,
        buyerName: null,
        buyerEmail: null,
        buyerPhone: null,
        pickupArea: null,
        pickupAddress: null,
        paymentMethod: 'qris',
      }),
    );
    expect(go.status, JSON.stringify(go.json)).toBe(200);
    const bad = await api(sb, 'POST', 'v2/payment', JSON.stringify({ product: ['A'], qty: ['x'], price: [] }));
    expect(bad.status).toBe(400);
    expect(bad.json.Message).toBe('invalid request');
    expect(Object.keys(bad.json.Error)).toEqual(expect.arrayContaining(['price', 'notifyUrl']));
  });

  it('the page refuses a channel of another method, and a session past its expiry', async () => {
    let clock = Date.parse('2026-05-01T00:00:00Z');
    const timed = await sandbox({ now: () => new Date(clock) });
    try {
      const r = await api(
        timed,
        'POST',
        'v2/payment',
        JSON.stringify({
          product: ['A'],
          qty: [1],
          price: [1000],
          notifyUrl: 'http://127.0.0.1:9/cb',
          paymentMethod: 'qris',
          expired: 30,
          expiredType: 'seconds',
        }),
      );
      expect(r.status, JSON.stringify(r.json)).toBe(200);
      const page = `${timed.url}/payment/${r.json.Data.SessionID}`;
      const post = (action: string, body = '') =>
        request(`${page}/${action}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
      const wrong = await post('choose', 'channel=va%3Abca');
      expect(wrong.statusCode).toBe(400);
      // Shown on the page itself (HTML), above the form.
      expect(await wrong.body.text()).toContain('>channel &quot;bca&quot; is not offered for method &quot;va&quot;</p>');
      const early = await post('pay');
      expect(early.statusCode).toBe(409);
      await early.body.dump();
      clock += 31_000;
      const late = await post('choose', 'channel=qris%3Ampm');
      expect(late.statusCode).toBe(409);
      expect(await late.body.text()).toContain('expired');
      const shown = await (await request(page)).body.text();
      expect(shown).toContain('id="status" data-en="Expired">Kedaluwarsa'); // Indonesian, with its English
      expect(shown).not.toContain('id="choose"');
      const cancel = await post('cancel');
      expect(cancel.statusCode).toBe(303);
      expect(cancel.headers.location).toBe(`/payment/${r.json.Data.SessionID}`);
      await cancel.body.dump();
      expect((await request(`${timed.url}/payment/00000000-0000-0000-0000-000000000000`)).statusCode).toBe(404);
    } finally {
      await timed.close();
    }
  });

  it('a redirect session that cannot be stored is answered 503 and not kept', async () => {
    // The ledger refuses the write as a full disk would (the statement fails inside its transaction).
    sb.state.db.exec(`CREATE TEMP TRIGGER refuse BEFORE INSERT ON sessions BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END`);
    try {
      const before = sb.state.sessions().length;
      const r = await api(sb, 'POST', 'v2/payment', JSON.stringify({ product: ['A'], qty: [1], price: [1000], notifyUrl: 'http://127.0.0.1:9/cb' }));
      expect(r.status).toBe(503);
      expect(r.json.Data).toBeNull();
      expect(sb.state.sessions().length).toBe(before);
    } finally {
      sb.state.db.exec('DROP TRIGGER temp.refuse');
    }
  });

  it('a session survives a restart; choosing makes a transaction in the same ledger', async () => {
    const r = await api(
      sb,
      'POST',
      'v2/payment',
      JSON.stringify({ product: ['A'], qty: [1], price: [30000], notifyUrl: 'http://127.0.0.1:9/cb', referenceId: 'R-2' }),
    );
    const sid = r.json.Data.SessionID as string;
    await sb.close();
    sb = await open();
    const page = await request(`${sb.url}/payment/${sid}`);
    expect(page.statusCode).toBe(200);
    const html = await page.body.text();
    expect(html).toContain('id="choose"');
    expect(html).toContain('id="buyer-email"'); // no buyer was sent: the page asks
    const withBuyer = await api(
      sb,
      'POST',
      'v2/payment',
      JSON.stringify({
        product: ['A'],
        qty: [1],
        price: [1000],
        notifyUrl: 'http://127.0.0.1:9/cb',
        buyerName: 'Putu',
        buyerPhone: '08123456789',
        buyerEmail: 'p@x.co',
      }),
    );
    const asks = await (await request(withBuyer.json.Data.Url)).body.text();
    expect(asks).toContain('id="choose"');
    expect(asks).not.toContain('id="buyer-');
    const chosen = await request(`${sb.url}/payment/${sid}/choose`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'channel=va%3Abri',
    });
    expect(chosen.statusCode).toBe(303);
    await chosen.body.dump();
    const t = allTxns(sb.state).find((x) => x.sid === sid)!;
    expect(t).toMatchObject({ via: 'va', channel: 'bri', amount: 30000, referenceId: 'R-2', status: 'pending' });
    const check = await api(sb, 'POST', 'v2/transaction', JSON.stringify({ transactionId: t.id }));
    expect(check.json.Data.SessionId).toBe(sid);
  });
});
