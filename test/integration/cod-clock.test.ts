import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCallbackBody } from '../../src/core/callback/parse.js';
import { startListener, type ListenerEvent } from '../../src/core/listener/server.js';
import { searchAreas } from '../../src/core/sandbox/cod-areas.js';
import { IN_TRANSIT_AFTER_MS, PICKUP_AFTER_MS } from '../../src/core/sandbox/cod-clock.js';
import { formatJakarta } from '../../src/core/time.js';
import { runCli } from '../helpers/cli.js';
import { EMULATOR_DEFAULT_VA as VA, localEnv, sandboxAndHome, signedPost } from '../helpers/sandbox.js';

// The clock alone moves things here: no background sweep in the test's time.
const f = sandboxAndHome({ expirySweepMs: 3_600_000 });
const H = 3_600_000;
const D = 24 * H;

/** The merchant's own listener (`paycli listen`): verifies every callback's signature with the VA. */
let listener: Awaited<ReturnType<typeof startListener>>;
const heard: ListenerEvent[] = [];
beforeAll(async () => {
  listener = await startListener({ port: 0, va: VA, store: null, onEvent: (e) => heard.push(e) });
});
afterAll(() => listener.close());

const cli = (argv: string[]) => runCli(argv, { env: localEnv(f.sb), home: f.home.home });
const advance = async (by: string) => {
  const r = await runCli(['sandbox', 'clock', 'advance', by, '--sandbox-url', f.sb.url], { home: f.home.home });
  expect(r.code, r.stderr).toBe(0);
};
const track = async (trx: number) => {
  const r = await cli(['cod', 'track', '--trx', String(trx), '--json']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as { status: string; history: { at: string; status: string }[] };
};
const wib = (ms: number) => formatJakarta(new Date(ms));

/** A COD payment through the signed API, as a shop's checkout makes it. */
async function codPayment(extra: Record<string, unknown> = {}): Promise<{ id: number; createdAt: number }> {
  const area = searchAreas(f.sb.regions, 'grogol petamburan')[0]!.id;
  const text = JSON.stringify({
    name: 'Putu',
    phone: '081999501092',
    email: 'putu@mail.com',
    amount: 75000,
    notifyUrl: listener.url,
    paymentMethod: 'cod',
    paymentChannel: 'rpx',
    product: ['Kaos'],
    qty: [1],
    price: [75000],
    weight: [0.6],
    width: [20],
    length: [30],
    height: [5],
    deliveryArea: String(area),
    deliveryAddress: 'Jl. Kemuning 1',
    pickupArea: String(area),
    pickupAddress: 'Jl. Daan Mogot 5',
    shipping: 'RPX',
    shippingService: 'REG',
    ...extra,
  });
  const req = signedPost(f.sb.apiUrl, 'v2/payment/direct', text);
  const res = await fetch(req.url, { method: 'POST', headers: req.headers, body: text });
  const json = (await res.json()) as { Data: { TransactionId: number } };
  expect(res.status, JSON.stringify(json)).toBe(200);
  const id = json.Data.TransactionId;
  return { id, createdAt: f.sb.state.get(id)!.createdAt };
}

const callbacksOf = (id: number) => heard.filter((e) => e.summary.trx_id === String(id));

describe("the emulator's clock moves COD parcels (issue 28)", () => {
  it('cod track follows the clock: picked up, in transit, delivered = paid with one signed callback; step times on the clock', async () => {
    const { id, createdAt } = await codPayment();
    expect((await track(id)).status).toBe('waiting for pickup');
    await advance('4h');
    expect((await track(id)).status).toBe('picked up');
    await advance('2h');
    const moving = await track(id);
    expect(moving.status).toBe('in transit');
    expect(JSON.parse((await cli(['transaction', String(id), '--json'])).stdout)).toMatchObject({ Status: 0 });
    expect(callbacksOf(id)).toEqual([]);
    // RPX REG within one district: "1" day (the rate model), counted from pickup.
    await advance('1d');
    const done = await track(id);
    expect(done.status).toBe('delivered');
    expect(done.history.map((h) => `${h.status} ${h.at}`)).toEqual([
      `delivered ${wib(createdAt + PICKUP_AFTER_MS + D)}`,
      `in transit ${wib(createdAt + PICKUP_AFTER_MS + IN_TRANSIT_AFTER_MS)}`,
      `picked up ${wib(createdAt + PICKUP_AFTER_MS)}`,
      `waiting for pickup ${wib(createdAt)}`,
    ]);
    const t = await cli(['transaction', String(id), '--json']);
    expect(t.code, t.stderr).toBe(0);
    expect(JSON.parse(t.stdout)).toMatchObject({ Status: 1, PaidStatus: 'paid' });
    expect(f.sb.state.get(id)!.paidAt).toBe(createdAt + PICKUP_AFTER_MS + D);
    await f.sb.idle();
    const got = callbacksOf(id);
    expect(got).toHaveLength(1);
    expect(got[0]!.event.verdict).toBe('valid');
    const fields = parseCallbackBody(got[0]!.event.body, got[0]!.event.headers['content-type']).fields;
    expect(fields).toMatchObject({ status: 'berhasil', status_code: '1', via: 'cod', paid_at: wib(createdAt + PICKUP_AFTER_MS + D) });
    // A further advance moves nothing and sends nothing again.
    await advance('3d');
    await f.sb.idle();
    expect(callbacksOf(id)).toHaveLength(1);
    expect(f.sb.state.parcelSteps(id).map((s) => s.stage)).toEqual(['picked_up', 'in_transit', 'delivered']);
  });

  it('one advance across every step applies each once, in order, at its own time; the estimate follows the courier and zone', async () => {
    const far = searchAreas(f.sb.regions, 'kuta utara')[0]!.id;
    const { id, createdAt } = await codPayment({ deliveryArea: String(far), shipping: 'IDEXPRESS', shippingService: 'STD' });
    await advance('10d');
    await f.sb.idle();
    // IDEXPRESS STD to another province: "3-6 days", delivered after the longest.
    expect(f.sb.state.parcelSteps(id)).toEqual([
      { stage: 'picked_up', at: createdAt + PICKUP_AFTER_MS },
      { stage: 'in_transit', at: createdAt + PICKUP_AFTER_MS + IN_TRANSIT_AFTER_MS },
      { stage: 'delivered', at: createdAt + PICKUP_AFTER_MS + 6 * D },
    ]);
    expect(f.sb.state.get(id)!.status).toBe('berhasil');
    expect(callbacksOf(id).map((e) => e.summary.status)).toEqual(['berhasil']);
  });

  it('a pickup scheduled with cod pickup sets when the courier comes; one after the payment expires is refused', async () => {
    const { id, createdAt } = await codPayment();
    const late = wib(createdAt + 2 * D);
    const refused = await cli(['cod', 'pickup', String(id), '--date', late.slice(0, 10), '--time', late.slice(11, 16), '--vehicle', 'Motor']);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('sebelum transaksi kedaluwarsa');
    const at = wib(createdAt + 12 * H);
    const p = await cli(['cod', 'pickup', String(id), '--date', at.slice(0, 10), '--time', at.slice(11, 16), '--vehicle', 'Motor']);
    expect(p.code, p.stderr).toBe(0);
    await advance('6h');
    expect((await track(id)).status).toBe('waiting for pickup');
    await advance('12h');
    expect((await track(id)).status).toBe('in transit');
    expect(f.sb.state.parcelSteps(id)[0]).toEqual({ stage: 'picked_up', at: Date.parse(`${at.slice(0, 16).replace(' ', 'T')}:00+07:00`) });
  });

  it('a COD payment that expires before its pickup, or is cancelled, does not move; once picked up it no longer expires', async () => {
    const early = await codPayment({ expired: 2, expiredType: 'hours' });
    const late = await codPayment({ expired: 4, expiredType: 'hours' });
    const cancelled = await codPayment();
    const c = await runCli(['sandbox', 'cancel', String(cancelled.id), '--sandbox-url', f.sb.url], { home: f.home.home });
    expect(c.code, c.stderr).toBe(0);
    await advance('2d');
    await f.sb.idle();
    expect(f.sb.state.get(early.id)!.status).toBe('expired');
    expect(f.sb.state.parcelSteps(early.id)).toEqual([]);
    expect((await track(early.id)).status).toBe('cancelled');
    expect(callbacksOf(early.id).map((e) => e.summary.status)).toEqual(['expired']);
    expect(f.sb.state.parcelSteps(cancelled.id)).toEqual([]);
    expect((await track(cancelled.id)).status).toBe('cancelled');
    // Picked up at 3 h, before its 4 h expiry: delivered a day later, never expired.
    expect(f.sb.state.get(late.id)!.status).toBe('berhasil');
    expect(callbacksOf(late.id).map((e) => e.summary.status)).toEqual(['berhasil']);
  });

  it("pay --method cod says the expiry holds until pickup and names the parcel's next commands", async () => {
    const area = String(searchAreas(f.sb.regions, 'grogol petamburan')[0]!.id);
    const r = await cli([
      'pay',
      '--method',
      'cod',
      '--channel',
      'rpx',
      '--name',
      'Putu',
      '--phone',
      '081999501092',
      '--email',
      'p@x.co',
      '--item',
      'Kaos:1:75000:0.6:20:5:30',
      '--delivery-area',
      area,
      '--delivery-address',
      'Jl. Kemuning 1',
      '--shipping',
      'RPX',
      '--shipping-service',
      'REG',
      '--pickup-area',
      area,
      '--notify-url',
      listener.url,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const id = /trx (\d+)/.exec(r.stdout)![1];
    expect(r.stdout).toMatch(/expires .* unless picked up/);
    expect(r.stdout).toContain(`paycli cod label ${id}`);
    expect(r.stdout).toContain(`paycli cod track --trx ${id}`);
    for (const line of r.stdout.split('\n')) expect(line.length).toBeLessThanOrEqual(80);
  });

  it('a parcel on its way cannot be expired by the admin; the dashboard shows its step', async () => {
    const { id } = await codPayment();
    const ship = await runCli(['sandbox', 'ship', String(id), '--sandbox-url', f.sb.url], { home: f.home.home });
    expect(ship.code, ship.stderr).toBe(0);
    const r = await runCli(['sandbox', 'expire', String(id), '--sandbox-url', f.sb.url], { home: f.home.home });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('buyer pays on delivery');
    const page = await (await fetch(`${f.sb.url}/dashboard/trx/${id}`)).text();
    expect(page).toMatch(/id="parcel"[\s\S]*picked up/);
  });
});
