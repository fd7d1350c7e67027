import { createHash, createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hmacSha256, sha256, toHex } from '../../src/core/signing/sha256.js';
import { hmacHex, signaturesEqual } from '../../src/core/signing/callback-signature.js';
import { sha256Hex } from '../../src/core/signing/digest.js';

const bytes = (s: string) => new TextEncoder().encode(s);
const hex = (h: string) => Uint8Array.from(h.match(/../g)!.map((x) => parseInt(x, 16)));

describe('SHA-256 and HMAC-SHA256 in TypeScript', () => {
  it('reproduces the FIPS 180-4 examples and every padding boundary', () => {
    expect(toHex(sha256(bytes('')))).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(toHex(sha256(bytes('abc')))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(toHex(sha256(bytes('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')))).toBe('248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1');
    for (let n = 0; n <= 200; n++) {
      const data = Uint8Array.from({ length: n }, (_, i) => (i * 31 + n) & 0xff);
      expect(toHex(sha256(data)), `length ${n}`).toBe(createHash('sha256').update(data).digest('hex'));
    }
  });

  it('reproduces RFC 4231 (including keys longer than a block)', () => {
    expect(toHex(hmacSha256(hex('0b'.repeat(20)), bytes('Hi There')))).toBe('b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7');
    expect(toHex(hmacSha256('Jefe', 'what do ya want for nothing?'))).toBe('5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843');
    expect(toHex(hmacSha256(hex('aa'.repeat(20)), hex('dd'.repeat(50))))).toBe('773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe');
    expect(toHex(hmacSha256(hex('aa'.repeat(131)), bytes('Test Using Larger Than Block-Size Key - Hash Key First')))).toBe('60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54');
  });

  it('agrees with node:crypto on any key and any Unicode message', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 90 }), fc.string({ unit: 'grapheme', maxLength: 400 }), (key, message) => {
        expect(toHex(hmacSha256(key, message))).toBe(createHmac('sha256', key).update(message).digest('hex'));
      }),
      { numRuns: 1000 },
    );
  });

  it('gives the same digests before and after the process hands over to node:crypto', () => {
    for (let i = 0; i < 40; i++) {
      const text = `{"trx_id":${i},"buyer_name":"Nyoman Ö 🌺"}`;
      expect(hmacHex('1179000899', text)).toBe(createHmac('sha256', '1179000899').update(text).digest('hex'));
      expect(sha256Hex(text)).toBe(createHash('sha256').update(text).digest('hex'));
      expect(sha256Hex(Buffer.from(text))).toBe(createHash('sha256').update(text).digest('hex'));
    }
    const large = 'x'.repeat(20_000); // beyond the TypeScript path's size limit
    expect(sha256Hex(large)).toBe(createHash('sha256').update(large).digest('hex'));
  });

  it('compares signatures case-insensitively, ignoring surrounding space, and never equal across lengths', () => {
    const s = createHmac('sha256', 'k').update('x').digest('hex');
    expect(signaturesEqual(s, ` ${s.toUpperCase()}\n`)).toBe(true);
    expect(signaturesEqual(s, s.slice(0, -1))).toBe(false);
    expect(signaturesEqual(s, s.slice(0, -1) + (s.endsWith('0') ? '1' : '0'))).toBe(false);
    expect(signaturesEqual('', '')).toBe(true);
  });
});
