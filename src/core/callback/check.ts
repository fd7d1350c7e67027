import type { CallbackFields } from '../signing/callback-canonical.js';
import { verifyCallback } from '../signing/callback-signature.js';
import { diagnoseCallback, VARIATIONS, type CandidateKey, type Diagnosis } from '../signing/variants.js';

export interface CallbackCheck {
  verdict: 'valid' | 'valid-variant' | 'invalid';
  expected: string;
  received: string;
  canonical: string;
  diagnosis: Diagnosis | null;
  /** One line for the merchant. */
  reason: string;
}

const NO_MATCH = 'no known variant or key reproduces it: the payload was changed after signing, or it was signed with a key paycli does not know';

/**
 * Verifies a callback signature and, on a mismatch, explains it. A match through an undocumented
 * encoding of the gateway (non-ASCII raw, null as null) with the merchant VA is `valid-variant`:
 * authentic, but worth a warning.
 */
export function checkCallback(fields: CallbackFields, received: string, va: string, otherKeys: readonly CandidateKey[] = [], options: { diagnose?: boolean } = {}): CallbackCheck {
  const v = verifyCallback({ fields, signature: received, va });
  if (v.valid) return { verdict: 'valid', expected: v.expected, received, canonical: v.canonical, diagnosis: null, reason: 'signature matches the canonical JSON signed with the merchant VA' };
  const trimmed = received.trim();
  if (!/^[0-9a-fA-F]{64}$/.test(trimmed)) {
    const what = trimmed === '' ? 'the signature is empty' : `the signature is not 64 hex characters (${trimmed.length} characters)`;
    return { verdict: 'invalid', expected: v.expected, received, canonical: v.canonical, diagnosis: null, reason: what };
  }
  const vaKey: CandidateKey = { kind: 'va', label: 'the merchant VA', key: va };
  // Without a full diagnosis, only the undocumented encodings of the gateway are tried (a cheap check).
  const diagnosis = options.diagnose === false ? diagnoseCallback(fields, trimmed, [vaKey], VARIATIONS.filter((v) => v.undocumentedEncoding)) : diagnoseCallback(fields, trimmed, [vaKey, ...otherKeys]);
  if (diagnosis?.authentic) return { verdict: 'valid-variant', expected: v.expected, received, canonical: v.canonical, diagnosis, reason: diagnosis.message };
  return { verdict: 'invalid', expected: v.expected, received, canonical: v.canonical, diagnosis, reason: diagnosis ? diagnosis.message : NO_MATCH };
}
