import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseCallbackBody } from '../../src/core/callback/parse.js';
import { CallbackVerifier, type CallbackVerification } from '../../src/core/callback/verifier.js';
import { type CallbackFields, canonicalizeCallback } from '../../src/core/signing/callback-canonical.js';
import { hmacHex } from '../../src/core/signing/callback-signature.js';
import { hexDigestsEqual } from '../../src/core/signing/digest.js';

const VA = '1179000899';

function str(v: unknown): string | null {
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : null;
}

/** The reference check, written out: parse, canonical JSON, HMAC, comparison; with the summary. */
function reference(body: string, headers: Record<string, string>, bodySignature: boolean): unknown {
  let fields: CallbackFields;
  try {
    fields = parseCallbackBody(body, headers['content-type']).fields;
  } catch (err) {
    return { verdict: 'malformed', error: (err as Error).message };
  }
  const summary = { trx_id: str(fields.trx_id), status: str(fields.status), via: str(fields.via), channel: str(fields.channel), amount: str(fields.amount) };
  const signature = headers['x-signature'] ?? (bodySignature && typeof fields.signature === 'string' ? fields.signature : '');
  if (signature.trim() === '') return { verdict: 'unsigned', summary };
  return { verdict: hexDigestsEqual(hmacHex(VA, canonicalizeCallback(fields)), signature) ? 'valid' : 'mismatch', summary };
}

function seen(v: CallbackVerification): unknown {
  if (v.verdict === 'malformed') return { verdict: 'malformed', error: (v.error as Error).message };
  return { verdict: v.verdict, summary: v.summary };
}

/** The fast path answered: a valid verdict without parsed fields. */
const fast = (v: CallbackVerification) => v.verdict === 'valid' && v.fields === undefined;

