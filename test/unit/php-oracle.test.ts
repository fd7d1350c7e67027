import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodeFormBody } from '../../src/core/callback/build.js';
import { parseCallbackBody } from '../../src/core/callback/parse.js';
import { CallbackVerifier } from '../../src/core/callback/verifier.js';
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
  const texts = [
    'putu',
    'Nyoman Ö',
    'Ketut & Sons',
    'a/b/c',
    'https://webhook.site/x?y=1&z=2',
    '100%',
    'ñandú',
    '日本語',
    'emoji 🌺🏝️',
    '"quoted"',
    'back\\slash',
    '',
    ' spaced ',
    'tab\there',
    'plus+sign',
    '<tag>',
    "it's",
  ];
  const ints = ['184854', '1', '0', '-2', '6', ' 12', '12abc', 'abc', '', '1e3', '1.9', '000123', '99999999999999999999'];
  const cases: { format: 'form' | 'json'; body: string; va: string }[] = [];
  for (let i = 0; i < n; i++) {
    const fields: Record<string, unknown> = {
      trx_id: pick(ints),
      sid: `sid-${i}`,
      reference_id: pick(texts),
      status: pick(['berhasil', 'pending', 'expired']),
      status_code: pick(ints),
      sub_total: String(Math.floor(r() * 1e7)),
      total: String(Math.floor(r() * 1e7)),
      amount: String(Math.floor(r() * 1e7)),
      fee: String(Math.floor(r() * 1e4)),
      paid_off: pick(ints),
      created_at: '2025-11-11 10:10:26',
      is_escrow: pick(['true', 'false', '1', '0', 'TRUE', '', 'yes']),
      via: pick(['va', 'qris', 'ewallet']),
      channel: pick(['bca', 'mpm', 'dana']),
      payment_no: pick(['', '0012345678901234', '8868000000100001']),
      buyer_name: pick(texts),
      buyer_email: 'putu@mail.com',
      system_notes: pick(texts),
      url: pick(['https://webhook.site/caef335b', 'http://127.0.0.1:8080/cb?x=1']),
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
  it.skipIf(!havePhp && !process.env.CI)(
    `agrees with PHP on every payload of a 400-case corpus${havePhp ? '' : ' (php not installed: apt-get install php-cli)'}`,
    () => {
      expect(havePhp, 'php-cli must be installed in CI (.ci/run installs it)').toBe(true);
      const cases = corpus(400);
      const dir = mkdtempSync(join(tmpdir(), 'paycli-php-'));
      try {
        writeFileSync(join(dir, 'cases.json'), JSON.stringify(cases));
        const results = JSON.parse(execFileSync('php', [ORACLE, join(dir, 'cases.json')], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })) as {
          json: string;
          hmac: string;
        }[];
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
        // The fast path: every form body signed as PHP signs it is valid, read from its raw bytes.
        expect(fastPathAgrees(cases, results)).toBeGreaterThan(150);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});

type Case = { format: 'form' | 'json'; body: string; va: string };

/**
 * Each case checked by a CallbackVerifier with PHP's signature in X-Signature, twice (the first
 * read teaches it the body's names, the second takes the fast path when they are plain): valid
 * both times. Returns how many were valid on the fast path.
 */
function fastPathAgrees(cases: Case[], results: { json: string; hmac: string }[]): number {
  const verifier = new CallbackVerifier();
  let fast = 0;
  cases.forEach((c, i) => {
    const headers = { 'content-type': c.format === 'json' ? 'application/json' : 'application/x-www-form-urlencoded', 'x-signature': results[i]!.hmac };
    for (let round = 0; round < 2; round++) {
      const v = verifier.verify(c.body, headers, c.va);
      expect(v.verdict, `case ${i} (round ${round}): ${c.body}`).toBe('valid');
      if (v.fields === undefined) fast++;
    }
  });
  return fast;
}

/** Runs the PHP oracle over the cases and expects paycli's canonical JSON and HMAC to equal PHP's on each. */
function agreeWithPhp(cases: Case[]): void {
  const dir = mkdtempSync(join(tmpdir(), 'paycli-php-'));
  try {
    writeFileSync(join(dir, 'cases.json'), JSON.stringify(cases));
    const results = JSON.parse(
      execFileSync('php', ['-d', 'display_errors=stderr', ORACLE, join(dir, 'cases.json')], {
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
        stdio: ['ignore', 'pipe', 'ignore'],
      }),
    ) as { json: string | false; hmac: string }[];
    expect(results).toHaveLength(cases.length);
    const disagreements: string[] = [];
    cases.forEach((c, i) => {
      const want = results[i]!;
      expect(typeof want.json, `PHP could not encode case ${i}: ${c.body}`).toBe('string');
      const { fields } = parseCallbackBody(c.body, c.format === 'json' ? 'application/json' : 'application/x-www-form-urlencoded');
      const canonical = canonicalizeCallback(fields);
      if (canonical !== want.json || hmacHex(c.va, canonical) !== want.hmac)
        disagreements.push(`case ${i} (${c.format}) ${c.body}\n  php:    ${String(want.json)}\n  paycli: ${canonical}`);
    });
    expect(disagreements.slice(0, 5).join('\n'), `${disagreements.length} of ${cases.length} disagree`).toBe('');
    fastPathAgrees(cases, results as { json: string; hmac: string }[]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const BASE = 'trx_id=184854&status=berhasil&status_code=1&amount=102000';
const FORM_SHAPES = [
  // lists, as PHP writes additional_info in a form body, and every other bracket form
  'additional_info%5B0%5D=a&additional_info%5B1%5D=b',
  'additional_info[]=a&additional_info[]=b%2Fc',
  'additional_info[0]=x',
  'additional_info[1]=x',
  'additional_info[a][b][c]=1',
  'a[b][c]=1&a[b][d]=2&a[e]=3',
  'a[]=x&a[5]=y&a[]=z',
  'a[-5]=1&a[]=2',
  'a[x]=1&a[0]=2',
  'a[1]=x&a[0]=y',
  'a[01]=x&a[1]=y',
  'a[b=1',
  'a.b[c=1',
  'a[b][c=1',
  'a[b]c=1',
  'a]b=1',
  'a[ x]=1',
  'a[x.y z]=1',
  't[][]=1&t[][]=2',
  'n[a]=1&n=2',
  'o=1&o[a]=2',
  'a[]=1&a[]=2&a[1]=z',
  'a[9223372036854775807]=x&a[]=y',
  'a[9223372036854775808]=x',
  'a[-0]=1',
  'a[]=&a[]=',
  'a[0][0]=1&a[0][1]=2&a[1]=3',
  'a' + '[x]'.repeat(64) + '=1',
  'a' + '[x]'.repeat(65) + '=1',
  // . and space in names, leading spaces, empty names, NUL
  'a.b=1',
  'c+d=2',
  '+e=3',
  '++=4',
  '.x=5',
  'x.=6',
  '=7',
  'f%2Eg=8',
  'h%00i=9',
  'tr x.id=10',
  '%5B%5D=1',
  'a%5Bb%5D=1',
  // integer fields as PHP's (int) reads them
  'trx_id=4e18',
  'trx_id=1e400',
  'trx_id=+12',
  'trx_id=%2012',
  'trx_id=12abc',
  'trx_id=%0A12%20',
  'trx_id=0x1A',
  'trx_id=1e',
  'trx_id=.5',
  'trx_id=-0',
  'trx_id=1.9e2',
  'trx_id=-1e19',
  'trx_id=1e19',
  'trx_id=9223372036854775808',
  'trx_id=-9223372036854775809',
  `trx_id=${'9'.repeat(400)}`,
  `paid_off=-${'9'.repeat(30)}`,
  'paid_off=9007199254740993',
  'status_code=1e-400',
  'status_code=%0B7',
  'transaction_status_code[]=6',
  'transaction_status_code[a]=',
  'is_escrow=TRUE',
  'is_escrow=True',
  'is_escrow[]=1',
  'status_code=%09-2',
  // a body from the network is taken byte for byte, a final line break included
  'url=https://x/\n',
  'url=x\r\n',
  'a[]=1\n',
];

describe('PHP semantics, hand-picked (parse_str, json_decode, (int), (string))', () => {
  it.skipIf(!havePhp && !process.env.CI)(
    `agrees with PHP on form bodies with lists, nesting, dots and spaces, and PHP integer casts${havePhp ? '' : ' (php not installed: apt-get install php-cli)'}`,
    () => {
      expect(havePhp, 'php-cli must be installed in CI (.ci/run installs it)').toBe(true);
      const cases: Case[] = FORM_SHAPES.map((shape) => ({ format: 'form', body: `${BASE}&${shape}`, va: '1179000899' }));
      // only the first 1 000 pairs count
      cases.push({ format: 'form', body: `${Array.from({ length: 1100 }, (_, i) => `v${i}=${i}`).join('&')}&trx_id=5`, va: '1179000899' });
      cases.push({ format: 'form', body: `${'a[]=1&'.repeat(999)}trx_id=5&b=2`, va: '1179000899' });
      agreeWithPhp(cases);
    },
  );

  it.skipIf(!havePhp && !process.env.CI)(
    `agrees with PHP on JSON bodies with big integers, doubles and nested objects${havePhp ? '' : ' (php not installed)'}`,
    () => {
      expect(havePhp, 'php-cli must be installed in CI (.ci/run installs it)').toBe(true);
      const bodies = [
        '{"trx_id":9007199254740993,"paid_off":9223372036854775807,"status_code":-9223372036854775808}',
        '{"trx_id":9223372036854775808,"paid_off":12345678901234567890,"status_code":1e19,"transaction_status_code":-1e19}',
        '{"trx_id":1.9,"paid_off":-1.9,"status_code":1e30,"transaction_status_code":4e18}',
        '{"trx_id":-0,"paid_off":-0.0,"status_code":0.0,"amount":-0.0,"fee":-0}',
        '{"amount":1e25,"fee":0.30000000000000004,"total":714.5,"sub_total":1e14,"x1":1e13,"x2":1e15,"x3":0.0001,"x4":0.00001,"x5":100000.0}',
        '{"amount":123456789012345,"fee":123456789012345.0,"total":12345678901234.5,"sub_total":0.000030517578125,"x":9007199254740993}',
        '{"amount":12345678901234567890,"fee":1.5e300,"total":5e-324,"sub_total":1.7976931348623157e308}',
        '{"is_escrow":1,"x":1}',
        '{"is_escrow":1.0}',
        '{"is_escrow":"TRUE"}',
        '{"is_escrow":2}',
        '{"is_escrow":[1]}',
        '{"additional_info":{"0":"a","1":"b"}}',
        '{"additional_info":{"1":"a","0":"b"}}',
        '{"additional_info":{}}',
        '{"additional_info":{"x":1,"0":2}}',
        '{"additional_info":[1.0,10.0,1e25,0.1,1e17,1e16,-0.0,5e-7,9007199254740993,12345678901234567890]}',
        '{"additional_info":[{"b":1,"a":{"2":"x","1":"y"}},[],{}]}',
        '{"additional_info":5}',
        '{"additional_info":"abc"}',
        '{"additional_info":true}',
        '{"additional_info":"[1]"}',
        '{"a":{"x":{"y":{"0":1}}},"b":[[[]]]}',
        '{"k":{"__proto__":1,"constructor":2}}',
        '{"trx_id":"4e18","paid_off":" 12","status_code":"12abc","transaction_status_code":"1e400"}',
        '{"trx_id":[],"paid_off":{},"status_code":[0],"transaction_status_code":{"a":null}}',
        '{"trx_id":1,"trx_id":2}',
        '{"a":{"x":1,"x":2,"0":3}}',
        `{"a":${'['.repeat(500)}${']'.repeat(500)}}`,
        '{"\\u00e9":"1","e":"2","\\ud83c\\udf3a":"3","\\uffff":"4","Z":"5","_":"6"}',
      ];
      agreeWithPhp(bodies.map((body) => ({ format: 'json', body, va: '1179000899' })));
    },
  );

  it.skipIf(!havePhp && !process.env.CI)(`agrees with PHP on 600 random bodies of these shapes${havePhp ? '' : ' (php not installed)'}`, () => {
    expect(havePhp, 'php-cli must be installed in CI (.ci/run installs it)').toBe(true);
    const r = rng(20261123);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
    const nameParts = ['a', 'trx_id', 'additional_info', 'x.y', 'p q', ' lead', 'is_escrow', 'fee', '0', '12', '-3', 'z'];
    const idx = () => pick(['', '0', '1', '2', 'k', 'x.y', '-1', '01', ' s', '[', '9223372036854775807']);
    const ints = ['4e18', '1e400', ' 12', '12abc', '-0', '1.5', '9007199254740993', '99999999999999999999', '-1e19', 'abc', '0x10', '\t7', '+3'];
    const cases: Case[] = [];
    for (let i = 0; i < 600; i++) {
      if (r() < 0.5) {
        const pairs: string[] = [];
        const n = 1 + Math.floor(r() * 8);
        for (let j = 0; j < n; j++) {
          let name = pick(nameParts);
          const depth = Math.floor(r() * 4);
          for (let d = 0; d < depth; d++) name += `[${idx()}]`;
          if (r() < 0.1) name = name.slice(0, -1); // an unclosed bracket
          const value = r() < 0.5 ? pick(ints) : pick(['x', 'a/b', 'Ö', '', '[]', '1', 'true']);
          pairs.push(`${encodeURIComponent(name).replace(/%20/g, '+')}=${encodeURIComponent(value)}`);
        }
        pairs.push(`status=${pick(ints)}`); // at least one plain field: a body with none is refused on purpose
        cases.push({ format: 'form', body: pairs.join('&'), va: '1179000899' });
      } else {
        const num = () =>
          pick([
            () => String(Math.floor(r() * 1e6)),
            () => `${Math.floor(r() * 9e18)}${Math.floor(r() * 10)}`,
            () => (r() * 1e6).toFixed(Math.floor(r() * 4)),
            () => `${Math.floor(r() * 9) + 1}e${Math.floor(r() * 40) - 20}`,
            () => `-${Math.floor(r() * 1e17)}`,
            () => '1.0',
          ])();
        const val = (d: number): string => {
          const k = r();
          if (d < 3 && k < 0.15) return `[${Array.from({ length: Math.floor(r() * 3) }, () => val(d + 1)).join(',')}]`;
          if (d < 3 && k < 0.3)
            return `{${Array.from({ length: Math.floor(r() * 3) }, () => `${JSON.stringify(pick(['0', '1', '2', 'a', 'b', '10']))}:${val(d + 1)}`).join(',')}}`;
          if (k < 0.6) return num();
          if (k < 0.7) return pick(['true', 'false', 'null']);
          return JSON.stringify(pick([...ints, 'x', 'a/b', 'Ö 🌺']));
        };
        const keys = ['trx_id', 'status_code', 'paid_off', 'transaction_status_code', 'is_escrow', 'additional_info', 'amount', 'fee', 'note'];
        const body = `{${keys
          .filter(() => r() < 0.7)
          .map((k) => `${JSON.stringify(k)}:${val(0)}`)
          .join(',')}}`;
        cases.push({ format: 'json', body, va: '0000001234567890' });
      }
    }
    agreeWithPhp(cases);
  });
});
