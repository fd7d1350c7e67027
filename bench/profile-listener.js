// Where the listener's CPU goes: runs `paycli listen` under `node --cpu-prof`, drives it with wrk
// (one signed form callback, -t2 -c32) and prints self time by area, in µs per request.
// Usage: node bench/profile-listener.js [SECONDS]   (build first: npm run build)
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { VA, writeWrkScript } from './sample-callback.js';

const ROOT = new URL('..', import.meta.url).pathname;
const seconds = Number(process.argv[2] ?? 5);
const tmp = mkdtempSync(join(tmpdir(), 'paycli-prof-'));
const script = join(tmp, 'cb.lua');
writeWrkScript(script);
const child = spawn(
  process.execPath,
  ['--cpu-prof', `--cpu-prof-dir=${tmp}`, join(ROOT, 'bin/paycli.js'), 'listen', '--port', '0', '--json', '--store', join(tmp, 'events.db'), '--va', VA],
  { env: { PATH: process.env.PATH, HOME: tmp }, stdio: ['ignore', 'ignore', 'pipe'] },
);
const url = await new Promise((resolve) =>
  createInterface({ input: child.stderr }).on('line', (l) => /"url":"([^"]+)"/.exec(l) && resolve(/"url":"([^"]+)"/.exec(l)[1])),
);
const out = spawnSync('wrk', ['-t2', '-c32', `-d${seconds}s`, '-s', script, url], { encoding: 'utf8' }).stdout;
const requests = Number(/(\d+) requests in/.exec(out)[1]);
child.kill('SIGINT');
await new Promise((r) => child.on('exit', r));
const profile = JSON.parse(
  readFileSync(
    join(
      tmp,
      readdirSync(tmp).find((f) => f.endsWith('.cpuprofile')),
    ),
    'utf8',
  ),
);

// Self time per node, from the samples and their time deltas.
const self = new Map();
profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
// The CLI runs from one bundle, without whitespace: its frames are mapped back to their modules by the
// `/*! paycli-module dist/… */` comment scripts/bundle.js leaves where each module starts.
const bundleText = (() => {
  try {
    return readFileSync(join(ROOT, 'dist/cli/paycli.cjs'), 'utf8');
  } catch {
    return '';
  }
})();
const lineStarts = [0];
for (let i = bundleText.indexOf('\n'); i >= 0; i = bundleText.indexOf('\n', i + 1)) lineStarts.push(i + 1);
const bundleSections = [...bundleText.matchAll(/\/\*! paycli-module (\S+) \*\//g)].map((m) => [m.index, m[1]]);
function moduleOf(f) {
  if (!f.url.endsWith('paycli.cjs')) return f.url;
  // Line 0 is the content id; bin/paycli.js's wrapper shifts only its columns.
  const at = (lineStarts[f.lineNumber] ?? Infinity) + f.columnNumber;
  let found = f.url;
  for (const [offset, name] of bundleSections) {
    if (offset > at) break;
    found = name;
  }
  return found;
}
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
// An area per frame, by the first of its ancestors (itself first) that names one.
const AREAS = [
  ['event store (SQLite)', /event-store|better-sqlite3|better_sqlite3|\.node$/],
  ['callback check (callback/verifier: fast path, canonical bytes)', /callback\/verifier|callback\/form-bytes|callback\/form-value/],
  ['canonical JSON', /callback-canonical|php-json/],
  ['form/JSON parsing', /callback\/parse/],
  ['HMAC and compare', /callback-signature|digest|createHmac|crypto|timingSafeEqual/],
  // JSON.stringify's own frame names no module: it is counted with its caller (store line, NDJSON line, …).
  ['NDJSON output', /commands\/listen|output/],
  ['listener logic', /listener\/server|listener\/forward|listener\/event-id|listener\/verify-request|listener\/receive/],
  ['HTTP (node:http, net, streams)', /_http_|node:http|internal\/http|net\.js|node:net|stream|internal\/streams|llhttp|parserOnHeaders|onParser|socket/],
];
function area(id) {
  for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
    const f = byId.get(cur).callFrame;
    const where = `${moduleOf(f)} ${f.functionName}`;
    if (f.functionName === '(garbage collector)') return 'garbage collection';
    if (f.functionName === '(idle)' || f.functionName === '(program)') return f.functionName;
    for (const [name, re] of AREAS) if (re.test(where)) return name;
  }
  return 'other';
}
const totals = new Map();
for (const [id, us] of self) totals.set(area(id), (totals.get(area(id)) ?? 0) + us);
const busy = [...totals].filter(([k]) => k !== '(idle)').reduce((a, [, v]) => a + v, 0);
if (process.env.PROFILE_JSON) {
  console.log(
    JSON.stringify({
      requests,
      seconds,
      usPerRequest: Math.round((10 * busy) / requests) / 10,
      areas: [...totals]
        .filter(([k]) => k !== '(idle)')
        .sort((a, b) => b[1] - a[1])
        .map(([k, v]) => ({ area: k, us: Math.round((10 * v) / requests) / 10, share: Math.round((1000 * v) / busy) / 10 })),
    }),
  );
  rmSync(tmp, { recursive: true, force: true });
  process.exit(0);
}
console.log(`${requests} requests in ${seconds}s; ${(busy / requests).toFixed(1)} µs of listener CPU (sampled, main thread) per request`);
for (const [k, v] of [...totals].filter(([k]) => k !== '(idle)').sort((a, b) => b[1] - a[1]))
  console.log(`${k.padEnd(34)} ${(v / requests).toFixed(1).padStart(6)} µs  ${((100 * v) / busy).toFixed(1).padStart(5)} %`);
if (process.env.PROFILE_TOP) {
  const frames = new Map();
  for (const [id, us] of self) {
    const f = byId.get(id).callFrame;
    const p = parent.get(id) === undefined ? '' : byId.get(parent.get(id)).callFrame.functionName;
    const key = `${area(id)} | ${f.functionName || '(anonymous)'} ${moduleOf(f).split('/').slice(-2).join('/')}:${f.lineNumber} < ${p}`;
    frames.set(key, (frames.get(key) ?? 0) + us);
  }
  for (const [k, v] of [...frames].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.PROFILE_TOP)))
    console.log(`${(v / requests).toFixed(2).padStart(6)} µs  ${k}`);
}
rmSync(tmp, { recursive: true, force: true });