describe('CallbackVerifier: the fast path gives what the reference path gives', () => {
  const names = [
    ['trx_id', 'status', 'is_escrow', 'additional_info', 'url', 'amount'],
    ['status_code', 'paid_off', 'signature', 'buyer_name', 'transaction_status_code', 'via'],
    ['a', 'trx_id', 'additional_info', 'channel', 'b', 'c'],
    ['1', 'b', '0', 'signature', 'x', 'y'],
  ];
  const value = fc.oneof(
    fc.constantFrom(
      '',
      '0',
      '007',
      '1',
      '183148',
      '9223372036854775808',
      '-5',
      '1e3',
      ' 12',
      'true',
      'TRUE',
      'false',
      '[]',
      '%5B%5D',
      'a+b',
      '%2B',
      '%2541',
      '%E2%82%AC',
      '%C3',
      '%ZZ',
      '%26',
      '%3D',
      'x=y',
      'https%3A%2F%2Fx.y%2F',
      '%F0%9F%8C%BA',
      '%00',
      'Ñ',
      '%7F',
      '%7f',
      '%80',
      '%41%',
      '%4',
      '%',
      '%%41',
      '%g1',
      '%3a%2F',
      '%22%5C%2F%08',
    ),
    fc.string({ maxLength: 6 }).map((t) => encodeURIComponent(t)),
  );
  const body = fc
    .tuple(fc.constantFrom(...names), fc.array(value, { minLength: 6, maxLength: 6 }), fc.constantFrom('', '&z=1', '&', '&trx_id=2'))
    .map(([keys, values, extra]) => keys.map((k, i) => `${k}=${values[i]}`).join('&') + extra);

  for (const signatureFrom of ['header', 'header-or-body'] as const) {
    it(`on random form bodies of a few shapes, signed in the header, the body, wrongly or not at all (signature from ${signatureFrom})`, () => {
      const verifier = new CallbackVerifier({ signatureFrom });
      let fastHits = 0;
      let valid = 0;
      fc.assert(
        fc.property(
          body,
          fc.constantFrom('header', 'body', 'both', 'wrong', 'empty', 'none'),
          fc.constantFrom('application/x-www-form-urlencoded', undefined),
          (b, how, ct) => {
            let sig = '';
            try {
              sig = hmacHex(VA, canonicalizeCallback(parseCallbackBody(b, ct).fields));
            } catch {
              /* malformed: any signature */
            }
            const signed = how === 'body' || how === 'both' ? b.replace(/(^|&)signature=[^&]*/, `$1signature=${sig}`) : b;
            const headers: Record<string, string> = ct ? { 'content-type': ct } : {};
            if (how === 'header' || how === 'both') headers['x-signature'] = sig;
            if (how === 'wrong') headers['x-signature'] = hmacHex('other', sig);
            if (how === 'empty') headers['x-signature'] = '';
            const want = reference(signed, headers, signatureFrom === 'header-or-body');
            // Twice: the first read teaches the verifier the names, the second may take the fast path.
            for (let round = 0; round < 2; round++) {
              const v = verifier.verify(signed, headers, VA);
              expect(seen(v), `${signed} ${JSON.stringify(headers)}`).toEqual(want);
              if (fast(v)) fastHits++;
              if (v.verdict === 'valid') valid++;
            }
          },
        ),
        { numRuns: 3000 },
      );
      expect(valid).toBeGreaterThan(500);
      expect(fastHits).toBeGreaterThan(300);
    });
  }

  it('bodies that share names with a remembered body but differ in any way are still read right', () => {
    const verifier = new CallbackVerifier();
    const signedHeaders = (b: string) => {
      try {
        return { 'x-signature': hmacHex(VA, canonicalizeCallback(parseCallbackBody(b).fields)) };
      } catch {
        return { 'x-signature': 'ab'.repeat(32) };
      }
    };
    verifier.verify('trx_id=1&status=berhasil&via=qris', signedHeaders('trx_id=1&status=berhasil&via=qris'), VA);
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
      'trx_id=1&status=%ZZ&via=qris',
      'trx_id=1&status=berhasil&via=%E2%82',
    ];
    for (const b of variants) {
      const headers = signedHeaders(b);
      for (let round = 0; round < 2; round++) expect(seen(verifier.verify(b, headers, VA)), b).toEqual(reference(b, headers, false));
    }
  });

  it('JSON bodies, malformed bodies and a missing VA', () => {
    const verifier = new CallbackVerifier();
    const json = '{"trx_id":183148,"status":"berhasil","amount":"102000","is_escrow":true}';
    const headers = {
      'content-type': 'application/json',
      'x-signature': hmacHex(VA, canonicalizeCallback(parseCallbackBody(json, 'application/json').fields)),
    };
    expect(seen(verifier.verify(json, headers, VA))).toEqual(reference(json, headers, false));
    expect(verifier.verify(json, headers, VA).summary.trx_id).toBe('183148');
    expect(seen(verifier.verify('{"a":', headers, VA))).toEqual(reference('{"a":', headers, false));
    expect(verifier.verify('', {}, VA).verdict).toBe('malformed');
    expect(() => verifier.verify(json, headers, '')).toThrow(/no merchant VA/);
    // Header names in any case (a capture's), as the listener's lower-cased ones.
    expect(verifier.verify(json, { 'Content-Type': 'application/json', 'X-Signature': headers['x-signature'] }, VA).verdict).toBe('valid');
  });
});

describe('CallbackVerifier: its state is its own', () => {
  it('one verifier learning a shape does not change what another does', () => {
    const b = 'trx_id=1&status=berhasil&note=x';
    const headers = { 'x-signature': hmacHex(VA, canonicalizeCallback(parseCallbackBody(b).fields)) };
    const a = new CallbackVerifier();
    expect(fast(a.verify(b, headers, VA))).toBe(false); // learns
    expect(fast(a.verify(b, headers, VA))).toBe(true);
    const other = new CallbackVerifier();
    expect(fast(other.verify(b, headers, VA))).toBe(false);
  });

  it('does not keep a buffer grown for one large body', () => {
    const verifier = new CallbackVerifier();
    const sign = (b: string) => ({ 'x-signature': hmacHex(VA, canonicalizeCallback(parseCallbackBody(b).fields)) });
    const small = 'trx_id=2&status=berhasil&note=y';
    verifier.verify(small, sign(small), VA); // learns
    const big = `trx_id=1&status=berhasil&note=${'%22'.repeat(100_000)}`;
    const v = verifier.verify(big, sign(big), VA);
    expect(fast(v)).toBe(true);
    expect(verifier.bufferBytes).toBeGreaterThan(64 * 1024);
    expect(fast(verifier.verify(small, sign(small), VA))).toBe(true);
    expect(verifier.bufferBytes).toBeLessThanOrEqual(64 * 1024);
  });
});

