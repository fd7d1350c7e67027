// The shop (node server.mjs; PORT, IPAYMU_VA, IPAYMU_API_KEY, IPAYMU_BASE_URL, ORDERS_FILE):
//   POST /ipaymu/callback      the gateway's callback
//   GET  /orders/{reference}   the order's state as JSON, 404 when unknown (test-handler --order-url)
//   POST /test/orders          stands in for the checkout in tests (only with ALLOW_TEST_ORDERS=1)
// node:http here; with Express the same handler goes behind its body parsers (see ipaymu-callback.mjs).
import { appendFileSync, closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { createServer } from 'node:http';
import { ipaymuCallback } from './ipaymu-callback.mjs';

/** Orders in a JSON file (a database in a real shop), one lock per order, shipments in an append-only log. */
class OrderFile {
  constructor(path) {
    this.path = path;
    this.locks = new Map();
  }
  all() {
    try {
      return JSON.parse(readFileSync(this.path, 'utf8'));
    } catch {
      return {};
    }
  }
  get(ref) {
    return this.all()[ref];
  }
  async put(order) {
    const all = { ...this.all(), [order.reference_id]: order };
    const fd = openSync(`${this.path}.tmp`, 'w');
    writeSync(fd, JSON.stringify(all, null, 2));
    fsyncSync(fd);
    closeSync(fd);
    renameSync(`${this.path}.tmp`, this.path); // stored whole, or not at all
  }
  async ship(ref) {
    appendFileSync(`${this.path}.shipments`, `${JSON.stringify(ref)}\n`);
  }
  shipped(ref) {
    try {
      return readFileSync(`${this.path}.shipments`, 'utf8')
        .split('\n')
        .filter((l) => l === JSON.stringify(ref)).length;
    } catch {
      return 0;
    }
  }
  /** Runs fn alone for this order: copies of one callback wait for each other. */
  lock(ref, fn) {
    if (
      String(process.env.HANDLER_BUG ?? '')
        .split(',')
        .includes('no-lock')
    )
      return fn();
    const before = this.locks.get(ref) ?? Promise.resolve();
    const run = before.then(fn, fn);
    this.locks.set(
      ref,
      run.catch(() => undefined),
    );
    return run;
  }
}

const orders = new OrderFile(process.env.ORDERS_FILE ?? 'orders.json');
const callback = ipaymuCallback({ va: process.env.IPAYMU_VA, apiKey: process.env.IPAYMU_API_KEY, baseUrl: process.env.IPAYMU_BASE_URL, orders });
const json = (res, status, body) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

createServer(async (req, res) => {
  const path = new URL(req.url, 'http://shop').pathname;
  try {
    if (req.method === 'POST' && path === '/ipaymu/callback') return await callback(req, res);
    const m = /^\/orders\/(.+)$/.exec(path);
    if (req.method === 'GET' && m) {
      const o = orders.get(decodeURIComponent(m[1]));
      return o ? json(res, 200, { ...o, paid: o.status === 'paid', fulfilments: orders.shipped(o.reference_id) }) : json(res, 404, { error: 'no such order' });
    }
    if (req.method === 'POST' && path === '/test/orders' && process.env.ALLOW_TEST_ORDERS === '1') {
      const chunks = [];
      for await (const c of req) chunks.push(c);
      const o = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      await orders.put({ reference_id: String(o.reference_id), trx_id: Number(o.trx_id), amount: Number(o.amount), status: 'unpaid' });
      return json(res, 201, { ok: true });
    }
    json(res, 404, { error: 'not found' });
  } catch (err) {
    json(res, 500, { error: String(err?.message ?? err) }); // not stored: the gateway retries
  }
}).listen(Number(process.env.PORT ?? 3000), '127.0.0.1');
