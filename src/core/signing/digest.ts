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

/** Whether text is even-length hex, either case (character by character: no regular expression). */
export function isEvenHex(text: string): boolean {
  const n = text.length;
  if ((n & 1) === 1) return false;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (!((c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102))) return false; // 0-9 A-F a-f
  }
  return true;
}

/**
 * Constant-time comparison of two hex digests: case-insensitive, surrounding white space ignored.
 * Both must be non-empty, even-length hex; anything else (including two empty strings) is unequal.
 * The bytes are compared with `timingSafeEqual` after a length check (lengths are not secret).
 */
export function hexDigestsEqual(expected: string, received: string): boolean {
  const a = expected.trim();
  const b = received.trim();
  if (a.length === 0 || a.length !== b.length || !isEvenHex(a) || !isEvenHex(b)) return false;
  return timingSafeEqual(Buffer.from(a, 'hex'), Buffer.from(b, 'hex'));
}
