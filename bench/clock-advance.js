#!/usr/bin/env node
// How long `clock advance` takes when it expires N pending payments (each stored with its
// callback in one SQLite transaction), in memory and with a data dir. Run after `npm run build`: node bench/clock-advance.js [N]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox } from '../dist/core/sandbox/server.js';

const n = Number(process.argv[2] ?? 1000);
for (const withDir of [false, true]) {
  const dir = withDir ? mkdtempSync(join(tmpdir(), 'paycli-bench-')) : undefined;
  const sb = await startSandbox({ port: 0, dataDir: dir, dashboard: false, expirySweepMs: 3_600_000, retrySchedule: [3_600_000] });
  const base = sb.clock.nowMs();
  for (let i = 0; i < n; i++) {
    await sb.state.addTransaction((id) => ({
      id,
      sid: `s${i}`,
      merchantVa: sb.accounts[0].va,
      referenceId: `R${i}`,
      via: 'va',
      channel: 'bni',
      paymentNo: String(8808000000000000 + id),
      paymentName: 'BNI',
      amount: 10000,
      fee: 4000,
      status: 'pending',
      createdAt: base,
      expiresAt: base + 3_600_000,
      notifyUrl: 'http://127.0.0.1:9/none',
      buyer: { name: 'A', phone: '08123456789', email: 'a@b.co' },
      items: [],
    }));
  }
  const t0 = performance.now();
  await sb.advanceClock(2 * 3_600_000);
  const ms = performance.now() - t0;
  const expired = sb.state.count({ status: 'expired' });
  console.log(
    `${withDir ? 'data dir ' : 'in memory'}: clock advance expired ${expired}/${n} payments (each with its callback stored) in ${ms.toFixed(0)} ms (${((ms * 1000) / n).toFixed(0)} us each)`,
  );
  await sb.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
}
