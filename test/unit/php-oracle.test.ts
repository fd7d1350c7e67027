import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodeFormBody } from '../../src/core/callback/build.js';
import { parseCallbackBody } from '../../src/core/callback/parse.js';
import { canonicalizeCallback } from '../../src/core/signing/callback-canonical.js';
import { hmacHex } from '../../src/core/signing/callback-signature.js';

const php = spawnSync('php', ['-v'], { encoding: 'utf8' });
const havePhp = php.status === 0;
const ORACLE = new URL('../oracle/callback-oracle.php', import.meta.url).pathname;

/** A small deterministic PRNG (mulberry32), so the corpus is the same on every run. */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function corpus(n: number): { format: 'form' | 'json'; body: string; va: string }[] {
  const r = rng(20251111);
  const pick = <T>(xs: T[]): T => xs[Math.floor(r() * xs.length)]!;
  const texts = ['putu', 'Nyoman Ö', 'Ketut & Sons', 'a/b/c', 'https://webhook.site/x?y=1&z=2', '100%', 'ñandú', '日本語', 'emoji 🌺🏝️', '"quoted"', 'back\\slash', '', ' spaced ', 'tab\there', 'plus+sign', '<tag>', "it's"];
  const ints = ['184854', '1', '0', '-2', '6', ' 12', '12abc', 'abc', '', '1e3', '1.9', '000123', '99999999999999999999'];
  const cases: { format: 'form' | 'json'; body: string; va: string }[] = [];
  for (let i = 0; i < n; i++) {
    const fields: Record<string, unknown> = {
      trx_id: pick(ints), sid: `sid-${i}`, reference_id: pick(texts), status: pick(['berhasil', 'pending', 'expired']), status_code: pick(ints),
      sub_total: String(Math.floor(r() * 1e7)), total: String(Math.floor(r() * 1e7)), amount: String(Math.floor(r() * 1e7)), fee: String(Math.floor(r() * 1e4)),
      paid_off: pick(ints), created_at: '2025-11-11 10:10:26', is_escrow: pick(['true', 'false', '1', '0', 'TRUE', '', 'yes']),
      via: pick(['va', 'qris', 'ewallet']), channel: pick(['bca', 'mpm', 'dana']), payment_no: pick(['', '0012345678901234', '8868000000100001']),
      buyer_name: pick(texts), buyer_email: 'putu@mail.com', system_notes: pick(texts), url: pick(['https://webhook.site/caef335b', 'http://127.0.0.1:8080/cb?x=1']),
    };
    if (r() < 0.5) fields.additional_info = pick(['[]', '']);
    if (r() < 0.3) fields.transaction_status_code = pick(ints);
    if (r() < 0.2) fields.signature = 'ignored';
    const format: 'form' | 'json' = r() < 0.5 ? 'form' : 'json';
    let body: string;
    if (format === 'form') body = encodeFormBody(fields as Record<string, string>);
    else {
      // JSON bodies also carry typed values: numbers, booleans, nulls, arrays.
      const typed: Record<string, unknown> = { ...fields };
      if (r() < 0.4) typed.amount = Math.floor(r() * 1e6);
      if (r() < 0.3) typed.fee = r() < 0.5 ? 714.5 : 0;
      if (r() < 0.3) typed.trx_id = Math.floor(r() * 1e6);
      if (r() < 0.3) typed.is_escrow = r() < 0.5;
      if (r() < 0.3) typed.settlement_date = null;
      if (r() < 0.3) typed.additional_info = r() < 0.5 ? [] : ['note', 'x/y'];
      if (r() < 0.2) typed.is_refund = r() < 0.5;
      body = JSON.stringify(typed);
    }
    cases.push({ format, body, va: pick(['1179000899', '0000001234567890']) });
  }
  return cases;
}

describe('cross-check against PHP (json_encode + hash_hmac)', () => {
  it.skipIf(!havePhp && !process.env.CI)(`agrees with PHP on every payload of a 400-case corpus${havePhp ? '' : ' (php not installed: apt-get install php-cli)'}`, () => {
    expect(havePhp, 'php-cli must be installed in CI (.ci/run installs it)').toBe(true);
    const cases = corpus(400);
    const dir = mkdtempSync(join(tmpdir(), 'paycli-php-'));
    try {
      writeFileSync(join(dir, 'cases.json'), JSON.stringify(cases));
      const results = JSON.parse(execFileSync('php', [ORACLE, join(dir, 'cases.json')], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })) as { json: string; hmac: string }[];
      expect(results).toHaveLength(cases.length);
      let agreed = 0;
      cases.forEach((c, i) => {
        const { fields } = parseCallbackBody(c.body, c.format === 'json' ? 'application/json' : 'application/x-www-form-urlencoded');
        const canonical = canonicalizeCallback(fields);
        expect(canonical, `case ${i}: ${c.body}`).toBe(results[i]!.json);
        expect(hmacHex(c.va, canonical)).toBe(results[i]!.hmac);
        agreed++;
      });
      expect(agreed).toBe(400);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
