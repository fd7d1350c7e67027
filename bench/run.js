// paycli benchmarks: every figure is a ratio against bare Node measured in the same run on the same
// machine. Writes BENCHMARKS.md. Run with `npm run bench` (it builds first).
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { signCallbackRequest } from '../dist/core/callback/build.js';
import { sampleCallbackFields } from '../dist/core/callback/sample.js';
import { startSandbox } from '../dist/sandbox.js';
import { buildSignedRequest } from '../dist/core/api/signed-request.js';

const ROOT = new URL('..', import.meta.url).pathname;
const BIN = join(ROOT, 'bin/paycli.js');
const FIXTURE = join(ROOT, 'test/fixtures/callback-qris-sandbox.form');
const VA = '1179000899';
const KEY = 'SANDBOX-PAYCLI-LOCAL-0000-KEY';
const RUNS = Number(process.env.BENCH_RUNS ?? 21);
const tmp = mkdtempSync(join(tmpdir(), 'paycli-bench-'));
const baseEnv = { PATH: process.env.PATH, HOME: tmp, XDG_CACHE_HOME: join(tmp, 'cache'), XDG_DATA_HOME: join(tmp, 'data') };
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const r2 = (x) => Math.round(x * 100) / 100;

function timeOnce(args, env = {}) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { env: { ...baseEnv, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0 && r.status !== 6) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

function spawnJsonLine(args, env = {}) {
  const child = spawn(process.execPath, args, { env: { ...baseEnv, ...env }, stdio: ['ignore', 'pipe', 'ignore'] });
  return new Promise((resolve) => {
    createInterface({ input: child.stdout }).once('line', (line) => resolve({ child, first: JSON.parse(line) }));
  });
}

const results = {};
// The timed commands run with spawnSync, which blocks this process: the emulator they talk to runs in its own.
const sbProc = await spawnJsonLine([BIN, 'sandbox', '--port', '0', '--in-memory', '--json']);
const localEnv = { PAYCLI_ENV: 'local', PAYCLI_BASE_URL: sbProc.first.baseUrl };

// 1. Cold start, interleaved, medians.
{
  const cases = {
    'node -e 0': ['-e', '0'],
    'paycli --version': [BIN, '--version'],
    'paycli --help': [BIN, '--help'],
    'paycli verify-callback <fixture>': [BIN, 'verify-callback', FIXTURE, '--va', VA, '--signature', 'c9594cc8c9f5811ecf22422eed1c8071f7837211f58956f616658a904d94f024'],
    'paycli areas province (emulator, no cache)': [BIN, 'areas', 'province', '--no-cache'],
    'paycli areas province (disk cache)': [BIN, 'areas', 'province'],
  };
  timeOnce(cases['paycli areas province (disk cache)'], localEnv); // fills the cache
  const times = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
  for (let i = 0; i < RUNS; i++) for (const [k, args] of Object.entries(cases)) times[k].push(timeOnce(args, localEnv));
  const base = median(times['node -e 0']);
  results.cold = Object.entries(times).map(([k, t]) => ({ name: k, medianMs: r2(median(t)), ratio: r2(median(t) / base) }));
  sbProc.child.kill('SIGTERM');
}
const sb = await startSandbox({ port: 0 });

// 2. Batch verification of 50 000 captures.
{
  const file = join(tmp, 'captures.jsonl');
  const lines = [];
  for (let i = 0; i < 50_000; i++) {
    const s = signCallbackRequest(sampleCallbackFields({ status: 'berhasil', method: i % 3 ? 'va' : 'qris', channel: i % 3 ? 'bca' : 'mpm', now: new Date(), url: 'https://shop.example/ipaymu/callback', trxId: 200000 + i }), VA, i % 2 ? 'json' : 'form', new Date(), String(i));
    lines.push(JSON.stringify({ headers: s.headers, body: s.body }));
  }
  writeFileSync(file, lines.join('\n') + '\n');
  const paycli = [];
  const bare = [];
  for (let i = 0; i < 5; i++) {
    paycli.push(timeOnce([BIN, 'verify-callback', '--jsonl', file, '--va', VA]));
    bare.push(timeOnce([join(ROOT, 'bench/bare-verify.js'), file, VA]));
  }
  results.batch = { captures: 50_000, paycliMs: r2(median(paycli)), bareMs: r2(median(bare)), ratio: r2(median(paycli) / median(bare)), capturesPerSecond: Math.round(50_000 / (median(paycli) / 1000)) };
}

// 3. Listener throughput against a bare node:http server, same load generator: both servers run side
// by side and take turns (warm-up, then 5 interleaved rounds each); medians of each.
{
  const ROUNDS = 5;
  const load = (url) => JSON.parse(spawnSync(process.execPath, [join(ROOT, 'bench/load.js'), url, '20000', '50', VA], { encoding: 'utf8' }).stdout);
  const bareSrv = await spawnJsonLine([join(ROOT, 'bench/bare-server.js')]);
  const bareUrl = `http://127.0.0.1:${bareSrv.first.port}/`;
  const listenProc = spawn(process.execPath, [BIN, 'listen', '--port', '0', '--json', '--store', join(tmp, 'events.jsonl'), '--va', VA], { env: baseEnv, stdio: ['ignore', 'ignore', 'pipe'] });
  const url = await new Promise((resolve) => createInterface({ input: listenProc.stderr }).on('line', (l) => {
    const m = /"url":"([^"]+)"/.exec(l);
    if (m) resolve(m[1]);
  }));
  load(bareUrl); // warm-up
  load(url);
  const bareRuns = [];
  const paycliRuns = [];
  for (let i = 0; i < ROUNDS; i++) {
    bareRuns.push(load(bareUrl));
    paycliRuns.push(load(url));
  }
  bareSrv.child.kill();
  listenProc.kill('SIGTERM');
  await new Promise((r) => listenProc.on('exit', r));
  const byRps = (runs) => [...runs].sort((a, b) => a.rps - b.rps)[Math.floor(runs.length / 2)];
  const bareRes = byRps(bareRuns);
  const listenRes = byRps(paycliRuns);
  const stored = readFileSync(join(tmp, 'events.jsonl'), 'utf8').split('\n').filter(Boolean).length;
  // A restart on that store: the listener reads it to recognise retries of earlier callbacks.
  const t0 = performance.now();
  const again = spawn(process.execPath, [BIN, 'listen', '--port', '0', '--json', '--store', join(tmp, 'events.jsonl'), '--va', VA], { env: baseEnv, stdio: ['ignore', 'ignore', 'pipe'] });
  await new Promise((resolve) => createInterface({ input: again.stderr }).on('line', (l) => l.includes('"listening"') && resolve()));
  const restartMs = performance.now() - t0;
  const restartRssMiB = Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${again.pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  again.kill('SIGTERM');
  await new Promise((r) => again.on('exit', r));
  const storeMiB = statSync(join(tmp, 'events.jsonl')).size / 2 ** 20;
  results.listener = { restartMs: r2(restartMs), restartRssMiB: r2(restartRssMiB), storeMiB: r2(storeMiB), requests: 20_000, rounds: ROUNDS, concurrency: 50, bareRps: Math.round(bareRes.rps), paycliRps: Math.round(listenRes.rps), ratio: r2(listenRes.rps / bareRes.rps), bareP99: bareRes.p99, paycliP99: listenRes.p99, paycliP50: listenRes.p50, failures: paycliRuns.reduce((n, r) => n + r.failures, 0), stored, storedExpected: 20_000 * (ROUNDS + 1) };
}

