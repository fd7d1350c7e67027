// How fast `paycli listen` answers valid callbacks while three clients post forged 1 MiB callbacks
// in a loop (issue 13 item 7), and how large the process grows: figures, not a test (the test,
// test/e2e/listener-dos.test.ts, checks the behaviour by ordering). Prints the latency of 100 valid
// callbacks (median, p90, max) with and without the flood, and the maximum RSS.
// Usage: node bench/listener-dos.js   (build first: npm run build; Linux, for /proc)
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { request } from 'undici';
import { signCallbackRequest } from '../dist/core/callback/build.js';
import { sampleCallbackFields } from '../dist/core/callback/sample.js';

const ROOT = new URL('..', import.meta.url).pathname;
const VA = '1179000899';
const VALID = Number(process.env.BENCH_VALID ?? 100);
const rssMiB = (pid) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
const pct = (xs, f) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(f * xs.length))];
const r1 = (x) => Math.round(x * 10) / 10;

const child = spawn(process.execPath, [join(ROOT, 'bin/paycli.js'), 'listen', '--port', '0', '--json', '--va', VA, '--no-persist'], {
  env: { PATH: process.env.PATH, HOME: '/nonexistent' },
  stdio: ['ignore', 'ignore', 'pipe'],
});
const url = await new Promise((resolve) =>
  createInterface({ input: child.stderr }).on('line', (l) => /"url":"([^"]+)"/.exec(l) && resolve(/"url":"([^"]+)"/.exec(l)[1])),
);

async function validRound(offset) {
  const ms = [];
  for (let i = 0; i < VALID; i++) {
    const trxId = offset + i;
    const s = signCallbackRequest(
      sampleCallbackFields({ status: 'berhasil', method: 'va', channel: 'bca', now: new Date(), url, trxId }),
      VA,
      i % 2 ? 'json' : 'form',
      new Date(),
      String(trxId),
    );
    const t0 = performance.now();
    const res = await request(url, { method: 'POST', headers: s.headers, body: s.body });
    await res.body.text();
    ms.push(performance.now() - t0);
    if (res.statusCode !== 200) throw new Error(`valid callback answered ${res.statusCode}`);
  }
  return ms;
}

const quiet = await validRound(800000);
const size = 1024 * 1024 - 2048;
const head = 'trx_id=1&status=berhasil&status_code=1&amount=1000&buyer_name=';
const bodies = [
  { type: 'application/x-www-form-urlencoded', body: head + 'x'.repeat(size - head.length) },
  { type: 'application/x-www-form-urlencoded', body: head + '%C3%96%2F'.repeat(Math.floor((size - head.length) / 9)) },
  {
    type: 'application/json',
    body: JSON.stringify({ trx_id: 1, status: 'berhasil', status_code: 1, amount: '1000', buyer_name: 'Ö"/'.repeat(Math.floor(size / 5)) }),
  },
];
let stop = false;
let forged = 0;
const attackers = bodies.map(async (b) => {
  while (!stop) {
    const res = await request(url, { method: 'POST', headers: { 'content-type': b.type, 'x-signature': 'ab'.repeat(32) }, body: b.body });
    await res.body.text();
    forged++;
  }
});
let maxRss = rssMiB(child.pid);
const sampler = setInterval(() => (maxRss = Math.max(maxRss, rssMiB(child.pid))), 20);
while (forged < 6) await new Promise((r) => setTimeout(r, 10));
const flood = await validRound(900000);
stop = true;
await Promise.all(attackers);
clearInterval(sampler);
child.kill('SIGTERM');
const line = (name, ms) => `${name.padEnd(22)} median ${r1(pct(ms, 0.5))} ms  p90 ${r1(pct(ms, 0.9))} ms  max ${r1(Math.max(...ms))} ms`;
console.log(line(`${VALID} valid, quiet`, quiet));
console.log(line(`${VALID} valid, flood`, flood));
console.log(`forged 1 MiB posts answered: ${forged}; max RSS under the flood ${Math.round(maxRss)} MiB`);
