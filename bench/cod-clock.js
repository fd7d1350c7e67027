#!/usr/bin/env node
// How long `clock advance` takes when it moves N pending COD parcels through picked up, in transit
// and delivered (each step one SQLite transaction; delivered = paid, stored with its callback), in
// memory and with a data dir; and what the sweep costs when none is due (it runs every second).
// Run after `npm run build`: node bench/cod-clock.js [N]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox } from '../dist/core/sandbox/server.js';
const n = Number(process.argv[2] ?? 1000);
for (const withDir of [false, true]) {
  const dir = withDir ? mkdtempSync(join(tmpdir(), 'paycli-bench-')) : undefined;
  const sb = await startSandbox({ port: 0, dataDir: dir, dashboard: false, expirySweepMs: 3_600_000, retrySchedule: [3_600_000] });
  const base = sb.clock.nowMs();
  const shipment = { shipping: 'RPX', shippingService: 'REG', deliveryArea: '3173021001', deliveryAddress: 'x', pickupArea: '3173021001', weightKg: 1 };
  for (let i = 0; i < n; i++) {
    await sb.state.addTransaction((id) => ({ id, sid: `s${i}`, merchantVa: sb.accounts[0].va, referenceId: `R${i}`, via: 'cod', channel: 'rpx', paymentNo: `RPX${id}`, paymentName: 'RPX', amount: 10000, fee: 4000, status: 'pending', createdAt: base, expiresAt: base + 86_400_000, notifyUrl: 'http://127.0.0.1:9/none', buyer: { name: 'A', phone: '08123456789', email: 'a@b.co' }, items: [{ product: 'K', qty: 1, price: 10000 }], shipment }));
  }
  const idle = performance.now();
  await sb.advanceClock(60_000);
  const idleMs = performance.now() - idle;
  const t0 = performance.now();
  await sb.advanceClock(3 * 86_400_000);
  const ms = performance.now() - t0;
  console.log(`${withDir ? 'data dir ' : 'in memory'}: ${sb.state.count({ status: 'berhasil' })}/${n} COD parcels delivered by one advance in ${ms.toFixed(0)} ms (${((ms * 1000) / n).toFixed(0)} us each, 3 steps); a sweep with none due ${idleMs.toFixed(0)} ms`);
  await sb.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
}
