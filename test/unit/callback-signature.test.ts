import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseCallbackInput } from '../../src/core/callback/capture.js';
import { parseFormBody } from '../../src/core/callback/parse.js';
import { canonicalizeCallback, phpIntOf, type CallbackFields } from '../../src/core/signing/callback-canonical.js';
import { signCallback, signaturesEqual, verifyCallback, hmacHex } from '../../src/core/signing/callback-signature.js';
import { diagnoseCallback, VARIATIONS } from '../../src/core/signing/variants.js';
import { encodeJson, encodeJsonString, PHP_DEFAULT } from '../../src/core/signing/php-json.js';
import { checkCallback } from '../../src/core/callback/check.js';
import { encodeFormBody } from '../../src/core/callback/build.js';

const FIXTURE = readFileSync(new URL('../fixtures/callback-qris-sandbox.form', import.meta.url), 'utf8');
const VA = '1179000899';
const SIGNATURE = 'c9594cc8c9f5811ecf22422eed1c8071f7837211f58956f616658a904d94f024';

describe('callback canonical form and signature (docs/gateway.md, "Callback signatures")', () => {
  const fields = parseFormBody(FIXTURE);

  it('reproduces the real sandbox capture byte for byte', () => {
    const canonical = canonicalizeCallback(fields);
    expect(canonical.startsWith('{"additional_info":[],"amount":"102000","buyer_email":"putu@mail.com",')).toBe(true);
    for (const part of [
      '"is_escrow":false',
      '"paid_off":101286',
      '"payment_no":""',
      '"trx_id":184854',
      '"url":"https:\\/\\/webhook.site\\/caef335b-f0bf-49d3-a532-35564f5241a2"',
    ]) {
      expect(canonical).toContain(part);
    }
    expect(signCallback(fields, VA)).toBe(SIGNATURE);
    expect(verifyCallback({ fields, signature: SIGNATURE, va: VA }).valid).toBe(true);
    expect(verifyCallback({ fields, signature: SIGNATURE.toUpperCase(), va: VA }).valid).toBe(true);
  });

  it('reproduces every near miss of the fixtures with the matching mistake', () => {
    expect(signCallback(fields, VA, { amountsAsIntegers: true, escrowAsNumber: true })).toBe(
      '360eeb4b0cf1ae77c0ae95d190417f93188f5c5f6a8091423fb994d67955d5ba',
    );
    expect(signCallback(fields, VA, { json: { escapeSlash: false, escapeUnicode: true } })).toBe(
      '00721607209ced43b06cd8f24be4d8b172685bf10be9830fa4c75ddbd949de30',
    );
    expect(signCallback(fields, VA, { normalizeTypes: false, json: { escapeSlash: false, escapeUnicode: true } })).toBe(
      '546c9cb60ba639f655669385eba960523526ad67b3d27b3335e44d68564ff3dd',
    );
  });

  it('diagnoses each near miss of the fixtures', () => {
    const keys = [{ kind: 'va' as const, label: 'the merchant VA', key: VA }];
    expect(diagnoseCallback(fields, '360eeb4b0cf1ae77c0ae95d190417f93188f5c5f6a8091423fb994d67955d5ba', keys)?.id).toBe('amounts-as-integers+escrow-as-number');
    expect(diagnoseCallback(fields, '00721607209ced43b06cd8f24be4d8b172685bf10be9830fa4c75ddbd949de30', keys)?.id).toBe('slash-unescaped');
    expect(diagnoseCallback(fields, '546c9cb60ba639f655669385eba960523526ad67b3d27b3335e44d68564ff3dd', keys)?.id).toBe('slash-unescaped+no-normalization');
  });

  it('names every single variation when a payload is signed that way', () => {
    const { additional_info: _dropped, ...rest } = fields;
    void _dropped;
    // No additional_info (as in many form bodies), so that leaving it out is a variation too.
    const payload = {
      ...rest,
      buyer_name: 'Nyoman Ö 🌺',
      settlement_date: null,
      signature: 'body-field',
      referenceId: 'R-1',
      reference_id: 'ID1234',
    } as CallbackFields;
    const keys = [{ kind: 'va' as const, label: 'the merchant VA', key: VA }];
    for (const v of VARIATIONS) {
      const sig = signCallback(payload, VA, v.options);
      const d = diagnoseCallback(payload, sig, keys);
      expect(d, v.id).not.toBeNull();
      expect(d!.variations.map((x) => x.id)).toContain(v.id);
      expect(d!.authentic).toBe(v.undocumentedEncoding);
    }
  });

  it('recognises the API key and other VAs as the wrong secret', () => {
    const keys = [
      { kind: 'va' as const, label: 'the merchant VA', key: VA },
      { kind: 'api-key' as const, label: 'the API key', key: 'SANDBOX-KEY-123456' },
      { kind: 'other-va' as const, label: 'the VA of profile "prod"', key: '9999000111' },
    ];
    const withKey = hmacHex('SANDBOX-KEY-123456', canonicalizeCallback(fields));
    expect(diagnoseCallback(fields, withKey, keys)?.message).toMatch(/API key as the secret/);
    const withOther = hmacHex('9999000111', canonicalizeCallback(fields));
    expect(diagnoseCallback(fields, withOther, keys)?.message).toMatch(/profile "prod"/);
    expect(diagnoseCallback({ ...fields, amount: '102001' }, SIGNATURE, keys)).toBeNull();
  });

  it('classifies with checkCallback: valid, valid-variant, invalid with reason', () => {
    const uni = { ...fields, buyer_name: 'Ñyoman' };
    expect(checkCallback(fields, SIGNATURE, VA).verdict).toBe('valid');
    const raw = signCallback(uni, VA, { json: { escapeSlash: true, escapeUnicode: false } });
    const c = checkCallback(uni, raw, VA);
    expect(c.verdict).toBe('valid-variant');
    expect(c.reason).toMatch(/authentic/);
    expect(checkCallback({ ...fields, fee: '700' }, SIGNATURE, VA).verdict).toBe('invalid');
    expect(checkCallback(fields, 'abc', VA).reason).toMatch(/64 hex/);
    expect(checkCallback(fields, '', VA).reason).toMatch(/empty/);
  });
});

