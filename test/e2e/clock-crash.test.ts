import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { buildSignedRequest } from '../../src/core/api/signed-request.js';
import { parseFormBody } from '../../src/core/callback/parse.js';
import { tempHome } from '../helpers/cli.js';
import { EMULATOR_DEFAULT_API_KEY as KEY, EMULATOR_DEFAULT_VA as VA } from '../helpers/sandbox.js';
import { spawnPaycli } from '../helpers/spawn.js';

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
    const dataDir = join(home.home, 'clock');
    const args = ['sandbox', '--port', '0', '--data-dir', dataDir, '--json', '--retry-schedule', Array(10).fill('100ms').join(',')];
    const first = spawnPaycli(args, { HOME: home.home });
    const started = (await first.waitForJson((o) => o.event === 'started', 30_000)) as { url: string; baseUrl: string };
    const ids: number[] = [];
    for (let i = 0; i < 40; i++) ids.push(await createPayment(started.baseUrl, notify, i));
    // Move the clock past every expiry, and kill the emulator while it expires them.
    void request(`${started.url}/_sandbox/clock/advance`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ by: '2h' }),
    }).then(
      (r) => r.body.text(),
      () => undefined,
    );
    await first.waitForJson((o) => o.type === 'transition', 30_000);
    first.child.kill('SIGKILL');
    await first.exited;

    const second = spawnPaycli(args, { HOME: home.home });
    const restarted = (await second.waitForJson((o) => o.event === 'started', 30_000)) as { url: string };
    // The offset survived: the restarted emulator's clock is two hours ahead, and its sweep expires the rest.
    const clock = (await (await request(`${restarted.url}/_sandbox/clock`)).body.json()) as { clock: { offsetMs: number } };
    expect(clock.clock.offsetMs).toBeGreaterThanOrEqual(2 * 3_600_000);
    const deadline = Date.now() + 60_000;
    let list: { id: number; status: string; callbacks: { status: string; state: string }[] }[] = [];
    while (Date.now() < deadline) {
      list = ((await (await request(`${restarted.url}/_sandbox/transactions`)).body.json()) as { transactions: typeof list }).transactions;
      if (list.every((t) => t.status === 'expired' && t.callbacks.every((c) => c.state === 'delivered')) && ids.every((id) => got.has(String(id)))) break;
      await new Promise((r) => setTimeout(r, 100));
    }
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
