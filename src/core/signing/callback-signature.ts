import { canonicalizeCallback, type CallbackFields, type CanonicalOptions } from './callback-canonical.js';
import { hmacSha256Hex } from './digest.js';

/** HMAC-SHA256 in lower-case hex (digest.ts: in TypeScript for a process's first few, then node:crypto). */
export const hmacHex = hmacSha256Hex;

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