describe('PHP json_encode defaults', () => {
  it('escapes slashes, non-ASCII as lower-case \\u, and astral characters as surrogate pairs', () => {
    expect(encodeJsonString('a/b', PHP_DEFAULT)).toBe('"a\\/b"');
    expect(encodeJsonString('Ö€', PHP_DEFAULT)).toBe('"\\u00d6\\u20ac"');
    expect(encodeJsonString('🌺', PHP_DEFAULT)).toBe('"\\ud83c\\udf3a"');
    expect(encodeJsonString('q"\\\n\t\u0001', PHP_DEFAULT)).toBe('"q\\"\\\\\\n\\t\\u0001"');
    expect(encodeJsonString("<>&'", PHP_DEFAULT)).toBe('"<>&\'"');
    expect(encodeJson({ a: [1, true, null], b: {} }, PHP_DEFAULT)).toBe('{"a":[1,true,null],"b":{}}');
  });

  it('casts like PHP (int)', () => {
    expect(phpIntOf('184854').digits).toBe('184854');
    expect(phpIntOf(' 0012abc').digits).toBe('12');
    expect(phpIntOf('-2').digits).toBe('-2');
    expect(phpIntOf('-0').digits).toBe('0');
    expect(phpIntOf('abc').digits).toBe('0');
    expect(phpIntOf('99999999999999999999').digits).toBe('9223372036854775807');
    expect(phpIntOf('9223372036854775807').digits).toBe('9223372036854775807');
    expect(phpIntOf('1e3').digits).toBe('1000');
    expect(phpIntOf('1.9').digits).toBe('1');
    expect(phpIntOf('-1.9').digits).toBe('-1');
    expect(phpIntOf(true).digits).toBe('1');
  });

  it('applies the type rules: is_escrow, additional_info, nulls, JSON numbers', () => {
    const c = (f: Record<string, unknown>) => canonicalizeCallback(f as never);
    expect(c({ is_escrow: '1' })).toBe('{"additional_info":[],"is_escrow":true}');
    expect(c({ is_escrow: 'TRUE' })).toBe('{"additional_info":[],"is_escrow":true}');
    expect(c({ is_escrow: '0' })).toBe('{"additional_info":[],"is_escrow":false}');
    expect(c({ additional_info: '' })).toBe('{"additional_info":[]}');
    expect(c({ additional_info: ['a'] })).toBe('{"additional_info":["a"]}');
    expect(c({ settlement_date: null, amount: 102000, trx_id: 5 })).toBe('{"additional_info":[],"amount":"102000","settlement_date":"","trx_id":5}');
    expect(c({ B: '1', a: '2', _: '3' })).toBe('{"B":"1","_":"3","a":"2","additional_info":[]}');
  });
});

