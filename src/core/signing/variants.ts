import { canonicalizeCallback, GATEWAY_CANONICAL, type CallbackFields, type CanonicalOptions } from './callback-canonical.js';
import { hmacHex, signaturesEqual } from './callback-signature.js';
import { deepFreeze } from '../freeze.js';

/** One departure from the gateway's canonical form, alone or combined with others. */
export interface Variation {
  id: string;
  /** What the signer did differently, in a merchant's words. */
  description: string;
  /**
   * True when the gateway may plausibly sign this way (undocumented encodings): a match means the
   * payload is authentic. False for mistakes: a match means the signer got the rules wrong.
   */
  undocumentedEncoding: boolean;
  options: Partial<CanonicalOptions>;
}

export const VARIATIONS: readonly Variation[] = deepFreeze([
  {
    id: 'slash-unescaped',
    description: '"/" was not escaped as "\\/" (JSON.stringify instead of PHP json_encode)',
    undocumentedEncoding: false,
    options: { json: { escapeSlash: false, escapeUnicode: true } },
  },
  {
    id: 'unicode-raw',
    description: 'non-ASCII characters were left raw instead of \\uXXXX',
    undocumentedEncoding: true,
    options: { json: { escapeSlash: true, escapeUnicode: false } },
  },
  {
    id: 'no-normalization',
    description: 'no type normalisation: every value signed as the received string',
    undocumentedEncoding: false,
    options: { normalizeTypes: false },
  },
  {
    id: 'amounts-as-integers',
    description: 'sub_total, total, amount and fee were signed as integers instead of strings',
    undocumentedEncoding: false,
    options: { amountsAsIntegers: true },
  },
  { id: 'escrow-as-number', description: 'is_escrow was signed as 0/1 instead of a boolean', undocumentedEncoding: false, options: { escrowAsNumber: true } },
  {
    id: 'additional-info-missing',
    description: 'additional_info was left out instead of added as []',
    undocumentedEncoding: false,
    options: { addMissingAdditionalInfo: false },
  },
  { id: 'locale-order', description: 'keys were sorted with localeCompare instead of byte order', undocumentedEncoding: false, options: { sort: 'locale' } },
  { id: 'null-as-null', description: 'null values were signed as JSON null instead of ""', undocumentedEncoding: true, options: { nullAs: 'null' } },
  { id: 'null-as-string', description: 'null values were signed as the text "null"', undocumentedEncoding: true, options: { nullAs: 'string-null' } },
  {
    id: 'signature-field-kept',
    description: 'the body\'s own "signature" field was included in the signed JSON',
    undocumentedEncoding: false,
    options: { keepSignatureField: true },
  },
]);

/** A candidate secret besides the merchant VA. */
export interface CandidateKey {
  kind: 'va' | 'api-key' | 'other-va';
  /** How to name it in a diagnosis (never the secret itself). */
  label: string;
  key: string;
}

export interface Diagnosis {
  /** The variations that reproduce the signature; empty when the right canonical form did. */
  variations: Variation[];
  key: CandidateKey;
  /** True when the payload is authentic despite the mismatch (only undocumented encodings, right key). */
  authentic: boolean;
  /** One sentence for the merchant. */
  message: string;
  id: string;
}

function mergeOptions(vs: readonly Variation[]): Partial<CanonicalOptions> {
  const o: Partial<CanonicalOptions> = {};
  for (const v of vs) {
    if (v.options.json && o.json)
      o.json = { escapeSlash: o.json.escapeSlash && v.options.json.escapeSlash, escapeUnicode: o.json.escapeUnicode && v.options.json.escapeUnicode };
    else Object.assign(o, v.options);
  }
  return o;
}

function describe(vs: readonly Variation[], key: CandidateKey): { message: string; authentic: boolean; id: string } {
  const parts = vs.map((v) => v.description);
  const authentic = key.kind === 'va' && vs.every((v) => v.undocumentedEncoding);
  const id = [...(key.kind === 'va' ? [] : [key.kind]), ...vs.map((v) => v.id)].join('+') || 'canonical';
  let message: string;
  if (key.kind === 'api-key') {
    message = `signed with ${key.label} as the secret; callbacks are signed with the merchant VA, not the API key`;
  } else if (key.kind === 'other-va') {
    message = `signed with ${key.label}; check which environment sent this callback and use its VA`;
  } else if (authentic) {
    message = `the sender encoded differently (${parts.join('; ')}); the payload is authentic`;
  } else {
    message = `the signer made a mistake: ${parts.join('; ')}`;
  }
  if (key.kind !== 'va' && parts.length > 0) message += `, and ${parts.join('; ')}`;
  return { message, authentic, id };
}

