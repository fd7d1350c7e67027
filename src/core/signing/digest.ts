import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/**
 * SHA-256 and HMAC-SHA256 in lower-case hex, for every signature paycli makes or checks: always
 * OpenSSL through node:crypto (docs/gateway.md, "Request signing" and "Callback signatures").
 */

/** SHA-256 of text (UTF-8) or bytes. */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** HMAC-SHA256 of text (UTF-8) under a text key. */
export function hmacSha256Hex(key: string, text: string): string {
  return createHmac('sha256', key).update(text).digest('hex');
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