describe('callback inputs', () => {
  it('reads a raw HTTP capture with CRLF and takes X-Signature from it', () => {
    const capture = `POST /callback HTTP/1.1\r\nHost: shop.example\r\nContent-Type: application/x-www-form-urlencoded\r\nx-SIGNATURE: ${SIGNATURE}\r\n\r\n${FIXTURE}`;
    const p = parseCallbackInput(capture);
    expect(p.headerSignature).toBe(SIGNATURE);
    expect(p.format).toBe('form');
    expect(signaturesEqual(signCallback(p.fields, VA), p.headerSignature!)).toBe(true);
    expect(parseCallbackInput(capture.replace(/\r\n/g, '\n')).fields.trx_id).toBe('184854');
  });

  it('reads JSON bodies and {headers, body} objects', () => {
    const json = JSON.stringify(Object.fromEntries(Object.entries(parseFormBody(FIXTURE))));
    expect(signCallback(parseCallbackInput(json).fields, VA)).toBe(SIGNATURE);
    const obj = parseCallbackInput(
      JSON.stringify({ headers: { 'X-Signature': SIGNATURE, 'Content-Type': 'application/x-www-form-urlencoded' }, body: FIXTURE }),
    );
    expect(obj.headerSignature).toBe(SIGNATURE);
    expect(signCallback(obj.fields, VA)).toBe(SIGNATURE);
  });

  it('decodes forms like PHP: + is space, repeated keys keep the last, key[] collects', () => {
    const f = parseFormBody('a=1&a=2&b=x+y%2Bz&additional_info%5B%5D=p&additional_info[]=q&m[k]=v&empty=&flag');
    expect(f).toMatchObject({ a: '2', b: 'x y+z', additional_info: ['p', 'q'], empty: '', flag: '' });
    expect(f.m).toMatchObject({ k: 'v' });
    expect(encodeFormBody(parseFormBody(FIXTURE) as Record<string, string>)).toBe(FIXTURE);
  });

  it('rejects malformed input with a typed error that says where', () => {
    expect(() => parseFormBody('a=%zz')).toThrow(/percent-encoding in the value of pair 1/);
    expect(() => parseFormBody('')).toThrow(/empty/);
    expect(() => parseFormBody('=x')).toThrow(/no fields/); // PHP drops a pair without a name; nothing is left
    expect(parseFormBody('=x&a=1')).toEqual({ a: '1' });
    expect(() => parseCallbackInput('{"a":')).toThrow(/does not parse/);
    expect(() => parseCallbackInput('[1,2]')).toThrow();
    expect(() => parseCallbackInput('POST / HTTP/1.1\nHost x\n\nbody')).toThrow(/line 2/);
    expect(() => parseCallbackInput('POST / HTTP/1.1\nHost: x')).toThrow(/blank line/);
  });
});
