import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildSignedRequest } from '../../src/core/api/signed-request.js';
import type { SandboxHandle } from '../../src/core/sandbox/server.js';
import { EMULATOR_DEFAULT_API_KEY as KEY, EMULATOR_DEFAULT_VA as VA, sandbox } from '../helpers/sandbox.js';

const OTHER = '1179000000000002';
const ACCOUNTS = [
  { va: VA, apiKey: KEY, active: true, name: 'Toko Satu', callbackFormat: 'form' as const, closeApi: true },
  { va: OTHER, apiKey: 'OTHER-KEY-0123456789', active: true, name: 'Toko Dua', callbackFormat: 'form' as const },
];
const dir = mkdtempSync(join(tmpdir(), 'paycli-cod-restart-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function api(sb: SandboxHandle, path: string, body: unknown): Promise<{ status: number; json: any }> {
  const text = JSON.stringify(body);
  const req = buildSignedRequest({ baseUrl: sb.apiUrl, path, method: 'POST', body: text, credentials: { va: VA, apiKey: KEY }, now: new Date() });
  const res = await fetch(req.url, { method: 'POST', headers: req.headers, body: text });
  return { status: res.status, json: await res.json() };
}

describe('what the COD and Close API handlers answered is there after a restart (the ledger)', () => {
  it('a parcel\'s steps, a pickup, a transfer, its referenceId and a member', async () => {
    const first = await sandbox({ dataDir: dir, accounts: ACCOUNTS });
    const paid = await api(first, 'v2/payment/direct', { name: 'A', phone: '081999501092', email: 'a@b.co', amount: 100000, notifyUrl: 'http://127.0.0.1:9/cb', paymentMethod: 'va', paymentChannel: 'bca' });
    await first.pay(String(paid.json.Data.TransactionId));
    const cod = await api(first, 'v2/payment/direct', {
      name: 'A', phone: '081999501092', email: 'a@b.co', amount: 50000, notifyUrl: 'http://127.0.0.1:9/cb', paymentMethod: 'cod', paymentChannel: 'rpx',
      product: ['Kaos'], qty: [1], price: [50000], weight: [1], width: [1], length: [1], deliveryArea: '80361', deliveryAddress: 'Jl. Kuta', shipping: 'RPX', shippingService: 'REG',
    });
    const id = cod.json.Data.TransactionId as number;
    expect((await api(first, 'v2/cod/pickup', { transaction_id: id, pickup_date: '2026-12-01', pickup_time: '09:00', pickup_vehicle: 'Mobil' })).status).toBe(200);
    const ship = await fetch(`${first.url}/_sandbox/transactions/${id}/ship`, { method: 'POST' });
    expect(ship.status).toBe(200);
    expect((await api(first, 'v2/transferva', { sender: VA, receiver: OTHER, amount: 1000, referenceId: 'R-1' })).status).toBe(200);
    const member = await api(first, 'v2/register', { name: 'Putu', email: 'putu@mail.com', phone: '08123456789', password: 'rahasia-sekali' });
    expect(member.status).toBe(200);
    await first.close();

    const again = await sandbox({ dataDir: dir, accounts: ACCOUNTS });
    expect(again.startup.skippedLines).toBe(0);
    const track = await api(again, 'v2/cod/tracking', { transaction_id: id });
    expect(track.json.Data.status).toBe('picked up');
    expect(again.state.pickupsOf(id)).toMatchObject([{ vehicle: 'Mobil', date: '2026-12-01' }]);
    expect((await api(again, 'v2/transferva', { sender: VA, receiver: OTHER, amount: 1000, referenceId: 'R-1' })).json.Message).toBe('transaction already exists');
    const profile = await api(again, 'v2/profile', { account: member.json.Data.Va });
    expect(profile.json.Data).toMatchObject({ Email: 'putu@mail.com', Name: 'Putu' });
    // Transfer ids come from the transaction ids: a new payment never reuses one.
    const next = await api(again, 'v2/payment/direct', { name: 'A', phone: '081999501092', email: 'a@b.co', amount: 1000, notifyUrl: 'http://127.0.0.1:9/cb', paymentMethod: 'va', paymentChannel: 'bca' });
    expect(again.state.transfers().map((t) => t.id)).not.toContain(next.json.Data.TransactionId);
    await again.close();
  });
});
