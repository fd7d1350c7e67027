import { createHash, createHmac } from 'node:crypto';
import { hmacSha256, sha256, toHex } from './sha256.js';

/**
 * SHA-256 and HMAC-SHA256 in lower-case hex, for every signature paycli makes or checks. A process's
 * first few digests are computed in TypeScript (sha256.ts), so that a one-shot command — verify one
 * callback, sign one request — never loads node:crypto (~1.5 ms of its start-up, BENCHMARKS.md);
 * after that, and for large inputs, OpenSSL's faster code through node:crypto. Same results either
 * way (test/unit/sha256.test.ts).
 */
const SCRIPT_BUDGET = 8;
const SCRIPT_MAX_LENGTH = 16_384;
let scriptUses = 0;
const utf8 = new TextEncoder();

function inScript(length: number): boolean {
  if (scriptUses >= SCRIPT_BUDGET || length > SCRIPT_MAX_LENGTH) return false;
  scriptUses++;
  return true;
}

/** SHA-256 of text (UTF-8) or bytes. */
export function sha256Hex(data: string | Uint8Array): string {
  if (inScript(data.length)) return toHex(sha256(typeof data === 'string' ? utf8.encode(data) : data));
  return createHash('sha256').update(data).digest('hex');
}

/** HMAC-SHA256 of text (UTF-8) under a text key. */
export function hmacSha256Hex(key: string, text: string): string {
  if (inScript(text.length)) return toHex(hmacSha256(key, text));
  return createHmac('sha256', key).update(text).digest('hex');
}