// 4. Emulator: start-up to the first answered request, memory, village lookups/s, payments/s with callbacks.
{
  const t0 = process.hrtime.bigint();
  const { child, first } = await spawnJsonLine([BIN, 'sandbox', '--port', '0', '--in-memory', '--json']);
  const req = buildSignedRequest({ baseUrl: first.baseUrl, path: 'areas/province', method: 'GET', credentials: { va: VA, apiKey: KEY }, now: new Date() });
  const res = await fetch(req.url, { headers: req.headers });
  await res.text();
  const startupMs = Number(process.hrtime.bigint() - t0) / 1e6;
  const nodeStart = median(Array.from({ length: 5 }, () => timeOnce(['-e', '0'])));
  const status = spawnSync('ps', ['-o', 'rss=', '-p', String(child.pid)], { encoding: 'utf8' });
  child.kill('SIGTERM');
  // village lookups and payments against the in-process emulator
  const villages = [...sb.regions.children.keys()].filter((k) => k.length === 6).slice(0, 2000);
  const { Pool } = await import('undici');
  const pool = new Pool(new URL(sb.apiUrl).origin, { connections: 20 });
  let i = 0;
  const t1 = performance.now();
  await Promise.all(Array.from({ length: 20 }, async () => {
    while (i < 10_000) {
      const code = villages[i++ % villages.length];
      const r = buildSignedRequest({ baseUrl: sb.apiUrl, path: `areas/village/${code}`, method: 'GET', credentials: { va: VA, apiKey: KEY }, now: new Date() });
      const x = await pool.request({ path: new URL(r.url).pathname, method: 'GET', headers: r.headers });
      await x.body.text();
    }
  }));
  const lookupsPerSecond = Math.round(10_000 / ((performance.now() - t1) / 1000));
  const { createServer } = await import('node:http');
  let delivered = 0;
  const rx = createServer((q, s) => { q.resume(); q.on('end', () => { delivered++; s.end('ok'); }); });
  await new Promise((r) => rx.listen(0, '127.0.0.1', r));
  const notifyUrl = `http://127.0.0.1:${rx.address().port}/cb`;
  const persistent = await startSandbox({ port: 0, dataDir: join(tmp, 'sb') });
  const p2 = new Pool(new URL(persistent.apiUrl).origin, { connections: 20 });
  let j = 0;
  const ids = [];
  const t2 = performance.now();
  await Promise.all(Array.from({ length: 20 }, async () => {
    while (j < 2000) {
      j++;
      const body = JSON.stringify({ name: 'Putu', phone: '08123456789', email: 'p@x.co', amount: 10000, notifyUrl, paymentMethod: 'va', paymentChannel: 'bca', product: ['A'], qty: [1], price: [10000] });
      const r = buildSignedRequest({ baseUrl: persistent.apiUrl, path: 'v2/payment/direct', method: 'POST', body, credentials: { va: VA, apiKey: KEY }, now: new Date() });
      const x = await p2.request({ path: new URL(r.url).pathname, method: 'POST', headers: r.headers, body });
      ids.push((await x.body.json()).Data.TransactionId);
    }
  }));
  await Promise.all(ids.map((id) => persistent.pay(String(id))));
  await persistent.idle(60_000);
  const paymentsPerSecond = Math.round(2000 / ((performance.now() - t2) / 1000));
  await p2.close();
  await pool.close();
  await persistent.close();
  rx.close();
  results.emulator = { startupMs: r2(startupMs), startupRatio: r2(startupMs / nodeStart), rssMiB: r2(Number(status.stdout.trim()) / 1024), lookupsPerSecond, paymentsPerSecond, callbacksDelivered: delivered };
}
await sb.close();
rmSync(tmp, { recursive: true, force: true });

