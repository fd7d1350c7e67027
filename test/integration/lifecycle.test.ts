import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { buildSignedRequest } from '../../src/core/api/signed-request.js';
import { parseFormBody } from '../../src/core/callback/parse.js';
import { checkCallback } from '../../src/core/callback/check.js';
import type { EmulatorHandle, SandboxOptions } from '../../src/core/sandbox/server.js';
import { STATUSES } from '../../src/core/statuses.js';
import { EMULATOR_DEFAULT_API_KEY as KEY, EMULATOR_DEFAULT_VA as VA, sandbox } from '../helpers/sandbox.js';
import { receiver } from '../helpers/receiver.js';

const buyer = { name: 'Putu', phone: '08123456789', email: 'putu@mail.com' };

async function api(sb: EmulatorHandle, path: string, body: Record<string, unknown>) {
  const text = JSON.stringify(body);
  const req = buildSignedRequest({ baseUrl: sb.apiUrl, path, method: 'POST', body: text, credentials: { va: VA, apiKey: KEY }, now: new Date() });
  const res = await request(req.url, { method: 'POST', headers: req.headers, body: text });
  return { status: res.statusCode, json: (await res.body.json()) as Record<string, any> };
}

async function admin(sb: EmulatorHandle, method: 'GET' | 'POST', path: string, body?: Record<string, unknown>) {
  const res = await request(`${sb.url}${path}`, {
    method,
    headers: body ? { 'content-type': 'application/json' } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.statusCode, json: (await res.body.json()) as Record<string, any> };
}

async function create(sb: EmulatorHandle, notifyUrl: string, extra: Record<string, unknown> = {}): Promise<number> {
  const r = await api(sb, 'v2/payment/direct', { ...buyer, amount: 100000, notifyUrl, paymentMethod: 'va', paymentChannel: 'bni', ...extra });
  expect(r.status, JSON.stringify(r.json)).toBe(200);
  return r.json.Data.TransactionId as number;
}

/** The fields of the n-th callback received, checked against the VA as a merchant would. */
function callback(rx: Awaited<ReturnType<typeof receiver>>, n: number): Record<string, unknown> {
  const fields = parseFormBody(rx.received[n]!.body.toString('utf8'));
  expect(checkCallback(fields, String(rx.received[n]!.headers['x-signature']), VA).verdict).toBe('valid');
  return fields as Record<string, unknown>;
}

const pick = (f: Record<string, unknown>) => ({
  status: f.status,
  status_code: f.status_code,
  transaction_status_code: f.transaction_status_code,
  settlement_status: f.settlement_status,
  is_escrow: f.is_escrow,
});

describe('every documented status, with its callback (statuses.ts)', () => {
  let sb: EmulatorHandle;
  beforeAll(async () => {
    sb = await sandbox();
  });
  afterAll(() => sb.close());

  it('cancel, fail, error and refund each store a transition and send a consistent callback', async () => {
    const rx = await receiver([200]);
    const cases: [string[], Record<string, string>, number][] = [
      [['cancel'], { status: 'batal', status_code: '2', transaction_status_code: '2', settlement_status: 'unsettle', is_escrow: 'false' }, 2],
      [['fail'], { status: 'gagal', status_code: '5', transaction_status_code: '5', settlement_status: 'unsettle', is_escrow: 'false' }, 5],
      [['error'], { status: 'error', status_code: '4', transaction_status_code: '4', settlement_status: 'unsettle', is_escrow: 'false' }, 4],
      [['pay', 'refund'], { status: 'refund', status_code: '3', transaction_status_code: '3', settlement_status: 'unsettle', is_escrow: 'false' }, 3],
    ];
    let n = 0;
    for (const [actions, fields, code] of cases) {
      const id = await create(sb, rx.url);
      for (const a of actions) expect((await admin(sb, 'POST', `/_sandbox/transactions/${id}/${a}`)).status).toBe(200);
      n += actions.length;
      await rx.waitFor(n);
      // The last callback of this payment says the final status; the check-transaction record agrees.
      const last = rx.received
        .map((_, i) => callback(rx, i))
        .filter((f) => f.trx_id === String(id))
        .at(-1)!;
      expect(pick(last)).toEqual(fields);
      const t = await api(sb, 'v2/transaction', { transactionId: id });
      expect(t.json.Data.Status).toBe(code);
      expect(t.json.Data.StatusDesc).toBe(STATUSES.find((s) => s.code === code)!.desc);
    }
    await rx.close();
  });

  it('forbidden transitions are 409 with the reason, and change nothing', async () => {
    const id = await create(sb, 'http://127.0.0.1:9/none');
    const refund = await admin(sb, 'POST', `/_sandbox/transactions/${id}/refund`);
    expect(refund.status).toBe(409);
    expect(refund.json.error).toMatch(/is pending and cannot be refunded .*only a berhasil \(paid\) or berhasil \(paid, settles later\) or escrow/);
    expect((await admin(sb, 'POST', `/_sandbox/transactions/${id}/settle`)).status).toBe(409);
    expect((await admin(sb, 'POST', `/_sandbox/transactions/${id}/release`)).status).toBe(409);
    expect((await admin(sb, 'POST', `/_sandbox/transactions/${id}/pay`)).status).toBe(200);
    const cancel = await admin(sb, 'POST', `/_sandbox/transactions/${id}/cancel`);
    expect(cancel.status).toBe(409);
    expect(cancel.json.error).toContain('cannot be cancelled');
    expect(sb.state.find(String(id))!.status).toBe('berhasil');
    expect(sb.state.deliveriesOf(id)).toHaveLength(1);
    expect((await admin(sb, 'POST', `/_sandbox/transactions/${id}/explode`)).status).toBe(404);
  });

  it('escrow: true is held as escrow (7) when paid, not in the balance until released; a refund takes money back', async () => {
    const rx = await receiver([200]);
    const before = (await api(sb, 'v2/balance', { account: VA })).json.Data;
    const id = await create(sb, rx.url, { escrow: true });
    await sb.pay(String(id));
    await rx.waitFor(1);
    expect(pick(callback(rx, 0))).toEqual({
      status: 'escrow',
      status_code: '7',
      transaction_status_code: '7',
      settlement_status: 'unsettle',
      is_escrow: 'true',
    });
    const held = (await api(sb, 'v2/balance', { account: VA })).json.Data;
    const net = 100000 - 4000;
    expect(held.MerchantBalance).toBe(before.MerchantBalance);
    expect(held.EscrowBalance).toBe(before.EscrowBalance + net);
    expect((await api(sb, 'v2/transaction', { transactionId: id })).json.Data).toMatchObject({ Status: 7, PaidStatus: 'paid', IsEscrow: true });
    expect((await sb.act(String(id), 'release')).ok).toBe(true);
    await rx.waitFor(2);
    expect(pick(callback(rx, 1))).toEqual({
      status: 'berhasil',
      status_code: '1',
      transaction_status_code: '1',
      settlement_status: 'settled',
      is_escrow: 'false',
    });
    const released = (await api(sb, 'v2/balance', { account: VA })).json.Data;
    expect(released.MerchantBalance).toBe(before.MerchantBalance + net);
    expect(released.EscrowBalance).toBe(before.EscrowBalance);
    expect((await sb.act(String(id), 'refund')).ok).toBe(true);
    expect((await api(sb, 'v2/balance', { account: VA })).json.Data.MerchantBalance).toBe(before.MerchantBalance);
    await rx.close();
  });

  it('the dashboard offers exactly the allowed transitions as buttons, and filters by every status', async () => {
    const id = await create(sb, 'http://127.0.0.1:9/none');
    const page = async () => (await request(`${sb.url}/dashboard/trx/${id}`)).body.text();
    const buttons = (html: string) => [...html.matchAll(/id="action-([a-z]+)"/g)].map((m) => m[1]).sort();
    expect(buttons(await page())).toEqual(['cancel', 'error', 'expire', 'fail', 'pay']);
    await sb.pay(String(id));
    expect(buttons(await page())).toEqual(['refund', 'resend']);
    const list = await (await request(`${sb.url}/?status=berhasil`)).body.text();
    expect(list).toContain(`id="trx-${id}"`);
    for (const s of STATUSES) expect(list).toContain(`<option value="${s.key}"`);
  });

  it('the callback signature and the admin view stay consistent for every status of the table', () => {
    for (const s of STATUSES) {
      expect(s.settlementStatus === 'settled').toBe(s.key === 'berhasil');
      expect(s.isEscrow).toBe(s.key === 'escrow');
      if (s.paid) expect(s.balance).not.toBe('none');
    }
  });
});

describe('a clock you control', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'paycli-clock-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('advances and sets forward only (409 backwards); the offset survives a restart', async () => {
    const opts: SandboxOptions = { dataDir: join(dir, 'a'), expirySweepMs: 3_600_000 };
    let sb = await sandbox(opts);
    const start = sb.clock.nowMs();
    const adv = await admin(sb, 'POST', '/_sandbox/clock/advance', { by: '25h' });
    expect(adv.status).toBe(200);
    expect(adv.json.clock.epochMs - start).toBeGreaterThanOrEqual(25 * 3_600_000);
    const back = await admin(sb, 'POST', '/_sandbox/clock/set', { to: '2020-01-01T00:00+07:00' });
    expect(back.status).toBe(409);
    expect(back.json.error).toContain('never goes backwards');
    const target = new Date(start + 40 * 86_400_000);
    expect((await admin(sb, 'POST', '/_sandbox/clock/set', { to: target.toISOString() })).status).toBe(200);
    expect((await admin(sb, 'POST', '/_sandbox/clock/advance', { by: 'soon' })).status).toBe(400);
    const offset = sb.clock.offsetMs;
    await sb.close();
    sb = await sandbox(opts);
    expect(sb.clock.offsetMs).toBe(offset);
    expect((await admin(sb, 'GET', '/_sandbox/clock')).json.clock.epochMs).toBeGreaterThanOrEqual(target.getTime());
    await sb.close();
  });

  it('escrow, paid and settled times and the clock offset are stored in the SQLite ledger (migration 3) and survive a restart', async () => {
    const rx = await receiver([200]);
    const opts: SandboxOptions = { dataDir: join(dir, 'b'), settlement: 'deferred', expirySweepMs: 3_600_000 };
    let sb = await sandbox(opts);
    const held = await create(sb, rx.url, { escrow: true });
    const deferred = await create(sb, rx.url);
    expect((await sb.pay(String(held))).ok).toBe(true);
    expect((await sb.pay(String(deferred))).ok).toBe(true);
    const paidAt = sb.state.get(deferred)!.paidAt!;
    await sb.advanceClock(25 * 3_600_000);
    expect((await sb.act(String(held), 'refund')).ok).toBe(true);
    await sb.idle();
    const offset = sb.clock.offsetMs;
    await sb.close();
    sb = await sandbox(opts);
    expect(sb.clock.offsetMs).toBe(offset);
    expect(sb.state.setting('clock.offsetMs')).toBe(String(offset));
    expect(sb.state.db.pragma('user_version', { simple: true })).toBeGreaterThanOrEqual(3);
    const h = sb.state.get(held)!;
    expect(h).toMatchObject({ status: 'refund', escrow: true });
    expect(h.paidAt).toBeDefined();
    const d = sb.state.get(deferred)!;
    expect(d).toMatchObject({ status: 'berhasil', paidAt });
    expect(d.settledAt! - paidAt).toBeGreaterThanOrEqual(86_400_000);
    expect(sb.state.deliveriesOf(deferred).map((x) => x.status)).toEqual(['unsettled', 'berhasil']);
    expect(sb.state.count({ status: 'refund' })).toBe(1);
    await sb.close();
    await rx.close();
  });

  it('advancing past expiry expires each pending payment once, with one callback; times follow the clock', async () => {
    const rx = await receiver([200]);
    const sb = await sandbox({ expirySweepMs: 3_600_000 });
    const ids = [await create(sb, rx.url, { expired: 1, expiredType: 'hours' }), await create(sb, rx.url, { expired: 1, expiredType: 'hours' })];
    const later = await create(sb, rx.url, { expired: 48, expiredType: 'hours' });
    // Two moves at once: each payment still expires exactly once.
    await Promise.all([sb.advanceClock(2 * 3_600_000), sb.advanceClock(60_000)]);
    await rx.waitFor(2);
    await sb.idle();
    expect(rx.received).toHaveLength(2);
    for (const id of ids) {
      expect(sb.state.find(String(id))!.status).toBe('expired');
      expect(sb.state.deliveriesOf(id)).toHaveLength(1);
    }
    expect(sb.state.find(String(later))!.status).toBe('pending');
    // X-Timestamp and the callback's dates are on the emulator's clock (2 h 1 m ahead).
    const stamp = Date.parse(String(rx.received[0]!.headers['x-timestamp']));
    expect(stamp - Date.now()).toBeGreaterThan(2 * 3_600_000 - 60_000);
    // Dates follow the clock: ten days on, a new payment is created that day, and history filters by it.
    await sb.advanceClock(10 * 86_400_000);
    const fresh = await create(sb, rx.url);
    const day = new Date(sb.clock.nowMs() + 7 * 3_600_000).toISOString().slice(0, 10);
    const h = await api(sb, 'v2/history', { startdate: day, enddate: day });
    expect(h.json.Data.Transaction.map((t: { TransactionId: number }) => t.TransactionId)).toEqual([fresh]);
    const rec = (await api(sb, 'v2/transaction', { transactionId: fresh })).json.Data;
    expect(rec.CreatedDate.slice(0, 10)).toBe(day);
    await sb.close();
    await rx.close();
  });

  it('deferred settlement: paid is 6 (unsettle), and settles one day later on the clock with a callback', async () => {
    const rx = await receiver([200]);
    const sb = await sandbox({ settlement: 'deferred', expirySweepMs: 3_600_000 });
    const id = await create(sb, rx.url);
    await sb.pay(String(id));
    await rx.waitFor(1);
    expect(pick(callback(rx, 0))).toEqual({
      status: 'berhasil',
      status_code: '1',
      transaction_status_code: '6',
      settlement_status: 'unsettle',
      is_escrow: 'false',
    });
    expect((await api(sb, 'v2/balance', { account: VA })).json.Data).toMatchObject({ MerchantBalance: 0, UnsettledBalance: 96000 });
    await sb.advanceClock(23 * 3_600_000);
    expect(sb.state.find(String(id))!.status).toBe('unsettled');
    await sb.advanceClock(2 * 3_600_000);
    await rx.waitFor(2);
    expect(pick(callback(rx, 1))).toEqual({
      status: 'berhasil',
      status_code: '1',
      transaction_status_code: '1',
      settlement_status: 'settled',
      is_escrow: 'false',
    });
    expect((await api(sb, 'v2/balance', { account: VA })).json.Data).toMatchObject({ MerchantBalance: 96000, UnsettledBalance: 0 });
    const t = (await api(sb, 'v2/transaction', { transactionId: id })).json.Data;
    expect(t.Status).toBe(1);
    expect(t.SettlementDate).not.toBeNull();
    await sb.close();
    await rx.close();
  });

  it('the callback retry schedule follows the clock: advancing past a retry sends it now', async () => {
    const rx = await receiver([500, 200]);
    const sb = await sandbox({ retrySchedule: [3_600_000], expirySweepMs: 3_600_000 });
    const id = await create(sb, rx.url);
    await sb.pay(String(id));
    await rx.waitFor(1);
    await new Promise((r) => setTimeout(r, 50));
    expect(sb.state.deliveriesOf(id)[0]).toMatchObject({ state: 'pending', attempts: 1 });
    await sb.advanceClock(3_600_000);
    await rx.waitFor(2);
    await sb.idle();
    expect(sb.state.deliveriesOf(id)[0]).toMatchObject({ state: 'delivered', attempts: 2 });
    await sb.close();
    await rx.close();
  });
});

