import type { CallbackFields } from '../signing/callback-canonical.js';
import { requireVa, verifyCallback } from '../signing/callback-signature.js';
import { DIAGNOSIS_BUDGET, diagnoseCallbackBounded, VARIATIONS, type CandidateKey, type DiagnosisBudget, type Diagnosis } from '../signing/variants.js';

export interface CallbackCheck {
  verdict: 'valid' | 'valid-variant' | 'invalid';
  expected: string;
  received: string;
  canonical: string;
  diagnosis: Diagnosis | null;
  /** One line for the merchant. */
  reason: string;
  /** Set when a requested diagnosis stopped at its budget (the verdict is then "invalid"). */
  notDiagnosed?: string;
}

export interface CheckCallbackOptions {
  /**
   * Explain a mismatch: try the known signing mistakes and other keys (bounded by `budget`).
   * Off by default: a forged callback then costs about what a valid one does.
   */
  diagnose?: boolean;
  /** Other secrets a signer may have used by mistake (the API key, other VAs); only with `diagnose`. */
  otherKeys?: readonly CandidateKey[];
  /** Limits on the diagnosis (docs/gateway.md, "Bounds on untrusted input"). */
  budget?: DiagnosisBudget;
}

const NO_MATCH = 'no known variant or key reproduces it: the payload was changed after signing, or it was signed with a key paycli does not know';
const MISMATCH = 'the signature does not match (ask for a diagnosis to learn why)';
const ENCODINGS = VARIATIONS.filter((v) => v.undocumentedEncoding);

/**
 * Verifies a callback signature with the merchant VA. A match through an undocumented encoding
 * of the gateway (non-ASCII raw, null as null) is `valid-variant`: authentic, but worth a warning.
 * With `{ diagnose: true }`, a mismatch is explained (within a budget). A missing or empty VA
 * throws MissingVaError.
 */
export function checkCallback(fields: CallbackFields, received: string, va: string | undefined, o: CheckCallbackOptions = {}): CallbackCheck {
  const key = requireVa(va);
  const v = verifyCallback({ fields, signature: received, va: key });
  if (v.valid)
    return {
      verdict: 'valid',
      expected: v.expected,
      received,
      canonical: v.canonical,
      diagnosis: null,
      reason: 'signature matches the canonical JSON signed with the merchant VA',
    };
  const trimmed = received.trim();
  if (!/^[0-9a-fA-F]{64}$/.test(trimmed)) {
    const what = trimmed === '' ? 'the signature is empty' : `the signature is not 64 hex characters (${trimmed.length} characters)`;
    return { verdict: 'invalid', expected: v.expected, received, canonical: v.canonical, diagnosis: null, reason: what };
  }
  const full = o.diagnose === true;
  const maxLength = o.budget?.maxLength ?? DIAGNOSIS_BUDGET.maxLength;
  const maxFields = o.budget?.maxFields ?? DIAGNOSIS_BUDGET.maxFields;
  const fieldCount = Object.keys(fields).length;
  if (v.canonical.length > maxLength || fieldCount > maxFields) {
    // Too large to try variants on (the first canonical form is already known to be this long).
    const notDiagnosed =
      fieldCount > maxFields ? `not diagnosed: over ${maxFields} fields (${fieldCount})` : `not diagnosed: the signed JSON is over ${maxLength} characters`;
    return {
      verdict: 'invalid',
      expected: v.expected,
      received,
      canonical: v.canonical,
      diagnosis: null,
      reason: full ? notDiagnosed : MISMATCH,
      notDiagnosed,
    };
  }
  const vaKey: CandidateKey = { kind: 'va', label: 'the merchant VA', key };
  // Without a diagnosis, only the gateway's undocumented encodings are tried (a few HMACs, same budget).
  const { diagnosis, notDiagnosed } = full
    ? diagnoseCallbackBounded(fields, trimmed, [vaKey, ...(o.otherKeys ?? [])], VARIATIONS, o.budget)
    : diagnoseCallbackBounded(fields, trimmed, [vaKey], ENCODINGS, o.budget);
  const base = { expected: v.expected, received, canonical: v.canonical, diagnosis };
  if (diagnosis?.authentic) return { verdict: 'valid-variant', ...base, reason: diagnosis.message };
  if (diagnosis) return { verdict: 'invalid', ...base, reason: diagnosis.message };
  if (notDiagnosed) return { verdict: 'invalid', ...base, reason: full ? notDiagnosed : MISMATCH, notDiagnosed };
  return { verdict: 'invalid', ...base, reason: full ? NO_MATCH : MISMATCH };
}