describe('CallbackVerifier: the fast path under any VA', () => {
  it('checks as the reference does for VAs of any length (longer than a block too) while its buffer grows and shrinks', () => {
    const vas = ['x', 'a'.repeat(63), 'b'.repeat(64), 'c'.repeat(65), 'd'.repeat(200), 'é'.repeat(33), '🌺'.repeat(20), VA];
    // 16 KiB is the buffer's first size, 64 KiB the most it keeps between bodies.
    const sizes = [1, 100, 20 * 1024, 70 * 1024, 10, 200 * 1024, 5];
    const verifier = new CallbackVerifier();
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    let fast = 0;
    for (let round = 0; round < 2; round++)
      for (const va of vas)
        for (const size of sizes) {
          const body = `trx_id=123&status=berhasil&via=qris&channel=mpm&amount=1000&reference_id=${'r'.repeat(size)}&additional_info=%5B%5D&is_escrow=false`;
          const signature = hmacHex(va, canonicalizeCallback(parseCallbackBody(body, form['content-type']).fields));
          const ok = verifier.verify(body, { ...form, 'x-signature': signature }, va);
          expect(ok.verdict, `VA of ${va.length} characters, ${size}-byte value`).toBe('valid');
          if (ok.fields === undefined) fast++; // the reference path returns the fields it parsed
          const other = signature.slice(0, 63) + (signature[63] === '0' ? '1' : '0');
          expect(verifier.verify(body, { ...form, 'x-signature': other }, va).verdict).toBe('mismatch');
          expect(verifier.verify(body, { ...form, 'x-signature': signature }, `${va}z`).verdict).toBe('mismatch');
        }
    expect(fast).toBeGreaterThan(vas.length * sizes.length);
  });
});

describe('signature comparison', () => {
  const HEX = /^(?:[0-9a-fA-F]{2})+$/;
  /** The rule as documented: trimmed, same length, non-empty even-length hex on both sides, bytes equal. */
  function rule(a: string, b: string): boolean {
    const x = a.trim();
    const y = b.trim();
    return x.length > 0 && x.length === y.length && HEX.test(x) && HEX.test(y) && Buffer.from(x, 'hex').equals(Buffer.from(y, 'hex'));
  }
  it('agrees with the documented rule, also on characters Buffer’s hex decoder misreads', () => {
    const digest = hmacHex('k', 'x');
    // U+0130 and U+0661 decode as hex digits through their low byte in Buffer.from(…, 'hex').
    const near = fc.constantFrom('0', '9', 'a', 'f', 'A', 'F', 'g', ' ', '\n', '\u00a0', '\u0130', '\u0131', '\u0661', '\ufeff');
    const mutate = fc.tuple(fc.nat(70), near, fc.boolean()).map(
      ([at, c, insert]) =>
        (s: string) =>
          s.slice(0, at) + c + s.slice(insert ? at : at + 1),
    );
    const side = fc
      .tuple(fc.constantFrom(digest, digest.toUpperCase(), hmacHex('k', 'y'), digest.slice(0, 10), ''), fc.array(mutate, { maxLength: 3 }))
      .map(([s, fs]) => fs.reduce((t, f) => f(t), s));
    fc.assert(
      fc.property(side, side, (a, b) => {
        expect(hexDigestsEqual(a, b)).toBe(rule(a, b));
      }),
      { numRuns: 5000 },
    );
    expect(hexDigestsEqual(digest, `\u0130${digest.slice(2)}`)).toBe(false);
    expect(hexDigestsEqual(`${digest}00`, `${digest}00`)).toBe(true); // longer than a SHA-256 digest
  });

  it('the fast path compares as the rule does (case, space, length, non-hex)', () => {
    const b = 'trx_id=1&status=berhasil';
    const good = hmacHex(VA, canonicalizeCallback(parseCallbackBody(b).fields));
    const verifier = new CallbackVerifier();
    verifier.verify(b, { 'x-signature': good }, VA); // learns
    for (const sig of [good, ` ${good.toUpperCase()}\n`, `${good}00`, good.slice(2), `\u0130${good.slice(2)}`, 'zz'.repeat(32), hmacHex('x', 'y')]) {
      expect(verifier.verify(b, { 'x-signature': sig }, VA).verdict, sig).toBe(rule(good, sig) ? 'valid' : 'mismatch');
    }
  });
});