const cold = (name) => results.cold.find((c) => c.name === name);
const targets = [
  ['paycli --version', 1.25], ['paycli --help', 1.5], ['paycli verify-callback <fixture>', 1.5], ['paycli areas province (emulator, no cache)', 2.5],
];
const mark = (ok) => (ok ? 'met' : '**missed**');
const md = `# Benchmarks

Measured by \`npm run bench\` (bench/run.js) on ${new Date().toISOString().slice(0, 10)}: ${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, loopback only.
Every figure is a ratio against bare Node in the same run; absolute times are for orientation only.

## 1. Cold start (median of ${RUNS} interleaved runs, ÷ \`node -e 0\`)

| command | median ms | above \`node -e 0\` | ratio | target |
|---|---:|---:|---:|---|
${results.cold.map((c) => { const t = targets.find(([n]) => n === c.name); return `| \`${c.name}\` | ${c.medianMs} | ${c.name === 'node -e 0' ? '' : `${r2(c.medianMs - results.cold[0].medianMs)} ms`} | ${c.ratio}× | ${t ? `≤ ${t[1]}× — ${mark(c.ratio <= t[1])}` : ''} |`; }).join('\n')}

Stdout is \`/dev/null\` and stderr a pipe, as for \`node -e 0\`. The ratio depends on how fast this machine starts
Node itself; the time above it is paycli's own and varies less from machine to machine.

## 2. Batch verification (\`verify-callback --jsonl\`, ${results.batch.captures.toLocaleString('en')} captures, median of 5)

paycli ${results.batch.paycliMs} ms vs a bare loop that only parses each line and HMACs the body ${results.batch.bareMs} ms:
**${results.batch.ratio}×** (target ≤ 2.5× — ${mark(results.batch.ratio <= 2.5)}); ${results.batch.capturesPerSecond.toLocaleString('en')} captures/s including process start.

## 3. Listener (${results.listener.requests.toLocaleString('en')} signed callbacks per round, concurrency ${results.listener.concurrency}, same generator; median of ${results.listener.rounds} interleaved rounds)

| server | requests/s | p99 ms |
|---|---:|---:|
| bare \`node:http\` (read body, answer 200) | ${results.listener.bareRps} | ${results.listener.bareP99} |
| \`paycli listen\` (verify + store + NDJSON) | ${results.listener.paycliRps} | ${results.listener.paycliP99} (p50 ${results.listener.paycliP50}) |

Throughput ratio **${results.listener.ratio}×** (target ≥ 0.5× — ${mark(results.listener.ratio >= 0.5)}); ${results.listener.failures} non-200 answers; ${results.listener.stored.toLocaleString('en')} of ${results.listener.storedExpected.toLocaleString('en')} requests stored (rounds and warm-up).
A restart on that store (${results.listener.storeMiB} MiB, read to recognise retries) listens after ${results.listener.restartMs} ms, peak RSS ${results.listener.restartRssMiB} MiB.

## 4. Emulator

- start-up to the first answered request, all ${'83,763'} villages indexed: ${results.emulator.startupMs} ms (${results.emulator.startupRatio}× \`node -e 0\`)
- RSS after start: ${results.emulator.rssMiB} MiB
- village lookups: ${results.emulator.lookupsPerSecond.toLocaleString('en')}/s (signed GETs, 20 connections)
- payments with a journal on disk: ${results.emulator.paymentsPerSecond.toLocaleString('en')}/s created, paid and called back (${results.emulator.callbacksDelivered} callbacks delivered to a local receiver)

## 5. Areas: disk cache vs emulator

\`areas province\` from the disk cache ${cold('paycli areas province (disk cache)').medianMs} ms (${cold('paycli areas province (disk cache)').ratio}×) vs from the emulator ${cold('paycli areas province (emulator, no cache)').medianMs} ms (${cold('paycli areas province (emulator, no cache)').ratio}×).
`;
const previous = (() => { try { return readFileSync(join(ROOT, 'BENCHMARKS.md'), 'utf8').split('\n## What changed')[1]; } catch { return undefined; } })();
writeFileSync(join(ROOT, 'BENCHMARKS.md'), md + (previous ? `\n## What changed${previous}` : ''));
console.log(md);
