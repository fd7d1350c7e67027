import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseFormBody, parseFormBodyPairwise } from '../../src/core/callback/parse.js';
import { type CallbackFields, canonicalizeCallback } from '../../src/core/signing/callback-canonical.js';
import { hmacHex } from '../../src/core/signing/callback-signature.js';

/** What a parse gives: its fields with PHP key order, or the error's message. */
function outcome(parse: (body: string) => CallbackFields, body: string): unknown {
  try {
    const fields = parse(body);
    return { keys: Object.keys(fields), fields: JSON.parse(JSON.stringify(fields)) as unknown };
  } catch (err) {
    return { error: (err as Error).message, name: (err as Error).name };
  }
}

/** The reference canonical form: the general path (any options object takes it). */
const reference = (fields: CallbackFields) => canonicalizeCallback(fields, {});

describe('form parsing: the fast routes give what the pairwise reference gives', () => {
  const cases = [
    'a=1&b=2',
    'a=1&b=2&a=3',
    'a=1&b=2&',
    '&a=1&&b=2',
    'a=%26&b=%3D&c=%3d',
    'a%3Db=1',
    'a=x%ZZ',
    'a=1&b=%E2%82',
    'a=%E2&%82%AC=1',
    'a%E2=%82%AC',
    'a=1+2%2B3&b+c=4',
    'a.b=1&c d=2&e[f]=3&g[]=4&g[]=5',
    'a%00b=1&c=%00',
    'url=https%3A%2F%2Fx.y%2Fa%3Fb%3Dc%26d%3De&n=%C3%96',
    'ab=1&a=2',
    'a==b&c=d=e',
    'a&b=&c',
    '=1&a=2',
    '=1',
    '%20a=1&%20=2',
  ];
  it.each(cases)('%s (twice: the second read goes through the remembered names)', (body) => {
    const want = outcome(parseFormBodyPairwise, body);
    expect(outcome(parseFormBody, body)).toEqual(want);
    expect(outcome(parseFormBody, body)).toEqual(want);
  });

  it('bodies that share names with a remembered body but differ in any way are still read right', () => {
    parseFormBody('trx_id=1&status=berhasil&via=qris');
    const variants = [
      'trx_id=1&status=berhasil&via=qris',
      'trx_id=2&status=pending&via=va&extra=1',
      'trx_id=1&status=berhasil',
      'trx_id=1&status=berhasil&vi=qris',
      'trx_id=1&status=berhasil&via',
      'trx_id=1&status=berhasil&via=qris&',
      'trx_id=1&status=berhasil&via=qris&&',
      'trx_id=1&status=berhasil&viaa=qris',
      'trx_id=1&status=berhasil&via=q=r',
      'trx_idx=1&status=berhasil&via=qris',
      'status=berhasil&trx_id=1&via=qris',
      'trx_id=1&trx_id=2&via=qris',
    ];
    for (const body of variants) {
      expect(outcome(parseFormBody, body), body).toEqual(outcome(parseFormBodyPairwise, body));
      expect(outcome(parseFormBody, body), body).toEqual(outcome(parseFormBodyPairwise, body));
    }
  });

  it('random bodies from a hostile alphabet, with names drawn from a few shapes', () => {
    const piece = fc.constantFrom('a', 'b', 'id', '=', '&', '%', '%26', '%3D', '%3d', '%41', '%E2%82%AC', '%C3', '+', '%2B', '.', '[', ']', ' ', '%00', 'x');
    const hostile = fc.array(piece, { maxLength: 24 }).map((p) => p.join(''));
    const shaped = fc
      .tuple(fc.constantFrom(['a', 'b'], ['b', 'a'], ['a', 'b', 'c'], ['id'], ['a', 'ab']), fc.array(fc.constantFrom('1', '', '%41', '+', '=', 'x%3Dy'), { minLength: 3, maxLength: 3 }))
      .map(([names, values]) => names.map((n, i) => `${n}=${values[i]}`).join('&'));
    fc.assert(
      fc.property(fc.oneof(hostile, shaped), (body) => {
        expect(outcome(parseFormBody, body)).toEqual(outcome(parseFormBodyPairwise, body));
      }),
      { numRuns: 3000 },
    );
  });
});

