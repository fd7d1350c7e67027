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

/** Whether text is even-length hex, either case (character by character: no regular expression). */
function isEvenHex(text: string): boolean {
  const n = text.length;
  if ((n & 1) === 1) return false;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (!((c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102))) return false; // 0-9 A-F a-f
  }
  return true;
}

/** Where two SHA-256 digests are decoded to be compared: every comparison is synchronous, so two buffers serve them all. */
const scratchA = Buffer.alloc(32);
const scratchB = Buffer.alloc(32);

/**
 * Whether a received hex digest is HMAC-SHA256(key, text): `hexDigestsEqual(hmacSha256Hex(key, text), received)`
 * (surrounding white space ignored, either case, anything but 64 hex digits unequal), with the
 * expected digest taken as bytes (no hex text made and decoded again) and compared with timingSafeEqual.
 * `ascii`: the caller knows that text holds only ASCII (the gateway's canonical form escapes every
 * other character), so its UTF-8 bytes are its Latin-1 bytes: it is hashed as 'latin1', which spares
 * node:crypto the UTF-8 length pass over a text built by concatenation (≈1 µs for a callback's).
 */
export function hmacSha256Matches(key: string, text: string | Uint8Array, received: string, ascii = false): boolean {
  if (lastKey?.text !== key && key !== '') lastKey = { text: key, key: createSecretKey(Buffer.from(key, 'utf8')) };
  // 'binary' (latin1): the 32 bytes as one character each, copied into the buffer as they are.
  const hmac = createHmac('sha256', key === '' ? key : lastKey!.key);
  const expected = (typeof text === 'string' ? hmac.update(text, ascii ? 'latin1' : 'utf8') : hmac.update(text)).digest('binary');
  const b = received.trim();
  if (b.length !== 64 || !isEvenHex(b)) return false;
  scratchA.write(expected, 'latin1');
  scratchB.write(b, 'hex');
  return timingSafeEqual(scratchA, scratchB);
}

/**
 * Constant-time comparison of two hex digests: case-insensitive, surrounding white space ignored.
 * Both must be non-empty, even-length hex; anything else (including two empty strings) is unequal.
 * The bytes are compared with `timingSafeEqual` after a length check (lengths are not secret).
 * (Checked and decoded without a regular expression or new buffers for 32-byte digests: the
 * listener compares one per callback.)
 */
export function hexDigestsEqual(expected: string, received: string): boolean {
  const a = expected.trim();
  const b = received.trim();
  if (a.length === 0 || a.length !== b.length || !isEvenHex(a) || !isEvenHex(b)) return false;
  if (a.length !== 64) return timingSafeEqual(Buffer.from(a, 'hex'), Buffer.from(b, 'hex'));
  scratchA.write(a, 'hex');
  scratchB.write(b, 'hex');
  return timingSafeEqual(scratchA, scratchB);
}
