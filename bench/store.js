// The emulator's ledger (SQLite) at scale: `sandbox seed` of N payments (70 % paid, each paid one
// with a delivered callback), then a restart on it and the queries a merchant and the dashboard make.
// Run alone with `node bench/store.js` (after `npm run build`; BENCH_STORE_N=1000000 by default) or
// as part of `npm run bench` (BENCH_ONLY=store for this section only).
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Pool } from 'undici';
import { buildSignedRequest } from '../dist/core/api/signed-request.js';

const ROOT = new URL('..', import.meta.url).pathname;
const BIN = join(ROOT, 'bin/paycli.js');
const VA = '1179000899';
const KEY = 'SANDBOX-PAYCLI-LOCAL-0000-KEY';
const r2 = (x) => Math.round(x * 100) / 100;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const dirSize = (dir) => ['ledger.db', 'ledger.db-wal'].reduce((n, f) => { try { return n + statSync(join(dir, f)).size; } catch { return n; } }, 0);
const rssMiB = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

function seed(env, dataDir, payments, paid) {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [BIN, 'sandbox', 'seed', '--payments', String(payments), '--paid', String(paid), '--days', '90', '--data-dir', dataDir, '--json'], { env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`seed exited ${r.status}: ${r.stderr}`);
  return (performance.now() - t0) / 1000;
}

/** Starts the emulator on a data dir; resolves at its first answered API request. */
async function start(env, dataDir) {
  const t0 = performance.now();
  const child = spawn(process.execPath, [BIN, 'sandbox', '--port', '0', '--data-dir', dataDir, '--json', '--retry-schedule', '1h'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  const first = await new Promise((resolve) => createInterface({ input: child.stdout }).once('line', (l) => resolve(JSON.parse(l))));
  const pool = new Pool(first.url, { connections: 4 });
  const call = async (method, path, body) => {
    const req = path.startsWith('v2/')
      ? buildSignedRequest({ baseUrl: first.baseUrl, path, method, body, credentials: { va: VA, apiKey: KEY }, now: new Date() })
      : { url: `${first.url}${path}`, headers: {} };
    const t = performance.now();
    const res = await pool.request({ path: new URL(req.url).pathname + new URL(req.url).search, method, headers: req.headers, body });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`${method} ${path}: HTTP ${res.statusCode} ${text.slice(0, 200)}`);
    return { ms: performance.now() - t, text };
  };
  await call('POST', 'v2/transaction', JSON.stringify({ transactionId: 100_001 }));
  return { child, first, pool, call, firstAnswerMs: performance.now() - t0 };
}

/** Runs `fn` `runs` times; median and max ms. */
async function timed(runs, fn) {
  const xs = [];
  for (let i = 0; i < runs; i++) xs.push((await fn(i)).ms);
  return { medianMs: r2(median(xs)), maxMs: r2(Math.max(...xs)) };
}

/** Measures the store at N payments; returns the figures (see BENCHMARKS.md, "Emulator ledger"). */
export async function benchStore({ n = Number(process.env.BENCH_STORE_N ?? 1_000_000), runs = 30 } = {}) {
  const tmp = mkdtempSync(join(tmpdir(), 'paycli-bench-store-'));
  const env = { PATH: process.env.PATH, HOME: tmp, XDG_CACHE_HOME: join(tmp, 'cache'), XDG_DATA_HOME: join(tmp, 'data') };
  try {
    const dataDir = join(tmp, 'big');
    const seedS = seed(env, dataDir, n, 0.7);
    const ledgerMiB = dirSize(dataDir) / 2 ** 20;
    const sb = await start(env, dataDir);
    const restartRssMiB = rssMiB(sb.child.pid);
    // A ping every 5 ms on its own connection while the queries run: the longest wait is the longest the event loop was blocked.
    let pinging = true;
    let maxPingMs = 0;
    const pinger = (async () => {
      const ping = new Pool(sb.first.url, { connections: 1 });
      while (pinging) {
        const t = performance.now();
        const r = await ping.request({ path: '/_sandbox/health', method: 'GET' });
        await r.body.text();
        maxPingMs = Math.max(maxPingMs, performance.now() - t);
        await new Promise((res) => setTimeout(res, 5));
      }
      await ping.close();
    })();
    const day = new Date(Date.now() - 45 * 86_400_000 + 7 * 3_600_000).toISOString().slice(0, 10);
    const history = (body) => () => sb.call('POST', 'v2/history', JSON.stringify(body));
    const lastId = 100_000 + n;
    const figures = {
      historyDate: await timed(runs, history({ startdate: day, enddate: day })),
      historyStatus: await timed(runs, history({ status: 1 })),
      historyStatusPending: await timed(runs, history({ status: 0 })),
      historyDeepPage: await timed(runs, history({ page: 1000 })),
      transaction: await timed(runs, (i) => sb.call('POST', 'v2/transaction', JSON.stringify({ transactionId: 100_001 + ((i * 7919) % n) }))),
      balance: await timed(runs, () => sb.call('POST', 'v2/balance', JSON.stringify({ account: VA }))),
      listPage: await timed(runs, () => sb.call('GET', '/_sandbox/transactions?limit=100')),
      dashboard: await timed(runs, () => sb.call('GET', '/')),
      dashboardFiltered: await timed(runs, () => sb.call('GET', '/?status=pending&method=qris')),
      pay: await timed(Math.min(runs, 10), async (i) => sb.call('POST', `/_sandbox/transactions/${lastId - i}/pay`)).catch(() => null),
    };
    pinging = false;
    await pinger;
    const afterRssMiB = rssMiB(sb.child.pid);
    await sb.pool.close();
    sb.child.kill('SIGTERM');
    await new Promise((r) => sb.child.on('exit', r));

    // The list that was quadratic: 51 000 transactions, 20 000 paid, every page (the whole command).
    const listDir = join(tmp, 'list');
    seed(env, listDir, 51_000, 20_000 / 51_000);
    const small = await start(env, listDir);
    const listEnv = { ...env, PAYCLI_SANDBOX_URL: small.first.url };
    const t0 = performance.now();
    const all = spawnSync(process.execPath, [BIN, 'sandbox', 'list', '--all', '--json', '--limit', '1000'], { env: listEnv, encoding: 'utf8', maxBuffer: 1 << 30 });
    const listAllS = (performance.now() - t0) / 1000;
    if (all.status !== 0) throw new Error(`sandbox list --all exited ${all.status}: ${all.stderr}`);
    const listed = all.stdout.trim().split('\n').length;
    const t1 = performance.now();
    const one = spawnSync(process.execPath, [BIN, 'sandbox', 'list'], { env: listEnv, encoding: 'utf8' });
    const listOneMs = performance.now() - t1;
    if (one.status !== 0) throw new Error(`sandbox list exited ${one.status}: ${one.stderr}`);
    await small.pool.close();
    small.child.kill('SIGTERM');
    await new Promise((r) => small.child.on('exit', r));
    return {
      payments: n, seedS: r2(seedS), ledgerMiB: r2(ledgerMiB), firstAnswerMs: r2(sb.firstAnswerMs), restartRssMiB: r2(restartRssMiB), afterQueriesRssMiB: r2(afterRssMiB),
      ...figures, maxEventLoopBlockMs: r2(maxPingMs),
      list51k: { listed, allPagesS: r2(listAllS), onePageCommandMs: r2(listOneMs) },
    };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(JSON.stringify(await benchStore(), null, 2));