describe('form parsing: a remembered shape read from the body decoded as a whole', () => {
  it('gives each value what decoding it alone gives, and falls back when the body does not decode', () => {
    parseFormBody('trx_id=1&note=x&url=y');
    const bodies = [
      'trx_id=1&note=a%2541&url=https%3A%2F%2Fx.y%2Fa',
      'trx_id=1&note=%2B+%20&url=%E2%82%AC',
      'trx_id=1&note=a+b&url=c',
      'trx_id=1&note=%E2%82&url=%AC',
      'trx_id=1&note=%ZZ&url=y',
      'trx_id=1&note=%26&url=%3D',
      'trx%5Fid=1&note=x&url=y',
      'trx_id=1&note=x%3D&url=y',
      'trx_id=1&note=%00&url=%C3%96',
      'trx_id=1&note=x&url=y%',
    ];
    for (const body of bodies) {
      expect(outcome(parseFormBody, body), body).toEqual(outcome(parseFormBodyPairwise, body));
      expect(outcome(parseFormBody, body), body).toEqual(outcome(parseFormBodyPairwise, body));
    }
  });
});

describe('signature comparison without a regular expression or new buffers', () => {
  const HEX = /^(?:[0-9a-fA-F]{2})+$/;
  /** The rule as documented: trimmed, same length, non-empty even-length hex on both sides, bytes equal. */
  function reference(a: string, b: string): boolean {
    const x = a.trim();
    const y = b.trim();
    return x.length > 0 && x.length === y.length && HEX.test(x) && HEX.test(y) && Buffer.from(x, 'hex').equals(Buffer.from(y, 'hex'));
  }
  it('agrees with the documented rule, also on characters Buffer’s hex decoder misreads', async () => {
    const { hexDigestsEqual } = await import('../../src/core/signing/digest.js');
    const digest = hmacHex('k', 'x');
    // U+0130 and U+0661 decode as hex digits through their low byte in Buffer.from(…, 'hex').
    const near = fc.constantFrom('0', '9', 'a', 'f', 'A', 'F', 'g', ' ', '\n', '\u00a0', '\u0130', '\u0131', '\u0661', '\ufeff');
    const mutate = fc.tuple(fc.nat(70), near, fc.boolean()).map(([at, c, insert]) => (s: string) => s.slice(0, at) + c + s.slice(insert ? at : at + 1));
    const side = fc.tuple(fc.constantFrom(digest, digest.toUpperCase(), hmacHex('k', 'y'), digest.slice(0, 10), ''), fc.array(mutate, { maxLength: 3 })).map(([s, fs]) => fs.reduce((t, f) => f(t), s));
    fc.assert(
      fc.property(side, side, (a, b) => {
        expect(hexDigestsEqual(a, b)).toBe(reference(a, b));
      }),
      { numRuns: 5000 },
    );
    expect(hexDigestsEqual(digest, `\u0130${digest.slice(2)}`)).toBe(false);
    expect(hexDigestsEqual(`${digest}00`, `${digest}00`)).toBe(true); // longer than a SHA-256 digest
  });

  it('hmacSha256Matches says what hexDigestsEqual of hmacSha256Hex says', async () => {
    const { hexDigestsEqual, hmacSha256Hex, hmacSha256Matches } = await import('../../src/core/signing/digest.js');
    const received = fc.oneof(
      fc.constantFrom(hmacSha256Hex('k', 'x'), hmacSha256Hex('k', 'x').toUpperCase(), ` ${hmacSha256Hex('k', 'x')}\n`, hmacSha256Hex('k', 'y'), hmacSha256Hex('j', 'x'), '', 'zz', `${hmacSha256Hex('k', 'x')}00`),
      fc.string({ maxLength: 70 }),
    );
    fc.assert(
      fc.property(fc.constantFrom('k', 'j', ''), fc.constantFrom('x', 'y', 'Ñ🌺'), received, (key, text, r) => {
        expect(hmacSha256Matches(key, text, r)).toBe(hexDigestsEqual(hmacSha256Hex(key, text), r));
        // Hashed as Latin-1 when the caller vouches for ASCII: the same bytes for an ASCII text.
        if (text !== 'Ñ🌺') expect(hmacSha256Matches(key, text, r, true)).toBe(hexDigestsEqual(hmacSha256Hex(key, text), r));
      }),
      { numRuns: 3000 },
    );
    expect(hmacSha256Matches('k', 'x', hmacSha256Hex('k', 'x').toUpperCase())).toBe(true);
  });

  it('callbackSignatureMatches says what verifyCallback says', async () => {
    const { callbackSignatureMatches, verifyCallback } = await import('../../src/core/signing/callback-signature.js');
    const fields: CallbackFields = { trx_id: '183148', status: 'berhasil', url: 'https://shop.example/cb', buyer_name: 'Ñandú' };
    const good = hmacHex('1179000899', canonicalizeCallback(fields));
    for (const sig of [good, ` ${good.toUpperCase()} `, good.slice(0, -1) + (good.endsWith('0') ? '1' : '0'), '', 'zz', hmacHex('other', canonicalizeCallback(fields))]) {
      expect(callbackSignatureMatches(fields, sig, '1179000899'), sig).toBe(verifyCallback({ fields, signature: sig, va: '1179000899' }).valid);
    }
    expect(() => callbackSignatureMatches(fields, good, '')).toThrow(/no merchant VA/);
  });
});

