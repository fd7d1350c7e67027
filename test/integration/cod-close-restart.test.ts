import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildSignedRequest } from '../../src/core/api/signed-request.js';
import type { EmulatorHandle } from '../../src/core/sandbox/server.js';
import { SandboxState } from '../../src/core/sandbox/state.js';
import { formatJakarta } from '../../src/core/time.js';
import { runCli } from '../helpers/cli.js';
import { EMULATOR_DEFAULT_API_KEY as KEY, EMULATOR_DEFAULT_VA as VA, sandbox } from '../helpers/sandbox.js';

const OTHER = '1179000000000002';
const ACCOUNTS = [
  { va: VA, apiKey: KEY, active: true, name: 'Toko Satu', callbackFormat: 'form' as const, closeApi: true },
  { va: OTHER, apiKey: 'OTHER-KEY-0123456789', active: true, name: 'Toko Dua', callbackFormat: 'form' as const },
];
const dir = mkdtempSync(join(tmpdir(), 'paycli-cod-restart-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const COD = {
  name: 'A',
  phone: '081999501092',
  email: 'a@b.co',
  amount: 50000,
  notifyUrl: 'http://127.0.0.1:9/cb',
  paymentMethod: 'cod',
  paymentChannel: 'rpx',
  product: ['Kaos'],
  qty: [1],
  price: [50000],
  weight: [1],
  width: [1],
  length: [1],
  deliveryArea: '80361',
  deliveryAddress: 'Jl. Kuta',
  shipping: 'RPX',
  shippingService: 'REG',
};

/** A direct VA payment of `amount` by buyer A, as the tests below send it. */
const vaPayment = (amount: number) => ({
  name: 'A',
  phone: '081999501092',
  email: 'a@b.co',
  amount,
  notifyUrl: 'http://127.0.0.1:9/cb',
  paymentMethod: 'va',
  paymentChannel: 'bca',
});

async function api(sb: EmulatorHandle, path: string, body: unknown): Promise<{ status: number; json: any }> {
  const text = JSON.stringify(body);
  const req = buildSignedRequest({ baseUrl: sb.apiUrl, path, method: 'POST', body: text, credentials: { va: VA, apiKey: KEY }, now: new Date() });
  const res = await fetch(req.url, { method: 'POST', headers: req.headers, body: text });
  return { status: res.status, json: await res.json() };
}

describe('what the COD and Close API handlers answered is there after a restart (the ledger)', () => {
  it("a parcel's steps, a pickup, a transfer, its referenceId and a member", async () => {
    const first = await sandbox({ dataDir: dir, accounts: ACCOUNTS });
    const paid = await api(first, 'v2/payment/direct', vaPayment(100000));
    await first.pay(String(paid.json.Data.TransactionId));
    const cod = await api(first, 'v2/payment/direct', COD);
    const id = cod.json.Data.TransactionId as number;
    const when = formatJakarta(new Date(Date.now() + 12 * 3_600_000));
    expect(
      (await api(first, 'v2/cod/pickup', { transaction_id: id, pickup_date: when.slice(0, 10), pickup_time: when.slice(11, 16), pickup_vehicle: 'Mobil' }))
        .status,
    ).toBe(200);
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
    expect(again.state.pickupsOf(id)).toMatchObject([{ vehicle: 'Mobil', date: when.slice(0, 10) }]);
    expect((await api(again, 'v2/transferva', { sender: VA, receiver: OTHER, amount: 1000, referenceId: 'R-1' })).json.Message).toBe(
      'transaction already exists',
    );
    const profile = await api(again, 'v2/profile', { account: member.json.Data.Va });
    expect(profile.json.Data).toMatchObject({ Email: 'putu@mail.com', Name: 'Putu' });
    // Transfer ids come from the transaction ids: a new payment never reuses one.
    const next = await api(again, 'v2/payment/direct', vaPayment(1000));
    expect(again.state.transfers().map((t) => t.id)).not.toContain(next.json.Data.TransactionId);
    await again.close();
  });
});

describe('COD and Close API records in the ledger (migration 2)', () => {
  it("the delivered step is stored with the payment's transition and its callback; a later step of a paid parcel is refused", async () => {
    const sb = await sandbox({ accounts: ACCOUNTS });
    const id = (await api(sb, 'v2/payment/direct', COD)).json.Data.TransactionId as number;
    const deliver = await fetch(`${sb.url}/_sandbox/transactions/${id}/deliver`, { method: 'POST' });
    expect(deliver.status).toBe(200);
    const steps = sb.state.parcelSteps(id);
    expect(steps.map((x) => x.stage)).toEqual(['picked_up', 'in_transit', 'delivered']);
    const paid = sb.state.get(id)!;
    expect(paid.status).toBe('berhasil');
    expect(steps[2]!.at).toBe(paid.paidAt);
    expect(sb.state.deliveriesOf(id).map((d) => d.status)).toEqual(['berhasil']);
    expect(await sb.state.addParcelStep(id, 'in_transit', Date.now())).toBe(false);
    await sb.close();
  });

  it("a caller's referenceId is UNIQUE in the ledger itself, not only in the handler", async () => {
    const state = await SandboxState.open();
    const ins = state.db.prepare(`INSERT INTO transfers (id, by_va, sender, receiver, amount, reference_id, notes, at) VALUES (?, 'A', 'A', 'B', 1, ?, '', 0)`);
    ins.run(1, 'R-1');
    ins.run(2, ''); // no referenceId: not held to one
    ins.run(3, '');
    expect(() => ins.run(4, 'R-1')).toThrow(/UNIQUE/);
    // Through the store: a repeat is refused before the balance is looked at.
    expect(await state.addTransfer({ by: 'A', sender: 'A', receiver: 'B', amount: 5, referenceId: 'R-1', notes: '', at: 0 }, () => false)).toBe('exists');
    expect(await state.addTransfer({ by: 'A', sender: 'A', receiver: 'B', amount: 5, referenceId: 'R-2', notes: '', at: 0 }, () => false)).toBe('short');
    const tr = await state.addTransfer({ by: 'A', sender: 'A', receiver: 'B', amount: 5, referenceId: 'R-2', notes: '', at: 0 }, () => true);
    // Its id is the next of the transactions' sequence: a payment made next gets the one after.
    expect(tr).toMatchObject({ id: 100_001 });
    const t = await state.addTransaction(
      (n) =>
        ({
          id: n,
          merchantVa: 'A',
          referenceId: '',
          paymentNo: 'X',
          via: 'va',
          channel: 'bca',
          amount: 1,
          fee: 0,
          status: 'pending',
          createdAt: 0,
          expiresAt: 1,
          notifyUrl: '',
          buyer: { name: '', phone: '', email: '' },
          items: [],
          sid: 'S',
        }) as never,
    );
    expect(t.id).toBe(100_002);
    expect(state.transferNet('B')).toBe(8);
    await state.close();
  });

  it("an older data dir whose journal holds this branch's records (ship, pickup, transfer, member) is imported with them", async () => {
    const old = mkdtempSync(join(tmpdir(), 'paycli-cod-journal-'));
    try {
      const fixture = readFileSync(new URL('../fixtures/sandbox-0.1/journal.jsonl', import.meta.url), 'utf8');
      const records = [
        { t: 'ship', id: 100001, stage: 'picked_up', at: 1795622900000 },
        { t: 'pickup', p: { trxId: 100001, date: '2026-12-01', time: '09:00', vehicle: 'Motor', requestedAt: 1795622890000 } },
        { t: 'ship', id: 999999, stage: 'picked_up', at: 1795622900000 }, // of no transaction: skipped
        { t: 'transfer', tr: { id: 101500, by: 'A', sender: 'A', receiver: 'B', amount: 700, referenceId: 'R-OLD', notes: '', at: 1795622900000 } },
        { t: 'member', m: { va: '11799000001', name: 'Putu', email: 'putu@mail.com', phone: '081', parent: 'A', at: 1795622900000 } },
      ];
      writeFileSync(join(old, 'journal.jsonl'), fixture + records.map((r) => `${JSON.stringify(r)}\n`).join(''));
      const sb = await sandbox({ dataDir: old });
      expect(sb.startup).toMatchObject({ migrated: 6, skippedLines: 1 });
      expect(sb.state.parcelSteps(100001)).toEqual([{ stage: 'picked_up', at: 1795622900000 }]);
      expect(sb.state.pickupsOf(100001)).toMatchObject([{ vehicle: 'Motor' }]);
      expect(sb.state.transfers()).toMatchObject([{ id: 101500, referenceId: 'R-OLD', amount: 700 }]);
      expect(sb.state.member('11799000001')).toMatchObject({ email: 'putu@mail.com' });
      // Numbering goes on above the older transfer's id.
      expect((await api(sb, 'v2/payment/direct', vaPayment(1000))).json.Data.TransactionId).toBe(101501);
      await sb.close();
    } finally {
      rmSync(old, { recursive: true, force: true });
    }
  });

  it('sandbox export carries steps, pickups, transfers and members; reset empties them; import brings them back', async () => {
    const home = mkdtempSync(join(tmpdir(), 'paycli-cod-export-'));
    try {
      const data = join(home, 'data');
      const env = { HOME: home };
      const sb = await sandbox({ dataDir: data, accounts: ACCOUNTS });
      const paid = (await api(sb, 'v2/payment/direct', vaPayment(100000))).json.Data.TransactionId as number;
      await sb.pay(String(paid));
      const id = (await api(sb, 'v2/payment/direct', COD)).json.Data.TransactionId as number;
      // Within the payment's 24 hours (a pickup after its expiry is refused).
      const when = formatJakarta(new Date(Date.now() + 12 * 3_600_000));
      expect(
        (await api(sb, 'v2/cod/pickup', { transaction_id: id, pickup_date: when.slice(0, 10), pickup_time: when.slice(11, 16), pickup_vehicle: 'Motor' }))
          .status,
      ).toBe(200);
      expect((await fetch(`${sb.url}/_sandbox/transactions/${id}/ship`, { method: 'POST' })).status).toBe(200);
      expect((await api(sb, 'v2/transferva', { sender: VA, receiver: OTHER, amount: 1000, referenceId: 'R-9' })).status).toBe(200);
      expect((await api(sb, 'v2/register', { name: 'Made', email: 'made@mail.com', phone: '08123456780', password: 'rahasia-sekali' })).status).toBe(200);
      await sb.close();

      const exported = await runCli(['sandbox', 'export', '--data-dir', data], { env });
      expect(exported.code, exported.stderr).toBe(0);
      const kinds = exported.stdout
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { t: string }).t);
      expect(kinds).toEqual(['payment', 'payment', 'ship', 'pickup', 'transfer', 'member', 'ids', 'clock']);
      const file = join(home, 'ledger.jsonl');
      writeFileSync(file, exported.stdout);

      expect((await runCli(['sandbox', 'reset', '--yes', '--data-dir', data], { env })).code).toBe(0);
      const empty = await SandboxState.open(data);
      expect(empty.serviceRecords()).toEqual({ steps: [], pickups: [], transfers: [], members: [] });
      await empty.close();

      const imported = await runCli(['sandbox', 'import', file, '--data-dir', data, '--json'], { env });
      expect(imported.code, imported.stderr).toBe(0);
      expect(JSON.parse(imported.stdout)).toMatchObject({ payments: 2, skipped: 0 });
      expect((await runCli(['sandbox', 'export', '--data-dir', data], { env })).stdout).toBe(exported.stdout);

      // Served again: the referenceId is still taken, the member still known, the parcel still picked up.
      const again = await sandbox({ dataDir: data, accounts: ACCOUNTS });
      expect((await api(again, 'v2/transferva', { sender: VA, receiver: OTHER, amount: 1000, referenceId: 'R-9' })).json.Message).toBe(
        'transaction already exists',
      );
      expect((await api(again, 'v2/cod/tracking', { transaction_id: id })).json.Data.status).toBe('picked up');
      expect(again.state.memberByEmail('made@mail.com')).toMatchObject({ name: 'Made', parent: VA });
      await again.close();
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('a member VA is never handed out twice: not after a reset, not after an export imported elsewhere', async () => {
    const home = mkdtempSync(join(tmpdir(), 'paycli-member-va-'));
    try {
      const env = { HOME: home };
      const [data, fresh] = [join(home, 'data'), join(home, 'fresh')];
      const register = async (sb: EmulatorHandle, n: number) =>
        (await api(sb, 'v2/register', { name: `M${n}`, email: `m${n}@mail.com`, phone: `0812345678${n}`, password: 'rahasia-sekali' })).json.Data.Va as string;
      let sb = await sandbox({ dataDir: data, accounts: ACCOUNTS });
      const first = [await register(sb, 1), await register(sb, 2)];
      await sb.close();
      expect((await runCli(['sandbox', 'reset', '--yes', '--data-dir', data], { env })).code).toBe(0);
      sb = await sandbox({ dataDir: data, accounts: ACCOUNTS });
      const afterReset = await register(sb, 3);
      await sb.close();
      expect(first).not.toContain(afterReset);
      const exported = await runCli(['sandbox', 'export', '--data-dir', data], { env });
      writeFileSync(join(home, 'ledger.jsonl'), exported.stdout);
      expect((await runCli(['sandbox', 'import', join(home, 'ledger.jsonl'), '--data-dir', fresh], { env })).code).toBe(0);
      sb = await sandbox({ dataDir: fresh, accounts: ACCOUNTS });
      const elsewhere = await register(sb, 4);
      await sb.close();
      expect([...first, afterReset]).not.toContain(elsewhere);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
