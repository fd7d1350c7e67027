import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { buildSignedRequest } from '../../src/core/api/signed-request.js';
import { IN_TRANSIT_AFTER_MS, PICKUP_AFTER_MS } from '../../src/core/sandbox/cod-clock.js';
import { formatJakarta } from '../../src/core/time.js';
import { tempHome } from '../helpers/cli.js';
import { EMULATOR_DEFAULT_API_KEY as KEY, EMULATOR_DEFAULT_VA as VA } from '../helpers/sandbox.js';
import { crashMidAdvance, settled, slowReceiver } from '../helpers/clock-crash.js';

let home: ReturnType<typeof tempHome>;
beforeAll(() => (home = tempHome()));
afterAll(() => home.cleanup());

/** Grogol, Grogol Petamburan (Jakarta Barat): pickup and delivery in one district, RPX REG "1" day. */
const AREA = '3173021001';

async function signed(apiUrl: string, path: string, body: unknown): Promise<any> {
  const text = JSON.stringify(body);
  const req = buildSignedRequest({ baseUrl: apiUrl, path, method: 'POST', body: text, credentials: { va: VA, apiKey: KEY }, now: new Date() });
  const res = await request(req.url, { method: 'POST', headers: req.headers, body: text });
  const json = (await res.body.json()) as any;
  if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode} ${JSON.stringify(json)}`);
  return json.Data;
}

const cod = (notifyUrl: string, n: number) => ({
  name: 'Putu',
  phone: '081999501092',
  email: 'p@x.co',
  amount: 50000 + n,
  notifyUrl,
  paymentMethod: 'cod',
  paymentChannel: 'rpx',
  product: ['Kaos'],
  qty: [1],
  price: [50000 + n],
  weight: [0.5],
  width: [20],
  length: [30],
  height: [5],
  deliveryArea: AREA,
  deliveryAddress: 'Jl. Kemuning 1',
  pickupArea: AREA,
  pickupAddress: 'Jl. Daan Mogot 5',
  shipping: 'RPX',
  shippingService: 'REG',
});

describe('clock advance over COD parcels and kill -9 (issue 28)', () => {
  it('every parcel is picked up, in transit and delivered once, at its own time, with one paid callback, across a crash mid-advance', async () => {
    const rx = await slowReceiver();
    // Move the clock past every delivery, and kill the emulator while it moves the parcels.
    const { ids, second, restarted } = await crashMidAdvance(home.home, join(home.home, 'cod-clock'), '3d', async (apiUrl) => {
      const ids: number[] = [];
      for (let i = 0; i < 30; i++) ids.push((await signed(apiUrl, 'v2/payment/direct', cod(rx.url, i))).TransactionId);
      return ids;
    });
    const got = rx.got;
    // The restarted emulator's sweep takes the steps the crash cut short.
    const list = await settled(restarted.url, 'berhasil', ids, got);
    expect(list).toHaveLength(30);
    for (const t of list) {
      expect(t.status, `trx ${t.id}`).toBe('berhasil');
      // One transition, one callback: never none, never a second.
      expect(t.callbacks, `trx ${t.id}`).toHaveLength(1);
      expect(t.callbacks[0]).toMatchObject({ status: 'berhasil', state: 'delivered' });
      // Each step once, at its time on the emulator's clock.
      const created = Date.parse(t.createdAt);
      const track = (await signed(restarted.baseUrl, 'v2/cod/tracking', { transaction_id: t.id })) as { history: { at: string; status: string }[] };
      expect(
        track.history.map((h) => `${h.status} ${h.at}`),
        `trx ${t.id}`,
      ).toEqual([
        `delivered ${formatJakarta(new Date(created + PICKUP_AFTER_MS + 86_400_000))}`,
        `in transit ${formatJakarta(new Date(created + PICKUP_AFTER_MS + IN_TRANSIT_AFTER_MS))}`,
        `picked up ${formatJakarta(new Date(created + PICKUP_AFTER_MS))}`,
        `waiting for pickup ${formatJakarta(new Date(created))}`,
      ]);
      expect(Date.parse(t.paidAt)).toBe(created + PICKUP_AFTER_MS + 86_400_000);
    }
    // At least once (a callback in flight at the crash may come again), and only the paid one.
    for (const id of ids) expect(new Set(got.get(String(id))), `trx ${id}`).toEqual(new Set(['berhasil']));
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
    rx.close();
  }, 120_000);
});
