// `events list` with a filter that few events meet (issue: failed or forged callbacks among a
// million): an event store of N events (default 1 000 000, BENCH_EVENTS) with a few rare statuses
// and verdicts, then `events list --status <rare>`, `--status <absent>`, `--invalid` and the plain
// `events list`, each as a whole command (median of BENCH_STORE_RUNS after one warm-up; `firstMs` is
// the warm-up's). BENCH_STORE=<file>: use that store instead (made there when absent, and kept);
// `openMs` is the first open's (a migration when the store is of an older schema). Build first.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventWrites, insertEvents, insertParams } from '../dist/core/listener/event-schema.js';
import { EventStore } from '../dist/core/listener/event-store.js';
import { SAMPLE } from './sample-callback.js';

const ROOT = new URL('..', import.meta.url).pathname;
const BIN = join(ROOT, 'bin/paycli.js');
const N = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_STORE_RUNS ?? 5);
const tmp = mkdtempSync(join(tmpdir(), 'paycli-bench-filters-'));
const env = { PATH: process.env.PATH, HOME: tmp, XDG_DATA_HOME: join(tmp, 'data') };
const store = process.env.BENCH_STORE ?? join(tmp, 'events.db');
const r2 = (x) => Math.round(x * 100) / 100;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Event i's status and verdict: 10 `gagal` and 25 forged or malformed among a million, spread over the history. */
const RARE_STATUS = 'gagal';
const status = (i) => (i % 100_003 === 7 ? RARE_STATUS : i % 5 === 0 ? 'pending' : 'berhasil');
const verdict = (i) => (i % 40_009 === 11 ? 'invalid' : i % 200_003 === 13 ? 'malformed' : 'valid');

let seedS;
if (!existsSync(store)) {
  // The history, written as the listener writes it (insertEvents), in transactions of 50 000.
  const t0 = performance.now();
  const es = new EventStore(store);
  const db = await es.prepare();
  const { insert, summarize } = eventWrites(db);
  const start = Date.parse('2026-08-24T00:00:00Z');
  const step = Math.floor((90 * 86_400_000) / N);
  const headers = Object.fromEntries(Object.entries({ ...SAMPLE.headers, host: '127.0.0.1:8080' }).map(([k, v]) => [k.toLowerCase(), v]));
  const write = db.transaction((rows) => insertEvents(insert, summarize, rows));
  for (let i = 0; i < N; ) {
    const rows = [];
    for (const end = Math.min(N, i + 50_000); i < end; i++) {
      const at = new Date(start + i * step);
      const v = verdict(i);
      rows.push(
        insertParams({
          id: `evt_${at.getTime().toString(36)}b${i.toString(36).padStart(5, '0')}`,
          receivedAt: at.toISOString(),
          method: 'POST',
          path: '/',
          headers,
          body: v === 'malformed' ? '{' : SAMPLE.body.replace('183148', String(100000 + i)),
          verdict: v,
          variant: null,
          reason: v === 'valid' ? null : 'no known variant or key reproduces it',
          duplicate: false,
          trx_id: v === 'malformed' ? null : String(100000 + i),
          status: v === 'malformed' ? null : status(i),
          answer: v === 'valid' ? 200 : 400,
          source: 'listen',
        }),
      );
    }
    write(rows);
  }
  await es.close();
  seedS = r2((performance.now() - t0) / 1000);
}
const storeMiB = r2(statSync(store).size / 2 ** 20);
const t1 = performance.now();
const opened = new EventStore(store);
await opened.prepare();
await opened.close();
const openMs = r2(performance.now() - t1);

/** A whole command's wall time: { firstMs, ms (median of RUNS after it), shown (events listed) }. */
function timeCommand(args) {
  const run = () => {
    const a = performance.now();
    const r = spawnSync(process.execPath, [BIN, ...args, '--store', store, '--json'], { env, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 2 ** 28 });
    if (r.status !== 0) throw new Error(`paycli ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
    return { ms: performance.now() - a, shown: JSON.parse(r.stdout).length };
  };
  const first = run();
  return { firstMs: r2(first.ms), ms: r2(median(Array.from({ length: RUNS }, () => run().ms))), shown: first.shown };
}
const result = {
  events: N,
  seedS,
  storeMiB,
  openMs,
  statusRare: timeCommand(['events', 'list', '--status', RARE_STATUS]),
  statusAbsent: timeCommand(['events', 'list', '--status', 'expired']),
  invalid: timeCommand(['events', 'list', '--invalid']),
  all: timeCommand(['events', 'list']),
};
rmSync(tmp, { recursive: true, force: true });
console.log(JSON.stringify(result));
