import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { buildSignedRequest } from '../../src/core/api/signed-request.js';
import { tempHome } from '../helpers/cli.js';
import { EMULATOR_DEFAULT_API_KEY as KEY, EMULATOR_DEFAULT_VA as VA } from '../helpers/sandbox.js';
import { crashMidAdvance, settled, slowReceiver } from '../helpers/clock-crash.js';

let home: ReturnType<typeof tempHome>;
beforeAll(() => (home = tempHome()));
afterAll(() => home.cleanup());

async function createPayment(apiUrl: string, notifyUrl: string, n: number): Promise<number> {
  const body = JSON.stringify({
    name: 'Putu',
    phone: '08123456789',
    email: 'p@x.co',
    amount: 5000 + n,
    notifyUrl,
    paymentMethod: 'va',
    paymentChannel: 'bni',
    expired: 1,
    expiredType: 'hours',
  });
  const req = buildSignedRequest({ baseUrl: apiUrl, path: 'v2/payment/direct', method: 'POST', body, credentials: { va: VA, apiKey: KEY }, now: new Date() });
  const res = await request(req.url, { method: 'POST', headers: req.headers, body });
  const json = (await res.body.json()) as { Data: { TransactionId: number } };
  if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}`);
  return json.Data.TransactionId;
}

describe('clock advance and kill -9', () => {
  it('every payment past its expiry is expired exactly once with exactly one queued callback, across a crash mid-advance', async () => {
    const rx = await slowReceiver();
    const { ids, second, restarted } = await crashMidAdvance(home.home, join(home.home, 'clock'), '2h', async (apiUrl) => {
      const ids: number[] = [];
      for (let i = 0; i < 40; i++) ids.push(await createPayment(apiUrl, rx.url, i));
      return ids;
    });
    const got = rx.got;
    // The offset survived: the restarted emulator's clock is two hours ahead, and its sweep expires the rest.
    const clock = (await (await request(`${restarted.url}/_sandbox/clock`)).body.json()) as { clock: { offsetMs: number } };
    expect(clock.clock.offsetMs).toBeGreaterThanOrEqual(2 * 3_600_000);
    const list = await settled(restarted.url, 'expired', ids, got);
    for (const t of list) {
      expect(t.status).toBe('expired');
      // One transition, one callback: never none, never a second.
      expect(t.callbacks, `trx ${t.id}`).toHaveLength(1);
      expect(t.callbacks[0]).toMatchObject({ status: 'expired', state: 'delivered' });
    }
    for (const id of ids) expect(new Set(got.get(String(id)))).toEqual(new Set(['expired']));
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
    rx.close();
  }, 120_000);
});
