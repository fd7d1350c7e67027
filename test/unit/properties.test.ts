import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeFormBody, encodeJsonCallbackBody, signCallbackRequest } from '../../src/core/callback/build.js';
import { parseCallbackInput } from '../../src/core/callback/capture.js';
import { MalformedPayloadError, parseCallbackBody, parseFormBody } from '../../src/core/callback/parse.js';
import { checkCallback } from '../../src/core/callback/check.js';
import { readProjectSettings } from '../../src/core/config/resolve.js';
import { PaycliError } from '../../src/core/errors.js';

const VA = '1179000899';
const key = fc.stringMatching(/^[a-z_][a-z0-9_]{0,15}$/).filter((k) => k !== 'signature' && k !== '__proto__');
const text = fc.string({ unit: 'grapheme', maxLength: 40 });
const weird = fc.constantFrom('', '/', 'https://x.y/a?b=c&d=e', 'a+b', '100%', 'Ö€🌺', '"quoted"', '\\', '[]', 'null', '&=', ' ');
const value = fc.oneof(text, weird);
const payload = fc.dictionary(key, value, { minKeys: 1, maxKeys: 12 });

describe('properties of callback signing', () => {
  it('sign → encode → parse → verify round-trips for any payload, form and JSON', () => {
    fc.assert(
      fc.property(payload, fc.constantFrom<'form' | 'json'>('form', 'json'), (fields, format) => {
        const signed = signCallbackRequest(fields, VA, format, new Date(0), '1');
        const parsed = parseCallbackBody(signed.body, signed.headers['Content-Type']);
        expect(checkCallback(parsed.fields, signed.signature, VA).verdict).toBe('valid');
      }),
      { numRuns: 300 },
    );
  });

  it('any change of one field makes the signature fail', () => {
    fc.assert(
      fc.property(payload, fc.nat(), text, (fields, pick, replacement) => {
        const keys = Object.keys(fields);
        const k = keys[pick % keys.length]!;
        fc.pre(fields[k] !== replacement);
        // Values the type rules fold together are not changes the gateway can see.
        fc.pre(!['trx_id', 'status_code', 'transaction_status_code', 'paid_off', 'is_escrow', 'additional_info'].includes(k));
        const signed = signCallbackRequest(fields, VA, 'form', new Date(0), '1');
        const tampered = parseFormBody(encodeFormBody({ ...fields, [k]: replacement }));
        expect(checkCallback(tampered, signed.signature, VA).verdict).toBe('invalid');
      }),
      { numRuns: 300 },
    );
  });

  it('JSON callback bodies keep every string exactly', () => {
    fc.assert(
      fc.property(payload, (fields) => {
        const parsed = parseCallbackBody(encodeJsonCallbackBody(fields), 'application/json').fields;
        for (const [k, v] of Object.entries(fields)) expect(parsed[k]).toEqual(k === 'additional_info' && v === '[]' ? [] : v);
      }),
    );
  });
});

describe('parsers under fuzzing throw only typed errors', () => {
  const assertTyped = (fn: () => unknown) => {
    try {
      fn();
    } catch (err) {
      expect(err).toBeInstanceOf(PaycliError);
    }
  };

  it('form, JSON and raw HTTP parsers', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.string({ unit: 'binary' }),
          fc.json(),
          fc.constantFrom('POST / HTTP/1.1\n', 'POST / HTTP/1.1\r\nA: b\r\n\r\n{', '%', '=&=&', 'a[=1', '{"headers":1,"body":2}'),
        ),
        (input) => {
          assertTyped(() => parseCallbackInput(input));
          assertTyped(() => parseFormBody(input));
          assertTyped(() => parseCallbackBody(input, 'application/json'));
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('the project config reader', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (config) => {
        assertTyped(() => readProjectSettings({ filepath: '/p/.paycli.json', config: config as Record<string, unknown> }));
      }),
      { numRuns: 500 },
    );
  });

  it('malformed form bodies are MalformedPayloadError', () => {
    expect(() => parseFormBody('%E0%A4%A')).toThrow(MalformedPayloadError);
  });
});
