// A closed-loop load generator on loopback: COUNT signed callbacks at CONCURRENCY, then a JSON
// line with throughput and latency percentiles. Usage: node bench/load.js URL COUNT CONCURRENCY VA
import { Pool } from 'undici';
import { signCallbackRequest } from '../dist/core/callback/build.js';
import { sampleCallbackFields } from '../dist/core/callback/sample.js';

const [url, countArg, concArg, va] = process.argv.slice(2);
const count = Number(countArg);
const concurrency = Number(concArg);
const target = new URL(url);
const pool = new Pool(target.origin, { connections: concurrency, pipelining: 1 });
const bodies = Array.from({ length: 500 }, (_, i) => signCallbackRequest(sampleCallbackFields({ status: 'berhasil', method: 'va', channel: 'bca', now: new Date(), url, trxId: 100000 + i }), va, 'form', new Date(), String(i)));
const latencies = new Float64Array(count);
let next = 0;
let failures = 0;
const started = performance.now();
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (next < count) {
      const i = next++;
      const b = bodies[i % bodies.length];
      const t0 = performance.now();
      const res = await pool.request({ path: target.pathname, method: 'POST', headers: b.headers, body: b.body });
      await res.body.text();
      if (res.statusCode !== 200) failures++;
      latencies[i] = performance.now() - t0;
    }
  }),
);
const seconds = (performance.now() - started) / 1000;
latencies.sort();
const pct = (p) => Math.round(latencies[Math.min(count - 1, Math.floor((p / 100) * count))] * 100) / 100;
console.log(JSON.stringify({ count, concurrency, seconds, rps: count / seconds, p50: pct(50), p99: pct(99), failures }));
await pool.close();