/** Limits on one diagnosis: untrusted senders must not be able to buy seconds of CPU with one forged body. */
export interface DiagnosisBudget {
  /** Canonical JSON longer than this (characters) is not diagnosed. Default 16 384. */
  maxLength?: number;
  /** Stop after this many HMAC attempts. Default 400. */
  maxAttempts?: number;
  /**
   * Stop once this many characters have been canonicalised and hashed in all (the work grows with
   * the body: 56 forms and 400 HMACs of a 16 KiB body are ≈7 MiB, tens of ms). Default 1 MiB, which
   * a real callback (≈1 KiB of canonical JSON, ≈0.45 MiB of work) never reaches. Deterministic, unlike
   * a time limit.
   */
  maxWork?: number;
  /**
   * Callbacks with more top-level fields than this are not diagnosed (each variation re-canonicalises
   * every field: 1 000 forged fields cost ≈16 ms a request). Default 128; the gateway sends ≈30.
   */
  maxFields?: number;
  /**
   * Stop after this many milliseconds. Default: no time limit, so that the result does not depend
   * on the machine's load; the length and attempt limits already bound the work (≈56 canonical
   * forms and 400 HMACs of at most 16 KiB).
   */
  maxMs?: number;
}

export const DIAGNOSIS_BUDGET: Required<DiagnosisBudget> = deepFreeze({
  maxLength: 16_384,
  maxAttempts: 400,
  maxWork: 1 << 20,
  maxFields: 128,
  maxMs: Number.POSITIVE_INFINITY,
});

export interface BoundedDiagnosis {
  diagnosis: Diagnosis | null;
  /** Why the search stopped before it was complete; undefined when it was complete. */
  notDiagnosed?: string;
}

/**
 * Explains a signature mismatch within a budget: tries each known variation (alone, then in
 * pairs) with each candidate secret and returns the simplest one that reproduces the received
 * signature, or none (tampered payload or an unknown key), or says why it stopped early.
 */
export function diagnoseCallbackBounded(
  fields: CallbackFields,
  received: string,
  keys: readonly CandidateKey[],
  variations: readonly Variation[] = VARIATIONS,
  budget: DiagnosisBudget = {},
): BoundedDiagnosis {
  const b = { ...DIAGNOSIS_BUDGET, ...budget };
  const started = performance.now();
  const sets: Variation[][] = [[]];
  for (const v of variations) sets.push([v]);
  for (let i = 0; i < variations.length; i++) {
    for (let j = i + 1; j < variations.length; j++) sets.push([variations[i]!, variations[j]!]);
  }
  const seen = new Set<string>(); // at most 56 texts of at most maxLength characters
  const fieldCount = Object.keys(fields).length;
  if (fieldCount > b.maxFields) return { diagnosis: null, notDiagnosed: `not diagnosed: over ${b.maxFields} fields (${fieldCount})` };
  let attempts = 0;
  let work = 0;
  const overWork = (): BoundedDiagnosis => ({
    diagnosis: null,
    notDiagnosed: `not diagnosed: over ${Math.round(b.maxWork / 1024)} KiB of work for a body this large`,
  });
  for (const set of sets) {
    if (performance.now() - started > b.maxMs) return { diagnosis: null, notDiagnosed: `not diagnosed: the diagnosis took over ${b.maxMs} ms` };
    const canonical = canonicalizeCallback(fields, { ...GATEWAY_CANONICAL, ...mergeOptions(set) });
    if (canonical.length > b.maxLength) return { diagnosis: null, notDiagnosed: `not diagnosed: the signed JSON is over ${b.maxLength} characters` };
    if ((work += canonical.length) > b.maxWork) return overWork();
    if (seen.has(canonical)) continue; // this variation changes nothing for these fields
    seen.add(canonical);
    for (const key of keys) {
      if (set.length === 0 && key.kind === 'va') continue;
      if (++attempts > b.maxAttempts) return { diagnosis: null, notDiagnosed: `not diagnosed: over ${b.maxAttempts} attempts` };
      if ((work += canonical.length) > b.maxWork) return overWork();
      if (signaturesEqual(hmacHex(key.key, canonical), received)) {
        return { diagnosis: { variations: set, key, ...describe(set, key) } };
      }
    }
  }
  return { diagnosis: null };
}

/**
 * Explains a signature mismatch (see diagnoseCallbackBounded): the simplest known variation and
 * key that reproduce the received signature, or null when none does or the budget ran out.
 */
export function diagnoseCallback(
  fields: CallbackFields,
  received: string,
  keys: readonly CandidateKey[],
  variations: readonly Variation[] = VARIATIONS,
  budget?: DiagnosisBudget,
): Diagnosis | null {
  return diagnoseCallbackBounded(fields, received, keys, variations, budget).diagnosis;
}
