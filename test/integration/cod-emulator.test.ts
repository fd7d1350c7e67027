import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildSignedRequest } from '../../src/core/api/signed-request.js';
import { formatJakarta } from '../../src/core/time.js';
import { runCli } from '../helpers/cli.js';
import { EMULATOR_DEFAULT_API_KEY as KEY, EMULATOR_DEFAULT_VA as VA, localEnv, sandboxAndHome } from '../helpers/sandbox.js';

const f = sandboxAndHome({
  accounts: [
    { va: VA, apiKey: KEY, active: true, name: 'Toko Satu', callbackFormat: 'form' },
    { va: '1179000000000002', apiKey: 'OTHER-KEY-0123456789', active: true, name: 'Toko Dua', callbackFormat: 'form' },
  ],
});
const dir = mkdtempSync(join(tmpdir(), 'paycli-cod-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cli = (argv: string[]) => runCli(argv, { env: localEnv(f.sb, { PAYCLI_VA: VA, PAYCLI_API_KEY: KEY }), home: f.home.home, cwd: dir });

/** A signed JSON request to the emulator's API, as the SDKs send one. */
async function api(path: string, body: unknown, creds = { va: VA, apiKey: KEY }): Promise<{ status: number; json: any }> {
  const text = JSON.stringify(body);
  const req = buildSignedRequest({ baseUrl: f.sb.apiUrl, path, method: 'POST', body: text, credentials: creds, now: new Date() });
  const res = await fetch(req.url, { method: 'POST', headers: req.headers, body: text });
  return { status: res.status, json: await res.json() };
}

const COD = {
  name: 'Putu',
  phone: '081999501092',
  email: 'putu@mail.com',
  amount: 75000,
  notifyUrl: 'http://127.0.0.1:9/cb',
  paymentMethod: 'cod',
  paymentChannel: 'rpx',
  product: ['Kaos'],
  qty: [2],
  price: [37500],
  weight: [0.6],
  width: [20],
  length: [30],
  height: [5],
  deliveryAddress: 'Jl. Kemuning 1',
};

/** Checks a PDF's structure: header, every cross-reference offset at its object, trailer, EOF. */
function checkPdf(pdf: Buffer): void {
  const s = pdf.toString('latin1');
  expect(s.startsWith('%PDF-1.')).toBe(true);
  expect(s.trimEnd().endsWith('%%EOF')).toBe(true);
  const xrefAt = Number(/startxref\n(\d+)\n/.exec(s)![1]);
  expect(s.slice(xrefAt, xrefAt + 4)).toBe('xref');
  const entries = [...s.slice(xrefAt).matchAll(/^(\d{10}) 00000 n $/gm)].map((m) => Number(m[1]));
  expect(entries.length).toBeGreaterThan(3);
  entries.forEach((off, i) => expect(s.slice(off, off + `${i + 1} 0 obj`.length)).toBe(`${i + 1} 0 obj`));
}

describe('COD from order to doorstep, against the emulator', () => {
  let from = 0;
  let to = 0;
  let trx = 0;

  it('finds areas by name (lower-case envelope) and prices a parcel between two', async () => {
    const a = await cli(['cod', 'area', 'grogol petamburan', '--json']);
    expect(a.code, a.stderr).toBe(0);
    const areas = JSON.parse(a.stdout) as { id: number; label: string; district: string; city: string }[];
    expect(areas.length).toBeGreaterThan(0);
    expect(areas.every((x) => x.district === 'GROGOL PETAMBURAN')).toBe(true);
    from = areas[0]!.id;
    const b = JSON.parse((await cli(['cod', 'area', 'kuta utara', '--json'])).stdout) as { id: number }[];
    to = b[0]!.id;
    const short = await api('v2/payment/area', { area: 'ab' });
    expect(short).toEqual({ status: 400, json: { status: 400, success: false, status_title: 'error', message: 'area minimal 3 karakter.', data: [] } });
    const r = await cli(['cod', 'rate', '--from', String(from), '--to', String(to), '--weight', '1.2', '--amount', '75000', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const rates = JSON.parse(r.stdout) as { shipping: string; service: string; price: number }[];
    expect(rates.map((x) => `${x.shipping}/${x.service}`)).toEqual(['IDEXPRESS/STD', 'RPX/REG']);
    // Another province costs more than the same district, and two started kilograms twice one.
    const near = JSON.parse(
      (await cli(['cod', 'rate', '--from', String(from), '--to', String(from), '--weight', '1', '--amount', '75000', '--json'])).stdout,
    ) as { price: number }[];
    expect(rates[0]!.price).toBeGreaterThan(near[0]!.price * 2);
    expect((await cli(['cod', 'rate', '--from', '1234567890', '--to', String(to), '--weight', '1', '--amount', '1'])).code).toBe(3);
  });

  it('refuses a COD payment without shipping and shippingService (the docs mark them required)', async () => {
    const r = await api('v2/payment/direct', { ...COD, deliveryArea: String(to) });
    expect(r.status).toBe(400);
    expect(Object.keys(r.json.Error).sort()).toEqual(['shipping', 'shippingService']);
    const ok = await api('v2/payment/direct', {
      ...COD,
      deliveryArea: String(to),
      pickupArea: String(from),
      pickupAddress: 'Jl. Daan Mogot 5',
      shipping: 'IDEXPRESS',
      shippingService: 'STD',
    });
    expect(ok.status, JSON.stringify(ok.json)).toBe(200);
    trx = ok.json.Data.TransactionId;
  });

  it('prints the label as a valid PDF with the waybill; another merchant gets a 404', async () => {
    const r = await cli(['cod', 'label', String(trx)]);
    expect(r.code, r.stderr).toBe(0);
    const pdf = readFileSync(join(dir, `label-${trx}.pdf`));
    checkPdf(pdf);
    expect(pdf.toString('latin1')).toContain(`(AWB PAYCLI${String(trx).padStart(10, '0')}) Tj`);
    const other = await api('v2/payment/label', { transaction_id: trx }, { va: '1179000000000002', apiKey: 'OTHER-KEY-0123456789' });
    expect(other.status).toBe(404);
  });

  it('records a pickup, then moves the parcel: picked up → in transit → delivered (paid, callback)', async () => {
    const track = async () =>
      JSON.parse((await cli(['cod', 'track', '--trx', String(trx), '--json'])).stdout) as { awb: string; status: string; history: unknown[] };
    expect((await track()).status).toBe('waiting for pickup');
    // Within the payment's 24 hours: a pickup after its expiry is refused (the payment would expire first).
    const when = formatJakarta(new Date(Date.now() + 12 * 3_600_000));
    const [date, time] = [when.slice(0, 10), when.slice(11, 16)];
    const p = await cli(['cod', 'pickup', String(trx), '--date', date, '--time', time, '--vehicle', 'motor']);
    expect(p.code, p.stderr).toBe(0);
    expect(f.sb.state.pickupsOf(trx)).toMatchObject([{ trxId: trx, date, time, vehicle: 'Motor' }]);
    const ship = (cmd: string) => runCli(['sandbox', cmd, String(trx), '--json'], { env: { PAYCLI_SANDBOX_URL: f.sb.url }, home: f.home.home });
    expect(JSON.parse((await ship('ship')).stdout).stage).toBe('picked_up');
    expect((await track()).status).toBe('picked up');
    expect((await cli(['cod', 'pickup', String(trx), '--date', date, '--time', time, '--vehicle', 'Motor'])).code).toBe(3);
    expect(JSON.parse((await ship('ship')).stdout).stage).toBe('in_transit');
    const t = await track();
    expect(t.status).toBe('in transit');
    expect(t.awb).toBe(`PAYCLI${String(trx).padStart(10, '0')}`);
    const d = await ship('deliver');
    expect(JSON.parse(d.stdout)).toMatchObject({ ok: true, stage: 'delivered', changed: true, transaction: { status: 'berhasil' } });
    expect(JSON.parse(d.stdout).transaction.callbacks).toMatchObject([{ status: 'berhasil' }]);
    const done = await track();
    expect(done.status).toBe('delivered');
    expect(done.history).toHaveLength(4);
    // By waybill, too; a waybill of another payment is not found.
    expect(JSON.parse((await cli(['cod', 'track', '--awb', t.awb, '--json'])).stdout).status).toBe('delivered');
    expect((await cli(['cod', 'track', '--awb', 'PAYCLI9999999999'])).code).toBe(3);
  });

  it("the dashboard offers the courier's steps for a pending COD payment; another site cannot press them", async () => {
    const r = await api('v2/payment/direct', { ...COD, deliveryArea: String(to), shipping: 'RPX', shippingService: 'REG' });
    const id = r.json.Data.TransactionId as number;
    const page = await (await fetch(`${f.sb.url}/dashboard/trx/${id}`)).text();
    expect(page).toContain(`data-post="/_sandbox/transactions/${id}/ship"`);
    expect(page).toContain(`data-post="/_sandbox/transactions/${id}/deliver"`);
    const cross = await fetch(`${f.sb.url}/_sandbox/transactions/${id}/deliver`, {
      method: 'POST',
      headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
    });
    expect(cross.status).toBe(403);
    expect(f.sb.state.get(id)?.status).toBe('pending');
  });

  it('refuses ship for a payment that is not COD', async () => {
    const va = await api('v2/payment/direct', {
      name: 'A',
      phone: '081999501092',
      email: 'a@b.co',
      amount: 10000,
      notifyUrl: 'http://127.0.0.1:9/cb',
      paymentMethod: 'va',
      paymentChannel: 'bca',
    });
    const r = await runCli(['sandbox', 'ship', String(va.json.Data.TransactionId)], { env: { PAYCLI_SANDBOX_URL: f.sb.url }, home: f.home.home });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/not a COD payment/);
  });
});