describe('canonical JSON: the cached plan per key list gives what the general path gives', () => {
  const base: CallbackFields = {
    trx_id: '183148',
    status: 'berhasil',
    status_code: '1',
    paid_off: '101286',
    transaction_status_code: '1',
    is_escrow: 'false',
    url: 'https://shop.example/cb',
    buyer_name: 'Ñandú 日本 🌺',
    signature: 'dropped',
  };

  it('the same fields in another insertion order, and mutations after a first call', () => {
    const fields: CallbackFields = { ...base };
    expect(canonicalizeCallback(fields)).toBe(reference(fields));
    const reversed = Object.fromEntries(Object.entries(base).reverse()) as CallbackFields;
    expect(canonicalizeCallback(reversed)).toBe(reference(reversed));
    expect(canonicalizeCallback(reversed)).toBe(canonicalizeCallback(fields));
    fields.additional_info = ['x/y'];
    expect(canonicalizeCallback(fields)).toBe(reference(fields));
    delete fields.signature;
    fields.trx_id = 183148;
    expect(canonicalizeCallback(fields)).toBe(reference(fields));
    fields.status = null;
    fields.is_escrow = true;
    expect(canonicalizeCallback(fields)).toBe(reference(fields));
  });

  it('integer fields: only plain digits skip the (int) cast', () => {
    for (const v of ['0', '00', '007', '-1', '+1', ' 1', '1 ', '1e3', '1.9', '', 'abc', '12abc', '123456789012345678', '1234567890123456789', '9223372036854775807', '9223372036854775808', '9999999999999999999', '99999999999999999999', '٣']) {
      const fields: CallbackFields = { ...base, trx_id: v, paid_off: v };
      expect(canonicalizeCallback(fields), v).toBe(reference(fields));
    }
  });

  it('more key lists than the cache holds, in turns', () => {
    const shapes = Array.from({ length: 20 }, (_, i) => Object.fromEntries(Object.entries(base).slice(0, 1 + (i % 9)).concat([[`k${i}`, `v${i}`]])) as CallbackFields);
    for (let round = 0; round < 3; round++) for (const f of shapes) expect(canonicalizeCallback(f)).toBe(reference(f));
  });

  it('keys that sort differently as UTF-16 and as UTF-8, and keys that join alike', () => {
    const a: CallbackFields = { '\uffff': '1', '\ud83c\udf3a': '2', 'a\u0000b': '3', c: '4' };
    const b: CallbackFields = { a: '3', 'b\u0000c': '4', '\uffff': '1', '\ud83c\udf3a': '2' };
    for (const f of [a, b, a, b]) expect(canonicalizeCallback(f)).toBe(reference(f));
  });

  it('random payloads, each canonicalised twice', () => {
    const key = fc.oneof(fc.constantFrom('trx_id', 'status_code', 'paid_off', 'is_escrow', 'additional_info', 'signature', 'amount', 'via'), fc.string({ maxLength: 4 }), fc.string({ unit: 'binary', maxLength: 4 }));
    const value = fc.oneof(fc.string({ maxLength: 8 }), fc.string({ unit: 'binary', maxLength: 8 }), fc.constantFrom('1', '0', '[]', 'true', '01', '-5', 'Ñ🌺\u2028'.repeat(400)), fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.string({ unit: 'binary', maxLength: 3 }), { maxLength: 2 }));
    fc.assert(
      fc.property(fc.dictionary(key, value, { maxKeys: 10 }), (fields) => {
        const f = fields as CallbackFields;
        const want = reference(f);
        expect(canonicalizeCallback(f)).toBe(want);
        expect(canonicalizeCallback(f)).toBe(want);
        // ASCII whatever the fields hold: callbackSignatureMatches hashes it as Latin-1.
        expect(want).toMatch(/^[\u0000-\u007f]*$/);
        expect(hmacHex('1179000899', canonicalizeCallback(f))).toBe(hmacHex('1179000899', want));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('HMAC under the cached key object', () => {
  it('gives createHmac’s digest when keys alternate, repeat, hold non-ASCII or are empty', async () => {
    const { createHmac } = await import('node:crypto');
    const { hmacSha256Hex } = await import('../../src/core/signing/digest.js');
    const keys = ['1179000899', 'SANDBOX-KEY', '1179000899', 'Ö€🌺', '', '1179000899', ''];
    for (const k of keys) for (const text of ['', '{"a":1}', 'Ñ'.repeat(100)]) expect(hmacSha256Hex(k, text), `${k} ${text}`).toBe(createHmac('sha256', k).update(text).digest('hex'));
  });
});

describe('listen --json: the line written field by field', () => {
  it('is JSON.stringify of the same fields, for any strings, nulls, forwards and times', async () => {
    const { listenJsonLine } = await import('../../src/cli/commands/listen.js');
    const text = fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.string({ unit: 'binary' }), fc.constantFrom('"', '\\', '\u0000\u001f', '\ud800', '\udc00x', '\u2028', '🌺'));
    const maybe = fc.option(text, { nil: null });
    const forward = fc.record({ url: text, status: fc.option(fc.integer({ min: 100, max: 599 }), { nil: null }), ms: fc.option(fc.double({ noNaN: true, noDefaultInfinity: true }), { nil: null }) }, { requiredKeys: ['url', 'status', 'ms'] });
    const event = fc.record({
      id: text,
      receivedAt: text,
      trx_id: maybe,
      status: maybe,
      via: maybe,
      channel: maybe,
      amount: maybe,
      verdict: fc.constantFrom('valid', 'valid-variant', 'invalid', 'malformed'),
      variant: maybe,
      reason: maybe,
      duplicate: fc.boolean(),
      answer: fc.integer({ min: 100, max: 599 }),
      stored: fc.boolean(),
      forwards: fc.array(fc.oneof(forward, forward.map((f) => ({ ...f, error: 'ECONNREFUSED "x"' }))), { maxLength: 2 }),
      ms: fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constant(0), fc.constant(-0), fc.constant(12.3)),
    });
    fc.assert(
      fc.property(event, (v) => {
        const e = {
          type: 'request' as const,
          event: { id: v.id, receivedAt: v.receivedAt, method: 'POST', path: '/', headers: {}, body: '', verdict: v.verdict, variant: v.variant, reason: v.reason, duplicate: v.duplicate, trx_id: v.trx_id, status: v.status, answer: v.answer },
          summary: { trx_id: v.trx_id, status: v.status, via: v.via, channel: v.channel, amount: v.amount },
          forwards: v.forwards,
          stored: v.stored,
          ms: v.ms,
        };
        const ev = e.event;
        const want = JSON.stringify({ id: ev.id, receivedAt: ev.receivedAt, trx_id: ev.trx_id, status: ev.status, via: e.summary.via, channel: e.summary.channel, amount: e.summary.amount, verdict: ev.verdict, variant: ev.variant, reason: ev.reason, duplicate: ev.duplicate, answer: ev.answer, stored: e.stored, forwards: e.forwards, ms: e.ms });
        expect(listenJsonLine(e)).toBe(want);
      }),
      { numRuns: 3000 },
    );
  });
});

describe('form shapes: names and values instead of a fields object', () => {
  it('canonicalizeFormBytes does not keep a buffer grown for one large body', async () => {
    const { locateFormShape, parseFormBody: parse } = await import('../../src/core/callback/parse.js');
    const { canonicalizeFormBytes, formOutputSize } = await import('../../src/core/signing/callback-canonical.js');
    parse('trx_id=1&status=berhasil&note=x'); // remembered
    const big = `trx_id=1&status=berhasil&note=${'%22'.repeat(100_000)}`;
    const at = locateFormShape(big)!;
    const bytes = canonicalizeFormBytes(at.keys, big, at.bounds)!;
    expect(bytes.toString('latin1')).toBe(canonicalizeCallback(parse(big)));
    expect(formOutputSize()).toBeGreaterThan(64 * 1024);
    const small = 'trx_id=2&status=berhasil&note=y';
    const again = locateFormShape(small)!;
    expect(canonicalizeFormBytes(again.keys, small, again.bounds)!.toString('latin1')).toBe(canonicalizeCallback(parse(small)));
    expect(formOutputSize()).toBeLessThanOrEqual(64 * 1024);
  });

  it('the raw route and parseFormBody give what the pairwise parse gives, and the canonical form and signature checks agree', async () => {
    const { locateFormShape, decodeFormValue } = await import('../../src/core/callback/parse.js');
    const { canonicalizeFormBytes } = await import('../../src/core/signing/callback-canonical.js');
    const { callbackSignatureMatches, formSignatureMatches, signaturesEqual } = await import('../../src/core/signing/callback-signature.js');
    const names = [
      ['trx_id', 'status', 'is_escrow', 'additional_info', 'url'],
      ['status_code', 'paid_off', 'signature', 'buyer_name', 'transaction_status_code'],
      ['a', 'trx_id', 'additional_info'],
      ['1', 'b', '0'],
    ];
    const value = fc.oneof(
      fc.constantFrom('', '0', '007', '1', '183148', '9223372036854775808', '-5', '1e3', ' 12', 'true', 'TRUE', 'false', '[]', '%5B%5D', 'a+b', '%2B', '%2541', '%E2%82%AC', '%C3', '%ZZ', '%26', '%3D', 'x=y', 'https%3A%2F%2Fx.y%2F', '%F0%9F%8C%BA', '%00', 'Ñ', '%7F', '%7f', '%80', '%41%', '%4', '%', '%%41', '%g1', '%3a%2F'),
      fc.string({ maxLength: 6 }).map((t) => encodeURIComponent(t)),
    );
    const body = fc.tuple(fc.constantFrom(...names), fc.array(value, { minLength: 5, maxLength: 5 }), fc.boolean()).map(([keys, values, extra]) => keys.map((k, i) => `${k}=${values[i]}`).join('&') + (extra ? '&z=1' : ''));
    for (const keys of names) parseFormBody(keys.map((k) => `${k}=1`).join('&')); // remembered
    let read = 0;
    let rawRead = 0;
    fc.assert(
      fc.property(body, (b) => {
        const want = outcome(parseFormBodyPairwise, b);
        // The raw route (the listener's first try): names, decoded values and canonical bytes.
        const raw = locateFormShape(b);
        if (raw !== undefined) {
          rawRead++;
          const values = raw.keys.map((_, i) => decodeFormValue(b.slice(raw.bounds[2 * i], raw.bounds[2 * i + 1])));
          const bytes = canonicalizeFormBytes(raw.keys, b, raw.bounds);
          if (values.includes(undefined)) {
            expect(want).toHaveProperty('error');
            expect(bytes).toBeUndefined();
            expect(formSignatureMatches(raw.keys, b, raw.bounds, hmacHex('1179000899', 'x'), '1179000899')).toBeUndefined();
          } else {
            const fields = Object.fromEntries(raw.keys.map((k, i) => [k, values[i]!]));
            expect(outcome(() => fields, b)).toEqual(want);
            const canonical = reference(fields);
            expect(Buffer.from(bytes!).toString('latin1')).toBe(canonical);
            const good = hmacHex('1179000899', canonical);
            for (const sig of [good, ` ${good.toUpperCase()}`, hmacHex('x', canonical), '']) expect(formSignatureMatches(raw.keys, b, raw.bounds, sig, '1179000899')).toBe(callbackSignatureMatches(fields, sig, '1179000899'));
          }
        }
        // The general route (parseFormBody, whose remembered names give the same fields).
        expect(outcome(parseFormBody, b)).toEqual(want);
        if ((want as { error?: string }).error !== undefined) return;
        read++;
        const fields = parseFormBody(b);
        const canonical = canonicalizeCallback(fields);
        expect(canonical).toBe(reference(fields));
        expect(canonical).toMatch(/^[\u0000-\u007f]*$/); // hashed as Latin-1 by callbackSignatureMatches
        const good = hmacHex('1179000899', canonical);
        for (const sig of [good, good.toUpperCase(), hmacHex('x', canonical), '']) expect(callbackSignatureMatches(fields, sig, '1179000899')).toBe(signaturesEqual(good, sig));
      }),
      { numRuns: 3000 },
    );
    expect(read).toBeGreaterThan(500); // bodies that parse, not only errors
    expect(rawRead).toBeGreaterThan(500);
  });
});

describe('verify-callback --jsonl: a line checked from its raw form body', () => {
  it('gives what parsing, canonicalising and comparing give, for header and body signatures', async () => {
    const { verifyLine } = await import('../../src/cli/commands/verify-batch.js');
    const { parseCallbackBody } = await import('../../src/core/callback/parse.js');
    const { hexDigestsEqual } = await import('../../src/core/signing/digest.js');
    /** verifyLine as it was: the fields, then one canonical form, HMAC and comparison. */
    function before(text: string, va: string): string {
      let fields: CallbackFields;
      let header: string | undefined;
      try {
        const obj = JSON.parse(text) as { headers?: Record<string, string>; body: string };
        fields = parseCallbackBody(obj.body, obj.headers?.['content-type']).fields;
        header = obj.headers?.['x-signature'];
      } catch (err) {
        return `malformed ${(err as Error).message}`;
      }
      const received = header ?? (typeof fields.signature === 'string' ? fields.signature : '');
      return received && hexDigestsEqual(hmacHex(va, canonicalizeCallback(fields)), received) ? 'valid' : `mismatch ${received}`;
    }
    const after = (text: string, va: string) => {
      const o = verifyLine(text, 1, va);
      return o.kind === 'valid' ? 'valid' : o.kind === 'malformed' ? `malformed ${o.reason}` : `mismatch ${o.received}`;
    };
    const names = [['trx_id', 'status', 'url'], ['trx_id', 'status', 'signature', 'is_escrow'], ['signature', 'a']];
    for (const keys of names) parseFormBody(keys.map((k) => `${k}=1`).join('&')); // remembered
    const value = fc.constantFrom('', '1', '007', 'a+b', '%2B', '%ZZ', '%E2%82%AC', 'https%3A%2F%2Fx.y%2F', '%22', 'true', '%5B%5D', 'Ñ', '%');
    const body = fc.tuple(fc.constantFrom(...names), fc.array(value, { minLength: 4, maxLength: 4 })).map(([keys, values]) => keys.map((k, i) => `${k}=${values[i]}`).join('&'));
    let valid = 0;
    fc.assert(
      fc.property(body, fc.constantFrom('header', 'body', 'both', 'wrong', 'empty'), fc.constantFrom('application/x-www-form-urlencoded', undefined), (b, how, ct) => {
        let sig = '';
        try {
          sig = hmacHex('1179000899', canonicalizeCallback(parseCallbackBody(b, ct).fields));
        } catch {
          /* malformed: any signature */
        }
        let withSig = b;
        if (how === 'body' || how === 'both') withSig = b.replace(/(^|&)signature=[^&]*/, `$1signature=${sig}`);
        const headers: Record<string, string> = ct ? { 'content-type': ct } : {};
        if (how === 'header' || how === 'both') headers['x-signature'] = sig;
        if (how === 'wrong') headers['x-signature'] = hmacHex('other', sig);
        if (how === 'empty') headers['x-signature'] = '';
        const text = JSON.stringify({ headers, body: withSig });
        const want = before(text, '1179000899');
        if (want === 'valid') valid++;
        expect(after(text, '1179000899')).toBe(want);
      }),
      { numRuns: 3000 },
    );
    expect(valid).toBeGreaterThan(300);
  });
});

describe('an event in the store', () => {
  it('reads back as it was written, whatever its body, headers and reason hold', async () => {
    const { EventStore } = await import('../../src/core/listener/event-store.js');
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dir = mkdtempSync(join(tmpdir(), 'paycli-store-'));
    const store = new EventStore(join(dir, 'events.db'));
    const text = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom('', '"body":""', '{"body":""}', 'a=1&b=%22', 'x"y', 'x\\y', '\n', '\u0000', '🌺', 'Ñ'));
    const maybe = fc.option(text, { nil: null });
    let n = 0;
    const event = fc.record({
      receivedAt: text,
      method: fc.constantFrom('POST', 'GET'),
      path: text,
      headers: fc.dictionary(fc.oneof(text, fc.constant('body')), fc.oneof(text, fc.constant(''))),
      body: fc.oneof(text, fc.constant('trx_id=1&status=berhasil&url=https%3A%2F%2Fx')),
      verdict: fc.constantFrom('valid' as const, 'valid-variant' as const, 'invalid' as const, 'malformed' as const),
      variant: maybe,
      reason: maybe,
      duplicate: fc.boolean(),
      trx_id: maybe,
      status: maybe,
      answer: fc.integer({ min: 100, max: 599 }),
      source: fc.constantFrom('listen' as const, 'trigger' as const),
    });
    try {
      await fc.assert(
        fc.asyncProperty(event, async (e) => {
          const stored = { id: `evt_${n++}`, ...e };
          // Lone surrogates cannot be UTF-8: JSON.stringify escapes them in headers, SQLite's text replaces them in the body.
          const wellFormed = (x: string) => !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(x);
          fc.pre([stored.body, stored.path, stored.receivedAt, stored.reason ?? '', stored.variant ?? '', stored.trx_id ?? '', stored.status ?? ''].every(wellFormed));
          await store.append(stored);
          expect(await store.find(stored.id)).toEqual(JSON.parse(JSON.stringify(stored)));
        }),
        { numRuns: 300 },
      );
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