describe('callbacks bound to real state', () => {
  it('resend --to sends the current status to another URL; concurrent-duplicate=N sends N more copies at the same moment', async () => {
    // The handler answers only once all three copies are in flight: copies sent one after another would never all be answered 200.
    const pending: (() => void)[] = [];
    const { createServer } = await import('node:http');
    const seen: string[] = [];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.push(body);
        pending.push(() => res.writeHead(200).end('ok'));
        if (pending.length >= 3) for (const p of pending.splice(0)) p();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/cb`;
    const sb = await sandbox({ faults: { concurrentDuplicates: 2 }, callbackTimeoutMs: 20_000 });
    const id = await create(sb, url);
    await sb.pay(String(id));
    await sb.idle(30_000);
    expect(seen).toHaveLength(3);
    expect(new Set(seen).size).toBe(1);
    const attempts = sb.state.attemptsOf(sb.state.deliveriesOf(id)[0]!.id);
    expect(attempts.filter((a) => a.detail?.httpStatus === 200)).toHaveLength(3);
    await sb.close();
    server.close();

    const rx = await receiver([200]);
    const sb2 = await sandbox();
    const id2 = await create(sb2, 'http://127.0.0.1:9/moved');
    await sb2.pay(String(id2));
    const r = await admin(sb2, 'POST', `/_sandbox/transactions/${id2}/resend`, { to: rx.url });
    expect(r.status).toBe(200);
    await rx.waitFor(1);
    expect(callback(rx, 0)).toMatchObject({ trx_id: String(id2), status: 'berhasil' });
    expect((await admin(sb2, 'POST', `/_sandbox/transactions/${id2}/resend`, { to: 'ftp://x' })).status).toBe(400);
    await sb2.close();
    await rx.close();
  });
});
