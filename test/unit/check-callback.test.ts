import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkCallback } from '../../src/core/callback/check.js';
import { MalformedPayloadError, parseCallbackBody, parseFormBody, parseJsonBody } from '../../src/core/callback/parse.js';
import { canonicalizeCallback } from '../../src/core/signing/callback-canonical.js';
import { MissingVaError, signCallback, verifyCallback, hmacHex } from '../../src/core/signing/callback-signature.js';
import { AuthError } from '../../src/core/errors.js';
import { DIAGNOSIS_BUDGET } from '../../src/core/signing/variants.js';
import * as library from '../../src/index.js';

const FIXTURE = readFileSync(new URL('../fixtures/callback-qris-sandbox.form', import.meta.url), 'utf8');
const VA = '1179000899';
const SIG = 'c9594cc8c9f5811ecf22422eed1c8071f7837211f58956f616658a904d94f024';
const SLASH = '00721607209ced43b06cd8f24be4d8b172685bf10be9830fa4c75ddbd949de30';
const fields = parseFormBody(FIXTURE);

describe('checkCallback', () => {
  it('diagnoses a mismatch only when asked', () => {
    const plain = checkCallback(fields, SLASH, VA);
    expect(plain.verdict).toBe('invalid');
    expect(plain.diagnosis).toBeNull();
    expect(plain.reason).toMatch(/does not match/);
    const asked = checkCallback(fields, SLASH, VA, { diagnose: true });
    expect(asked.verdict).toBe('invalid');
    expect(asked.diagnosis?.id).toBe('slash-unescaped');
    const withKey = checkCallback(fields, hmacHex('SOME-API-KEY-1234', canonicalizeCallback(fields)), VA, {
      diagnose: true,
      otherKeys: [{ kind: 'api-key', label: 'the API key', key: 'SOME-API-KEY-1234' }],
    });
    expect(withKey.reason).toMatch(/API key as the secret/);
    // a diagnosis only when asked
    expect(checkCallback(fields, SLASH, VA, {}).diagnosis).toBeNull();
  });

  it("still accepts the gateway's undocumented encodings without a diagnosis", () => {
    const f = { ...fields, buyer_name: 'Nyoman Ö' };
    const raw = signCallback(f, VA, { json: { escapeSlash: true, escapeUnicode: false } });
    expect(checkCallback(f, raw, VA).verdict).toBe('valid-variant');
    expect(checkCallback(fields, SIG, VA).verdict).toBe('valid');
  });

  it('bounds the diagnosis: a large forged body is "invalid, not diagnosed"', () => {
    // Over the length limit the check stops after one canonical form and one HMAC (not 56: the old
    // cost was ~4 s), which the reason says; no variation is tried, so there is no diagnosis.
    const big = { ...fields, buyer_name: 'x'.repeat(1024 * 1024) };
    const r = checkCallback(big, 'ab'.repeat(32), VA, { diagnose: true });
    expect(r.verdict).toBe('invalid');
    expect(r.notDiagnosed).toMatch(/not diagnosed: the signed JSON is over 16384 characters/);
    expect(r.reason).toBe(r.notDiagnosed);
    expect(r.diagnosis).toBeNull();
    // a body just under the size limit stops at the attempt or time budget
    const mid = { ...fields, buyer_name: 'y'.repeat(DIAGNOSIS_BUDGET.maxLength - 1000) };
    const few = checkCallback(mid, 'ab'.repeat(32), VA, { diagnose: true, budget: { maxAttempts: 3 } });
    expect(few.notDiagnosed).toMatch(/over 3 attempts/);
    const quick = checkCallback(mid, 'ab'.repeat(32), VA, { diagnose: true, budget: { maxMs: 0 } });
    expect(quick.notDiagnosed).toMatch(/took over 0 ms/);
    // by default the work budget (characters canonicalised + hashed) stops it long before 400 HMACs of 15 KiB
    const keys = ['K1', 'K2', 'K3', 'K4'].map((key) => ({ kind: 'va' as const, label: key, key }));
    const bounded = checkCallback(mid, 'ab'.repeat(32), VA, { diagnose: true, otherKeys: keys });
    expect(bounded.notDiagnosed).toMatch(/not diagnosed: over 1024 KiB of work/);
    // and a body of many small fields (each variation re-canonicalises every one) is not diagnosed at all
    const many: typeof fields = { ...fields };
    for (let i = 0; i < 1000; i++) many[`k${i}`] = String(i);
    expect(checkCallback(many, 'ab'.repeat(32), VA, { diagnose: true }).notDiagnosed).toBe('not diagnosed: over 128 fields (1025)');
    const complete = checkCallback(mid, 'ab'.repeat(32), VA, { diagnose: true, otherKeys: keys, budget: { maxWork: Number.POSITIVE_INFINITY } });
    expect(complete.notDiagnosed).toBeUndefined();
    expect(complete.reason).toMatch(/no known variant/);
    // a real callback with a forged signature is still diagnosed in full under the default budget
    expect(checkCallback(fields, 'ab'.repeat(32), VA, { diagnose: true }).notDiagnosed).toBeUndefined();
  });

  it('throws the typed MissingVaError on the first call when the VA is missing or empty, every time', () => {
    const env: Record<string, string | undefined> = {};
    for (let i = 0; i < 12; i++) {
      for (const va of [env.IPAYMU_VA, '', '   ']) {
        expect(() => checkCallback(fields, SIG, va)).toThrow(MissingVaError);
        expect(() => verifyCallback({ fields, signature: SIG, va })).toThrow(MissingVaError);
        expect(() => signCallback(fields, va)).toThrow(MissingVaError);
      }
    }
    const err = (() => {
      try {
        checkCallback(fields, SIG, undefined);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(AuthError); // exit 4 in the CLI
    expect(library.MissingVaError).toBe(MissingVaError);
  });
});

describe('line breaks at the end of a form body', () => {
  it('are part of the body from the network (as PHP reads it), not of a file', async () => {
    const { parseCallbackInput } = await import('../../src/core/callback/capture.js');
    expect(parseFormBody('a=1&url=x\n').url).toBe('x\n');
    expect(parseCallbackBody('a=1&url=x\r\n', 'application/x-www-form-urlencoded').fields.url).toBe('x\r\n');
    expect(parseCallbackInput('a=1&url=x\n').fields.url).toBe('x');
    expect(parseCallbackInput('POST / HTTP/1.1\ncontent-type: application/x-www-form-urlencoded\n\na=1&url=x\n').fields.url).toBe('x');
    expect(parseFormBody('a=1&url=x\n', { fromFile: true }).url).toBe('x');
  });
});

describe('nesting bounds', () => {
  it('refuses JSON nested 3 000 levels with MalformedPayloadError, and accepts 511 levels as PHP does', () => {
    const deep = `{"trx_id":1,"a":${'['.repeat(3000)}${']'.repeat(3000)}}`;
    expect(() => parseJsonBody(deep)).toThrow(MalformedPayloadError);
    expect(() => parseJsonBody(deep)).toThrow(/nested 3001 levels deep \(at most 511\)/);
    expect(() => parseCallbackBody(`[${deep}]`, 'application/json')).toThrow(MalformedPayloadError);
    expect(() => parseJsonBody(`{"a":${'['.repeat(510)}${']'.repeat(510)}}`)).not.toThrow();
    expect(() => parseJsonBody(`{"a":${'['.repeat(511)}${']'.repeat(511)}}`)).toThrow(MalformedPayloadError);
    // brackets inside strings do not count
    expect(parseJsonBody(`{"a":"${'['.repeat(3000)}"}`).a).toHaveLength(3000);
  });

  it('drops form names nested deeper than 64 levels, as PHP does', () => {
    expect(parseFormBody(`a${'[x]'.repeat(64)}=1&b=2`)).toHaveProperty('a');
    expect(parseFormBody(`a${'[x]'.repeat(65)}=1&b=2`)).toEqual({ b: '2' });
    expect(parseFormBody(`a${'[x]'.repeat(3000)}=1&b=2`)).toEqual({ b: '2' });
  });
});

describe('JSON string escaping of long strings', () => {
  it('writes long strings byte for byte as the short path does', async () => {
    const { encodeJsonString, PHP_DEFAULT, REQUEST_BODY } = await import('../../src/core/signing/php-json.js');
    const pieces = ['Ö', '/', '"', '\\', '\n', '\u0001', '\u007f', 'x', '🌺', '\u2028', '\ud800', 'é/"'];
    for (const options of [PHP_DEFAULT, REQUEST_BODY]) {
      for (let n = 0; n < 30; n++) {
        const parts = Array.from({ length: 1200 + n * 7 }, (_, i) => pieces[(i * 7 + n) % pieces.length]!);
        const long = parts.join('');
        expect(long.length).toBeGreaterThan(1024);
        // the short path on pieces under the threshold, joined, is the reference
        const expected = '"' + parts.map((p) => encodeJsonString(p, options).slice(1, -1)).join('') + '"';
        expect(encodeJsonString(long, options)).toBe(expected);
      }
    }
  });
});
