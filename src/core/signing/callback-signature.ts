import { canonicalizeCallback, type CallbackFields, type CanonicalOptions } from './callback-canonical.js';
import { hexDigestsEqual, hmacSha256Hex } from './digest.js';

/** HMAC-SHA256 in lower-case hex (node:crypto). */
export const hmacHex = hmacSha256Hex;

/** The `X-Signature` the gateway sends for these fields: HMAC of the canonical JSON with the merchant VA. */
export function signCallback(fields: CallbackFields, va: string, options?: Partial<CanonicalOptions>): string {
  return hmacHex(va, canonicalizeCallback(fields, options));
}

/**
 * Constant-time comparison of two hex signatures (`timingSafeEqual` on the decoded bytes),
 * case-insensitive, surrounding space ignored. Empty or non-hex input is never equal, not even to itself.
 */
export function signaturesEqual(expected: string, received: string): boolean {
  return hexDigestsEqual(expected, received);
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
