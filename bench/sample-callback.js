// The one callback the listener benchmarks send (bench/run.js, profile-listener.js, event-frames.js):
// a signed QRIS form callback, as the gateway sends it, and wrk's script that posts it.
import { writeFileSync } from 'node:fs';
import { signCallbackRequest } from '../dist/core/callback/build.js';
import { sampleCallbackFields } from '../dist/core/callback/sample.js';

export const VA = '1179000899';
const AT = new Date('2026-11-22T07:07:01Z');

export const SAMPLE = signCallbackRequest(
  sampleCallbackFields({ status: 'berhasil', method: 'qris', channel: 'mpm', now: AT, url: 'https://shop.example/ipaymu/callback', trxId: 183148 }),
  VA,
  'form',
  AT,
  '20261122070701000001',
);

/** Writes to `path` a wrk Lua script that POSTs SAMPLE (its body and headers) on every request. */
export function writeWrkScript(path) {
  const lua = (s) => `[==[${s}]==]`;
  const lines = [
    'wrk.method = "POST"',
    `wrk.body = ${lua(SAMPLE.body)}`,
    ...Object.entries(SAMPLE.headers).map(([k, v]) => `wrk.headers[ ${lua(k)} ] = ${lua(v)}`),
  ];
  writeFileSync(path, `${lines.join('\n')}\n`);
}
