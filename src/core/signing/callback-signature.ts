import { canonicalizeCallback, type CallbackFields, type CanonicalOptions } from './callback-canonical.js';
import { AuthError } from '../errors.js';
import { hexDigestsEqual, hmacSha256Hex } from './digest.js';

/** HMAC-SHA256 in lower-case hex (node:crypto). */
export const hmacHex = hmacSha256Hex;

/**
 * The merchant VA (the callback signing key) is missing or empty: for example an environment
 * variable that is not set. Thrown by signCallback, verifyCallback and checkCallback on their
 * first call, whatever the payload; the CLI maps it to exit 4.
 */
export class MissingVaError extends AuthError {
  constructor(message = 'no merchant VA to check the callback signature with (callbacks are signed with the VA)') {
    super(message, { hint: 'pass the merchant VA of the environment that sends the callbacks (sandbox and production differ)', code: 'ERR_MISSING_VA' });
    this.name = 'MissingVaError';
  }
}

/** Returns the VA, or throws MissingVaError when it is not a non-empty string. */
export function requireVa(va: unknown): string {
  if (typeof va !== 'string' || va.trim() === '') throw new MissingVaError();
  return va;
}

/** The `X-Signature` the gateway sends for these fields: HMAC of the canonical JSON with the merchant VA. */
export function signCallback(fields: CallbackFields, va: string | undefined, options?: Partial<CanonicalOptions>): string {
  return hmacHex(requireVa(va), canonicalizeCallback(fields, options));
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
  /** The merchant VA; undefined or empty throws MissingVaError. */
  va: string | undefined;
}

export interface VerifyCallbackResult {
  valid: boolean;
  expected: string;
  received: string;
  canonical: string;
}

/**
 * Verifies a callback's `X-Signature` against the merchant VA with the gateway's canonical form.
 * Use `checkCallback(…, { diagnose: true })` on a mismatch to learn why.
 */
export function verifyCallback(input: VerifyCallbackInput): VerifyCallbackResult {
  const va = requireVa(input.va);
  const canonical = canonicalizeCallback(input.fields);
  const expected = hmacHex(va, canonical);
  return { valid: signaturesEqual(expected, input.signature), expected, received: input.signature, canonical };
}
