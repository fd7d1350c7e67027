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
const dirSize = (dir) =>
  ['ledger.db', 'ledger.db-wal'].reduce((n, f) => {
    try {
      return n + statSync(join(dir, f)).size;
    } catch {
      return n;
    }
  }, 0);
const CLK_TCK = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;
/** CPU time (user + system) a process has used, in ms: what a request costs the server, whatever else runs on the machine. */
const cpuMs = (pid) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(f[11]) + Number(f[12])) * 1000) / CLK_TCK;
};
const rssMiB = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

/** Seeds a data dir; wall seconds, and the CPU seconds the command used (from bash's `times`: the machine may be shared). */
function seed(env, dataDir, payments, paid) {
  const t0 = performance.now();
  const cmd = `"${process.execPath}" "${BIN}" sandbox seed --payments ${payments} --paid ${paid} --days 90 --data-dir "${dataDir}" --json >/dev/null && times`;
  const r = spawnSync('bash', ['-c', cmd], { env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`seed exited ${r.status}: ${r.stderr}`);
  const [user, sys] = (r.stdout.trim().split('\n').at(-1) ?? '').split(/\s+/).map((t) => {
    const m = /(\d+)m([\d.]+)s/.exec(t);
    return m ? Number(m[1]) * 60 + Number(m[2]) : 0;
  });
  return { wallS: (performance.now() - t0) / 1000, cpuS: (user ?? 0) + (sys ?? 0) };
}

/** Emulators this bench started: stopped when it ends, however it ends. */
const children = new Set();
process.on('exit', () => {
  for (const c of children) c.kill('SIGKILL');
});

/** Starts the emulator on a data dir; resolves at its first answered API request. */
async function start(env, dataDir) {
  spawnSync('sync');
  const t0 = performance.now();
  const child = spawn(process.execPath, [BIN, 'sandbox', '--port', '0', '--data-dir', dataDir, '--json', '--retry-schedule', '1h'], {
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
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
  children.add(child);
  child.on('exit', () => children.delete(child));
  // The first answer: a page of history (answered on an empty ledger too).
  await call('POST', 'v2/history', JSON.stringify({ limit: 1 }));
  return { child, first, pool, call, firstAnswerMs: performance.now() - t0 };
}

/** Runs `fn` `runs` times after one warm-up; median and max ms as the client saw them, and the server's CPU ms per request. */
async function timed(pid, runs, fn) {
  await fn(runs);
  const xs = [];
  const cpu0 = cpuMs(pid);
  for (let i = 0; i < runs; i++) xs.push((await fn(i)).ms);
  return { medianMs: r2(median(xs)), maxMs: r2(Math.max(...xs)), serverCpuMs: r2((cpuMs(pid) - cpu0) / runs) };
}

/** Measures the store at N payments; returns the figures (see BENCHMARKS.md, "Emulator ledger"). */
export async function benchStore({ n = Number(process.env.BENCH_STORE_N ?? 1_000_000), runs = 30 } = {}) {
  const tmp = mkdtempSync(join(tmpdir(), 'paycli-bench-store-'));
  const env = { PATH: process.env.PATH, HOME: tmp, XDG_CACHE_HOME: join(tmp, 'cache'), XDG_DATA_HOME: join(tmp, 'data') };
  try {
    // The same start on an empty data dir: what a restart costs without any history.
    const empty = await start(env, join(tmp, 'empty'));
    const emptyFirstAnswerMs = empty.firstAnswerMs;
    const emptyRssMiB = rssMiB(empty.child.pid);
    await empty.pool.close();
    empty.child.kill('SIGTERM');
    await new Promise((r) => empty.child.on('exit', r));
    const dataDir = join(tmp, 'big');
    const seeded = seed(env, dataDir, n, 0.7);
    const ledgerMiB = dirSize(dataDir) / 2 ** 20;
    const sb = await start(env, dataDir);
    const restartRssMiB = rssMiB(sb.child.pid);
    const day = new Date(Date.now() - 45 * 86_400_000 + 7 * 3_600_000).toISOString().slice(0, 10);
    const history = (body) => () => sb.call('POST', 'v2/history', JSON.stringify(body));
    const lastId = 100_000 + n;
    const pid = sb.child.pid;
    const figures = {
      historyDate: await timed(pid, runs, history({ startdate: day, enddate: day })),
      historyStatus: await timed(pid, runs, history({ status: 1 })),
      historyStatusPending: await timed(pid, runs, history({ status: 0 })),
      historyDeepPage: await timed(pid, runs, history({ page: 1000 })),
      transaction: await timed(pid, runs, (i) => sb.call('POST', 'v2/transaction', JSON.stringify({ transactionId: 100_001 + ((i * 7919) % n) }))),
      balance: await timed(pid, runs, () => sb.call('POST', 'v2/balance', JSON.stringify({ account: VA }))),
      listPage: await timed(pid, runs, () => sb.call('GET', '/_sandbox/transactions?limit=100')),
      dashboard: await timed(pid, runs, () => sb.call('GET', '/')),
      dashboardFiltered: await timed(pid, runs, () => sb.call('GET', '/?status=pending&method=qris')),
      pay: await timed(pid, Math.min(runs, 10), async (i) => sb.call('POST', `/_sandbox/transactions/${lastId - i}/pay`)).catch(() => null),
    };
    // Then each request again, with a ping every 5 ms on its own connection: the longest a ping
    // waited is the longest the event loop was blocked (plus whatever the machine's load added).
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
    for (let round = 0; round < 3; round++) {
      await history({ startdate: day, enddate: day })();
      await history({ status: 1 })();
      await history({ page: 1000 })();
      await sb.call('POST', 'v2/transaction', JSON.stringify({ transactionId: 100_001 + round }));
      await sb.call('POST', 'v2/balance', JSON.stringify({ account: VA }));
      await sb.call('GET', '/_sandbox/transactions?limit=100');
      await sb.call('GET', '/');
      await new Promise((r) => setTimeout(r, 50));
    }
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
    const all = spawnSync(process.execPath, [BIN, 'sandbox', 'list', '--all', '--json', '--limit', '1000'], {
      env: listEnv,
      encoding: 'utf8',
      maxBuffer: 1 << 30,
    });
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
      payments: n,
      seedS: r2(seeded.wallS),
      seedCpuS: r2(seeded.cpuS),
      emptyFirstAnswerMs: r2(emptyFirstAnswerMs),
      emptyRssMiB: r2(emptyRssMiB),
      ledgerMiB: r2(ledgerMiB),
      firstAnswerMs: r2(sb.firstAnswerMs),
      restartRssMiB: r2(restartRssMiB),
      afterQueriesRssMiB: r2(afterRssMiB),
      ...figures,
      maxEventLoopBlockMs: r2(maxPingMs),
      list51k: { listed, allPagesS: r2(listAllS), onePageCommandMs: r2(listOneMs) },
    };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** BENCHMARKS.md's section for these figures (`npm run bench` writes it; `node bench/store.js --markdown` prints it). */
export function storeSection(st) {
  const mark = (ok) => (ok ? 'met' : '**missed**');
  const row = (name, f, target) =>
    `| ${name} | ${f.medianMs} | ${f.maxMs} | ${f.serverCpuMs} | ${target ? `≤ ${target} ms — ${mark(f.medianMs <= target)}` : ''} |`;
  return `## 7. Emulator ledger (SQLite, ${st.payments.toLocaleString('en')} payments, 70 % paid with a delivered callback)

| | figure | target |
|---|---:|---|
| \`sandbox seed --payments ${st.payments}\` | ${st.seedS} s (${st.seedCpuS} s CPU) | ≤ 90 s — ${mark(st.seedS <= 90)} |
| ledger size | ${st.ledgerMiB} MiB | |
| restart to the first answer | ${st.firstAnswerMs} ms (empty data dir: ${st.emptyFirstAnswerMs} ms) | ≤ 1000 ms — ${mark(st.firstAnswerMs <= 1000)} |
| RSS after restart | ${st.restartRssMiB} MiB (empty: ${st.emptyRssMiB} MiB; after the queries below ${st.afterQueriesRssMiB} MiB) | ≤ 150 MiB — ${mark(st.restartRssMiB <= 150)} |
| longest event-loop block (a ping every 5 ms during the queries) | ${st.maxEventLoopBlockMs} ms | ≤ 50 ms — ${mark(st.maxEventLoopBlockMs <= 50)} |

| request (30 runs after a warm-up) | median ms | max ms | server CPU ms per request | target |
|---|---:|---:|---:|---|
${row('POST v2/history, one day (date filter)', st.historyDate, 20)}
${row('POST v2/history, status 1 (paid)', st.historyStatus, 20)}
${row('POST v2/history, status 0 (pending)', st.historyStatusPending, 20)}
${row('POST v2/history, page 1000', st.historyDeepPage)}
${row('POST v2/transaction', st.transaction, 5)}
${row('POST v2/balance', st.balance)}
${row('sandbox list, one page (admin API, 100 rows)', st.listPage, 50)}
${row('dashboard `/`', st.dashboard, 50)}
${row('dashboard `/?status=pending&method=qris`', st.dashboardFiltered, 50)}
${st.pay ? row('pay (transition + callback queued, committed)', st.pay) : ''}

\`sandbox list --all\` of ${st.list51k.listed.toLocaleString('en')} transactions (20 000 paid), the whole command: ${st.list51k.allPagesS} s; one page (\`sandbox list\`): ${st.list51k.onePageCommandMs} ms.
Server CPU per request is the emulator's utime + stime from \`/proc\` over the 30 runs: it moves much
less than the times when the machine is shared.`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const st = await benchStore();
  console.log(process.argv.includes('--markdown') ? storeSection(st) : JSON.stringify(st, null, 2));
}
