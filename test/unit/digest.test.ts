import { createHash, createHmac } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { HMAC_BLOCK, HmacSha256, hexDigestsEqual, hmacSha256Hex, sha256Hex } from '../../src/core/signing/digest.js';
import { signaturesEqual } from '../../src/core/signing/callback-signature.js';

describe('digests through node:crypto', () => {
  it('reproduces FIPS 180-4 and RFC 4231 vectors', () => {
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Hex(new TextEncoder().encode('abc'))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(hmacSha256Hex('Jefe', 'what do ya want for nothing?')).toBe('5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843');
  });

  it('behaves the same on the first call and the thousandth (no process-wide budget)', () => {
    const text = '{"trx_id":1,"buyer_name":"Nyoman \\u00d6"}';
    const want = createHmac('sha256', '1179000899').update(text).digest('hex');
    for (let i = 0; i < 1000; i++) expect(hmacSha256Hex('1179000899', text)).toBe(want);
    expect(sha256Hex('x'.repeat(20_000))).toBe(createHash('sha256').update('x'.repeat(20_000)).digest('hex'));
  });

  it('has no hand-written SHA-256 left in the source', () => {
    expect(readdirSync(new URL('../../src/core/signing/', import.meta.url))).not.toContain('sha256.ts');
  });
});

describe('HmacSha256: the fast path HMAC from two SHA-256 digests', () => {
  const hmacOf = (h: HmacSha256, message: Uint8Array, slack = 0) => {
    const out = Buffer.alloc(HMAC_BLOCK + message.length + slack, 0xee);
    h.writeInnerPad(out);
    out.set(message, HMAC_BLOCK);
    return h.digest(out, HMAC_BLOCK + message.length).toString('hex');
  };

  it('reproduces RFC 4231 (a 131-byte key is hashed first)', () => {
    expect(hmacOf(new HmacSha256(Buffer.from('Jefe')), Buffer.from('what do ya want for nothing?'))).toBe(
      '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    );
    const long = Buffer.alloc(131, 0xaa);
    expect(hmacOf(new HmacSha256(long), Buffer.from('Test Using Larger Than Block-Size Key - Hash Key First'))).toBe(
      '60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54',
    );
  });

  it('equals createHmac (the reference) for any key and message, whatever lies after the message', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), fc.uint8Array({ maxLength: 3000 }), fc.nat(64), (key, message, slack) => {
        const h = new HmacSha256(key);
        const want = createHmac('sha256', Buffer.from(key)).update(message).digest('hex');
        expect(hmacOf(h, message, slack)).toBe(want);
        expect(hmacOf(h, message)).toBe(want); // the pads are left as they were
      }),
      { numRuns: 2000 },
    );
  });
});

describe('signature comparison', () => {
  const s = createHmac('sha256', 'k').update('x').digest('hex');
  it('is case-insensitive and ignores surrounding space', () => {
    expect(signaturesEqual(s, ` ${s.toUpperCase()}\n`)).toBe(true);
    expect(hexDigestsEqual(s.toUpperCase(), s)).toBe(true);
  });
  it('is never equal across lengths, on one changed digit, or for empty or non-hex input', () => {
    expect(signaturesEqual(s, s.slice(0, -2))).toBe(false);
    expect(signaturesEqual(s, s.slice(0, -1) + (s.endsWith('0') ? '1' : '0'))).toBe(false);
    expect(signaturesEqual('', '')).toBe(false);
    expect(signaturesEqual('  ', ' ')).toBe(false);
    expect(signaturesEqual('zz', 'zz')).toBe(false);
    expect(signaturesEqual('abc', 'abc')).toBe(false); // odd length is not a digest
    expect(signaturesEqual(s, `${s}00`)).toBe(false);
  });
});
