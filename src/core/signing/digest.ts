import { createHash, createHmac, createSecretKey, type KeyObject, timingSafeEqual } from 'node:crypto';

/**
 * SHA-256 and HMAC-SHA256 in lower-case hex, for every signature paycli makes or checks: always
 * OpenSSL through node:crypto (docs/gateway.md, "Request signing" and "Callback signatures").
 */

/** SHA-256 of text (UTF-8) or bytes. */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/**
 * The last key, as a KeyObject: createHmac then skips turning the text key into bytes on every call
 * (≈0.3 µs of ≈2.2 µs per callback; a listener and a batch check every callback with one VA).
 */
let lastKey: { text: string; key: KeyObject } | undefined;

/** HMAC-SHA256 of text (UTF-8) under a text key. */
export function hmacSha256Hex(key: string, text: string): string {
  if (lastKey?.text !== key) {
    // An empty key cannot be a KeyObject (createHmac takes it; callers refuse an empty VA anyway).
    if (key === '') return createHmac('sha256', key).update(text).digest('hex');
    lastKey = { text: key, key: createSecretKey(Buffer.from(key, 'utf8')) };
  }
  return createHmac('sha256', lastKey.key).update(text).digest('hex');
}

const HEX = /^(?:[0-9a-fA-F]{2})+$/;

/**
 * Constant-time comparison of two hex digests: case-insensitive, surrounding white space ignored.
 * Both must be non-empty, even-length hex; anything else (including two empty strings) is unequal.
 * The bytes are compared with `timingSafeEqual` after a length check (lengths are not secret).
 */
export function hexDigestsEqual(expected: string, received: string): boolean {
  const a = expected.trim();
  const b = received.trim();
  if (a.length === 0 || a.length !== b.length || !HEX.test(a) || !HEX.test(b)) return false;
  return timingSafeEqual(Buffer.from(a, 'hex'), Buffer.from(b, 'hex'));
}
