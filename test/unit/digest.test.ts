import { createHash, createHmac } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { hexDigestsEqual, hmacSha256Hex, sha256Hex } from '../../src/core/signing/digest.js';
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
