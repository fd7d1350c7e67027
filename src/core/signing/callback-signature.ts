import { createHmac } from 'node:crypto';
import { canonicalizeCallback, type CallbackFields, type CanonicalOptions } from './callback-canonical.js';
import { hmacSha256, toHex } from './sha256.js';

/**
 * How many HMACs of a process are computed in TypeScript before node:crypto takes over: enough for a
 * one-shot command (verify or sign one callback) to never load node:crypto (~1.5 ms of its start-up);
 * the listener, batches and mismatch diagnoses soon switch to OpenSSL's faster code. The results are
 * the same (test/unit/sha256.test.ts).
 */
const SCRIPT_HMACS = 8;
let scriptHmacs = 0;

/** HMAC-SHA256 in lower-case hex. */
export function hmacHex(key: string, text: string): string {
  if (scriptHmacs < SCRIPT_HMACS && text.length <= 16_384) {
    scriptHmacs++;
    return toHex(hmacSha256(key, text));
  }
  return createHmac('sha256', key).update(text).digest('hex');
}

/** The `X-Signature` the gateway sends for these fields: HMAC of the canonical JSON with the merchant VA. */
export function signCallback(fields: CallbackFields, va: string, options?: Partial<CanonicalOptions>): string {
  return hmacHex(va, canonicalizeCallback(fields, options));
}

/** Constant-time comparison of two hex signatures, case-insensitive, surrounding space ignored. */
export function signaturesEqual(expected: string, received: string): boolean {
  const a = expected.trim().toLowerCase();
  const b = received.trim().toLowerCase();
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}

export interface VerifyCallbackInput {
  fields: CallbackFields;
  signature: string;
  va: string;
}

export interface VerifyCallbackResult {
  valid: boolean;
  expected: string;
  received: string;
  canonical: string;
}

/**
 * Verifies a callback's `X-Signature` against the merchant VA with the gateway's canonical form.
 * Use `diagnoseCallback` (variants.ts) on a mismatch to learn why.
 */
export function verifyCallback(input: VerifyCallbackInput): VerifyCallbackResult {
  const canonical = canonicalizeCallback(input.fields);
  const expected = hmacHex(input.va, canonical);
  return { valid: signaturesEqual(expected, input.signature), expected, received: input.signature, canonical };
}
