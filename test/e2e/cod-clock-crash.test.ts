import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { buildSignedRequest } from '../../src/core/api/signed-request.js';
import { parseFormBody } from '../../src/core/callback/parse.js';
import { IN_TRANSIT_AFTER_MS, PICKUP_AFTER_MS } from '../../src/core/sandbox/cod-clock.js';
import { formatJakarta } from '../../src/core/time.js';
import { tempHome } from '../helpers/cli.js';
import { EMULATOR_DEFAULT_API_KEY as KEY, EMULATOR_DEFAULT_VA as VA } from '../helpers/sandbox.js';
import { spawnPaycli } from '../helpers/spawn.js';

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
    const got = new Map<string, string[]>();
    const rx = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        const f = parseFormBody(body) as Record<string, string>;
        got.set(f.trx_id!, [...(got.get(f.trx_id!) ?? []), f.status!]);
        // A slow handler: the crash lands while callbacks are in flight.
        setTimeout(() => res.writeHead(200).end('ok'), 20);
      });
    });
    await new Promise<void>((r) => rx.listen(0, '127.0.0.1', r));
    const notify = `http://127.0.0.1:${(rx.address() as AddressInfo).port}/cb`;
    const dataDir = join(home.home, 'cod-clock');
    const args = ['sandbox', '--port', '0', '--data-dir', dataDir, '--json', '--retry-schedule', Array(10).fill('100ms').join(',')];
    const first = spawnPaycli(args, { HOME: home.home });
    const started = (await first.waitForJson((o) => o.event === 'started', 30_000)) as { url: string; baseUrl: string };
    const ids: number[] = [];
    for (let i = 0; i < 30; i++) ids.push((await signed(started.baseUrl, 'v2/payment/direct', cod(notify, i))).TransactionId);
    // Move the clock past every delivery, and kill the emulator while it moves the parcels.
    void request(`${started.url}/_sandbox/clock/advance`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ by: '3d' }),
    }).then(
      (r) => r.body.text(),
      () => undefined,
    );
    await first.waitForJson((o) => o.type === 'transition', 30_000);
    first.child.kill('SIGKILL');
    await first.exited;

    const second = spawnPaycli(args, { HOME: home.home });
    const restarted = (await second.waitForJson((o) => o.event === 'started', 30_000)) as { url: string; baseUrl: string };
    // The restarted emulator's sweep takes the steps the crash cut short.
    const deadline = Date.now() + 60_000;
    let list: { id: number; status: string; createdAt: string; paidAt: string; callbacks: { status: string; state: string }[] }[] = [];
    while (Date.now() < deadline) {
      list = ((await (await request(`${restarted.url}/_sandbox/transactions`)).body.json()) as { transactions: typeof list }).transactions;
      if (list.every((t) => t.status === 'berhasil' && t.callbacks.every((c) => c.state === 'delivered')) && ids.every((id) => got.has(String(id)))) break;
      await new Promise((r) => setTimeout(r, 100));
    }
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
