import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OrderProbe } from '../../src/cli/handler-suite/orders.js';

/** The app's order probe as test-handler reads it (--order-url and the --*-field names). */
let base: string;
const server = createServer((req, res) => {
  const path = decodeURI(req.url ?? '');
  if (path === '/o/ORDER%3B7/100001' || path === '/o/ORDER;7/100001')
    return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"is_paid":1,"total":"50000","shipped":2}');
  if (path.startsWith('/o/broken')) return void res.writeHead(500).end('oops');
  res.writeHead(404).end();
});
beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('the order probe', () => {
  it('fills {reference_id} (encoded) and {trx_id}, and reads the fields named by the flags', async () => {
    const probe = new OrderProbe(`${base}/o/{reference_id}/{trx_id}`, { paid: 'is_paid', amount: 'total', count: 'shipped' }, 5000);
    expect(probe.url({ trx: 100001, ref: 'ORDER;7' })).toBe(`${base}/o/ORDER%3B7/100001`);
    expect(await probe.state({ trx: 100001, ref: 'ORDER;7' })).toMatchObject({ known: true, paid: true, amount: 50000, count: 2, short: 'paid ×2' });
    // The default names read nothing of this answer: not paid, no amount, no count.
    const plain = new OrderProbe(`${base}/o/{reference_id}/{trx_id}`, { paid: 'paid', amount: 'amount', count: 'fulfilments' }, 5000);
    expect(await plain.state({ trx: 100001, ref: 'ORDER;7' })).toMatchObject({
      known: true,
      paid: false,
      amount: undefined,
      count: undefined,
      short: 'not paid',
    });
  });

  it('404 is an unknown order; anything but 200 JSON is an error naming the probe', async () => {
    const probe = new OrderProbe(`${base}/o/{reference_id}`, { paid: 'paid', amount: 'amount', count: 'fulfilments' }, 5000);
    expect(await probe.state({ trx: 1, ref: 'NOPE' })).toMatchObject({ known: false, paid: false, short: '404' });
    await expect(probe.state({ trx: 1, ref: 'broken' })).rejects.toThrow(/the order probe .*\/o\/broken answered HTTP 500/);
  });
});
