// The listener's event store with a long history (issue 23): an event store of N events (default
// 1 000 000, BENCH_EVENTS), then `events list` and `events show PREFIX` as whole commands, a listener
// starting on it, and `events prune --keep 1000` while that listener answers valid callbacks.
// Prints one JSON object; bench/run.js runs it (BENCH_ONLY=events) and records it in BENCHMARKS.md.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { signCallbackRequest } from '../dist/core/callback/build.js';
import { sampleCallbackFields } from '../dist/core/callback/sample.js';
import { EventStore } from '../dist/core/listener/event-store.js';

const ROOT = new URL('..', import.meta.url).pathname;
const BIN = join(ROOT, 'bin/paycli.js');
const VA = '1179000899';
const N = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_STORE_RUNS ?? 7);
const tmp = mkdtempSync(join(tmpdir(), 'paycli-bench-events-'));
const env = { PATH: process.env.PATH, HOME: tmp, XDG_DATA_HOME: join(tmp, 'data') };
const store = join(tmp, 'events.db');
const r2 = (x) => Math.round(x * 100) / 100;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// 1. The history: N events over 90 days, 70 % valid callbacks (form and JSON), the rest forged.
const t0 = performance.now();
// Each signed as the gateway would, with transaction ids that grow with time, as the gateway's do.
const callbackAt = (i, at) => {
  const s = signCallbackRequest(
    sampleCallbackFields({
      status: i % 5 === 0 ? 'pending' : 'berhasil',
      method: 'va',
      channel: 'bca',
      now: at,
      url: 'https://shop.example/cb',
      trxId: 100000 + i,
    }),
    VA,
    i % 2 ? 'json' : 'form',
    at,
    String(i),
  );
  const headers = {
    host: '127.0.0.1:8080',
    'content-type': s.headers['Content-Type'],
    'x-signature': s.signature,
    'x-timestamp': s.headers['X-Timestamp'],
    'x-external-id': s.headers['X-External-ID'],
    'content-length': String(Buffer.byteLength(s.body)),
  };
  return { headers, body: s.body, trx: s.fields.trx_id, status: s.fields.status };
};
const es = new EventStore(store);
const db = await es.prepare();
const start = Date.parse('2026-08-24T00:00:00Z');
const step = Math.floor((90 * 86_400_000) / N);
const ids = [];
db.exec('BEGIN');
for (let i = 0; i < N; i++) {
  const at = new Date(start + i * step);
  const t = callbackAt(i, at);
  const valid = i % 10 < 7;
  const id = `evt_${at.getTime().toString(36)}b${i.toString(36).padStart(5, '0')}`;
  if (i % 1000 === 500) ids.push(id);
  await es.append({
    id,
    receivedAt: at.toISOString(),
    method: 'POST',
    path: '/',
    headers: valid ? t.headers : { ...t.headers, 'x-signature': 'ab'.repeat(32) },
    body: t.body,
    verdict: valid ? 'valid' : 'invalid',
    variant: null,
    reason: valid ? null : 'no known variant or key reproduces it',
    duplicate: false,
    trx_id: t.trx,
    status: t.status,
    answer: valid ? 200 : 400,
    source: 'listen',
  });
  if (i % 50_000 === 49_999) {
    db.exec('COMMIT');
    db.exec('BEGIN');
  }
}
db.exec('COMMIT');
await es.close();
const seedS = (performance.now() - t0) / 1000;
const storeMiB = statSync(store).size / 2 ** 20;

// 2. Whole commands, wall time, median of RUNS after one warm-up.
function timeCommand(args) {
  const run = () => {
    const a = performance.now();
    const r = spawnSync(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    if (r.status !== 0) throw new Error(`paycli ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
    return performance.now() - a;
  };
  run();
  return r2(median(Array.from({ length: RUNS }, run)));
}
const nodeMs = r2(
  median(
    Array.from({ length: RUNS }, () => {
      const a = performance.now();
      spawnSync(process.execPath, ['-e', '0']);
      return performance.now() - a;
    }),
  ),
);
const prefix = ids[Math.floor(ids.length / 2)].slice(0, 13); // the time part: unique, one event per ms
const listMs = timeCommand(['events', 'list', '--store', store]);
const listJsonMs = timeCommand(['events', 'list', '--store', store, '--json', '--invalid', '--limit', '20']);
const showMs = timeCommand(['events', 'show', prefix, '--store', store, '--va', VA]);

// 3. A listener on that store: start-up (retries are looked up, not read) and RSS.
const t1 = performance.now();
const listener = spawn(process.execPath, [BIN, 'listen', '--port', '0', '--json', '--store', store, '--va', VA], { env, stdio: ['ignore', 'ignore', 'pipe'] });
const url = await new Promise((resolve) =>
  createInterface({ input: listener.stderr }).on('line', (l) => {
    const m = /"url":"([^"]+)"/.exec(l);
    if (m) resolve(m[1]);
  }),
);
const listenerStartMs = r2(performance.now() - t1);
const listenerRssMiB = r2(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${listener.pid}/status`, 'utf8'))?.[1] ?? 0) / 1024);

// 4. `events prune --keep 1000` while valid callbacks keep arriving (two senders, back to back).
const { request } = await import('undici');
let stop = false;
let trx = 900000;
const latencies = [];
const statuses = new Map();
const send = async () => {
  while (!stop) {
    const now = new Date();
    const s = signCallbackRequest(
      sampleCallbackFields({ status: 'berhasil', method: 'va', channel: 'bca', now, url: 'https://shop.example/cb', trxId: trx++ }),
      VA,
      'form',
      now,
      String(trx),
    );
    const a = performance.now();
    const res = await request(url, { method: 'POST', headers: s.headers, body: s.body });
    await res.body.text();
    latencies.push(performance.now() - a);
    statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
  }
};
const senders = [send(), send()];
await new Promise((r) => setTimeout(r, 500));
const before = latencies.length;
const t2 = performance.now();
const prune = await new Promise((resolve) => {
  const p = spawn(process.execPath, [BIN, 'events', 'prune', '--keep', '1000', '--store', store, '--json'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  p.stdout.on('data', (c) => (out += c));
  p.stderr.on('data', (c) => (err += c));
  p.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : resolve({ error: err })));
});
const pruneS = r2((performance.now() - t2) / 1000);
const during = latencies.slice(before);
stop = true;
await Promise.all(senders);
listener.kill('SIGTERM');
await new Promise((r) => listener.on('exit', r));
const sorted = [...during].sort((a, b) => a - b);
const result = {
  events: N,
  seedS: r2(seedS),
  storeMiB: r2(storeMiB),
  nodeMs,
  listMs,
  listJsonMs,
  showMs,
  showPrefix: prefix,
  listenerStartMs,
  listenerRssMiB,
  prune,
  pruneS,
  callbacksDuringPrune: during.length,
  callbackMedianMs: r2(sorted[Math.floor(sorted.length / 2)] ?? 0),
  callbackP99Ms: r2(sorted[Math.floor(sorted.length * 0.99)] ?? 0),
  callbackMaxMs: r2(sorted.at(-1) ?? 0),
  answers: Object.fromEntries(statuses),
};
rmSync(tmp, { recursive: true, force: true });
console.log(JSON.stringify(result));
