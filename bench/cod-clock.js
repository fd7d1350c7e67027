#!/usr/bin/env node
// How long `clock advance` takes when it moves N pending COD parcels through picked up, in transit
// and delivered (each step one SQLite transaction; delivered = paid, stored with its callback), in
// memory and with a data dir; and what N parcels waiting (none due) cost: the clock's due work, which
// runs every second and before every merchant API answer (median of a clock move by one minute, which
// also stores the clock's offset; and of a signed v2/transaction, which runs the due work first).
// Run after `npm run build`: node bench/cod-clock.js [N]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSignedRequest } from '../dist/core/api/signed-request.js';
import { EMULATOR_DEFAULT_API_KEY as KEY, EMULATOR_DEFAULT_VA as VA } from '../dist/core/config/resolve.js';
import { startSandbox } from '../dist/core/sandbox/server.js';
const n = Number(process.argv[2] ?? 1000);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
async function medianMs(runs, fn) {
  const xs = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await fn();
    xs.push(performance.now() - t);
  }
  return median(xs).toFixed(2);
}
for (const withDir of [false, true]) {
  const dir = withDir ? mkdtempSync(join(tmpdir(), 'paycli-bench-')) : undefined;
  const sb = await startSandbox({ port: 0, dataDir: dir, dashboard: false, expirySweepMs: 3_600_000, retrySchedule: [3_600_000] });
  const base = sb.clock.nowMs();
  const shipment = { shipping: 'RPX', shippingService: 'REG', deliveryArea: '3173021001', deliveryAddress: 'x', pickupArea: '3173021001', weightKg: 1 };
  let first;
  for (let i = 0; i < n; i++) {
    const t = await sb.state.addTransaction((id) => ({
      id,
      sid: `s${i}`,
      merchantVa: VA,
      referenceId: `R${i}`,
      via: 'cod',
      channel: 'rpx',
      paymentNo: `RPX${id}`,
      paymentName: 'RPX',
      amount: 10000,
      fee: 4000,
      status: 'pending',
      createdAt: base,
      expiresAt: base + 86_400_000,
      notifyUrl: 'http://127.0.0.1:9/none',
      buyer: { name: 'A', phone: '08123456789', email: 'a@b.co' },
      items: [{ product: 'K', qty: 1, price: 10000 }],
      shipment,
    }));
    first ??= t.id;
  }
  const idleMs = await medianMs(21, () => sb.advanceClock(60_000));
  const body = JSON.stringify({ transactionId: first });
  const apiMs = await medianMs(101, async () => {
    const req = buildSignedRequest({ baseUrl: sb.apiUrl, path: 'v2/transaction', method: 'POST', body, credentials: { va: VA, apiKey: KEY }, now: new Date() });
    const res = await fetch(req.url, { method: 'POST', headers: req.headers, body });
    if (res.status !== 200) throw new Error(`v2/transaction: HTTP ${res.status}`);
    await res.arrayBuffer();
  });
  const t0 = performance.now();
  await sb.advanceClock(3 * 86_400_000);
  const ms = performance.now() - t0;
  console.log(
    `${withDir ? 'data dir ' : 'in memory'}: ${sb.state.count({ status: 'berhasil' })}/${n} COD parcels delivered by one advance in ${ms.toFixed(0)} ms (${((ms * 1000) / n).toFixed(0)} us each, 3 steps); ${n} waiting, none due: a clock move ${idleMs} ms, v2/transaction ${apiMs} ms`,
  );
  await sb.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
}
