import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { checkCallback } from '../../src/core/callback/check.js';
import { parseCallbackBody } from '../../src/core/callback/parse.js';
import { runCli } from '../helpers/cli.js';
import { EMULATOR_DEFAULT_VA, localEnv, sandboxAndHome } from '../helpers/sandbox.js';

/**
 * The copies-at-once check repeats its burst on fresh orders: an app server may run one burst's
 * copies one after another (one worker takes them all), so that a missing lock shows only in a
 * later burst. A shop app whose fulfilment is correct for its first `racyFrom - 1` orders and
 * counts every copy from then on (what a race looks like from outside) must fail the check on the
 * order where it starts; a correct app passes on every order. (The shop is simple: other checks,
 * such as refunds, fail for it; only this check's line is judged.)
 */
const fixture = sandboxAndHome();

async function shop(racyFrom: number) {
  const orders = new Map<string, { n: number; amount: number; paid: boolean; count: number }>();
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c));
    req.on('end', () => {
      const url = req.url ?? '';
      if (req.method === 'POST' && url === '/orders') {
        const o = JSON.parse(body) as { reference_id: string; amount: number };
        orders.set(o.reference_id, { n: orders.size + 1, amount: o.amount, paid: false, count: 0 });
        return void res.writeHead(201).end();
      }
      if (req.method === 'GET' && url.startsWith('/orders/')) {
        const o = orders.get(decodeURIComponent(url.slice('/orders/'.length)));
        if (!o) return void res.writeHead(404).end();
        return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ paid: o.paid, amount: o.amount, fulfilments: o.count }));
      }
      const { fields } = parseCallbackBody(body, String(req.headers['content-type']));
      if (checkCallback(fields, String(req.headers['x-signature'] ?? ''), EMULATOR_DEFAULT_VA).verdict !== 'valid') return void res.writeHead(400).end();
      const o = orders.get(String(fields.reference_id));
      if (o && fields.status === 'berhasil' && String(fields.status_code) === '1' && Number(fields.amount) === o.amount) {
        if (o.n >= racyFrom) o.count++;
        else if (!o.paid) o.count = 1;
        o.paid = true;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"OK"}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { base, orders, close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))) };
}

async function copiesCheck(racyFrom: number) {
  const app = await shop(racyFrom);
  try {
    const argv = ['test-handler', `${app.base}/cb`, '--order-url', `${app.base}/orders/{reference_id}`, '--create-order-url', `${app.base}/orders`];
    const r = await runCli([...argv, '--format', 'form', '--json'], { env: localEnv(fixture.sb), home: fixture.home.home });
    const report = JSON.parse(r.stdout) as { checks: { name: string; passed: boolean; observation: string }[] };
    return { code: r.code, check: report.checks.find((c) => c.name === '5 copies at once: all 200, paid once')!, made: app.orders.size };
  } finally {
    await app.close();
  }
}

describe('test-handler: copies at once, burst after burst', () => {
  // Orders: 1 takes the single callbacks, 2 the first burst, 3 and 4 the next bursts, then 6 and 7.
  it('passes a correct app after a burst on each of three orders', async () => {
    const { check, made } = await copiesCheck(Number.POSITIVE_INFINITY);
    expect(check).toMatchObject({ passed: true, observation: '3 orders: 5×200 · paid ×1' });
    expect(made).toBe(6);
  });

  it('fails on the first order whose burst pays more than once, and says which', async () => {
    const { code, check, made } = await copiesCheck(3);
    expect(code).toBe(6);
    expect(check.passed).toBe(false);
    expect(check.observation).toMatch(/^order 2: 5×200 · paid ×5 \(paid, amount 50000, fulfilled 5\)$/);
    expect(made).toBe(5); // no third burst after the failure
  });

  it('fails the first burst without a word on orders when that one shows it', async () => {
    const { check } = await copiesCheck(2);
    expect(check.observation).toMatch(/^5×200 · paid ×5 /);
  });
});
