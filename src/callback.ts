/**
 * `paycli/callback`: verify the gateway's callbacks in a merchant's own server. Built into one file
 * (dist/callback.js) that imports nothing but `node:crypto`: deploy it without the CLI's
 * dependencies. The check is the CLI's and the listener's own (callback/verifier.ts).
 */
import { checkCallback } from './core/callback/check.js';
import { parseCallbackBody } from './core/callback/parse.js';
import { CallbackVerifier, type CallbackSummary } from './core/callback/verifier.js';
import type { CallbackFields } from './core/signing/callback-canonical.js';

export { AuthError, PaycliError, UsageError } from './core/errors.js';
export type { ErrorCode, ErrorKind, PaycliErrorOptions } from './core/errors.js';
export { MalformedPayloadError } from './core/callback/parse.js';
export { MissingVaError } from './core/signing/callback-signature.js';
export type { CallbackFields, CallbackValue } from './core/signing/callback-canonical.js';
export type { CallbackSummary } from './core/callback/verifier.js';

/** One callback request as a server receives it. */
export interface CallbackRequest {
  /** The body exactly as received (its bytes, or their UTF-8 text). */
  rawBody: string | Uint8Array;
  /** The request's headers (node:http's `req.headers`, any case): `content-type` and `x-signature` are read. */
  headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  /** The merchant VA of the environment that sends the callbacks (it is the signing key); missing or empty throws MissingVaError. */
  va: string | undefined;
}

/** What a callback is, and what to answer the gateway. */
export interface CallbackResult {
  /**
   * `valid`: signed by the gateway; `valid-variant`: signed by the gateway through one of its
   * undocumented encodings (authentic too); `invalid`: the signature is missing or wrong;
   * `malformed`: the body cannot be read.
   */
  verdict: 'valid' | 'valid-variant' | 'invalid' | 'malformed';
  /** True for `valid` and `valid-variant`: act on it and answer 200 `{"status":"OK"}`; otherwise answer 400. */
  ok: boolean;
  /** Why it is not valid (one line for your log); null when it is. */
  reason: string | null;
  /** The body's fields as the gateway signed them (`reference_id` finds your order); undefined when malformed. */
  fields: CallbackFields | undefined;
  /** The fields a log line shows. */
  summary: CallbackSummary;
}

/** The gateway's answer for a callback a merchant accepted (its reference handler's). */
export const OK_ANSWER = '{"status":"OK"}';

/**
 * Verifies one callback from its raw body, headers and the merchant VA: the body is read as PHP
 * reads it (form or JSON), its canonical JSON signed with the VA and compared with `X-Signature`
 * in constant time. Throws MissingVaError when `va` is missing or empty; never for a body.
 */
export function verifyCallbackRequest(request: CallbackRequest): CallbackResult {
  const body =
    typeof request.rawBody === 'string'
      ? request.rawBody
      : Buffer.from(request.rawBody.buffer, request.rawBody.byteOffset, request.rawBody.byteLength).toString('utf8');
  const v = new CallbackVerifier().verify(body, request.headers, request.va);
  if (v.verdict === 'malformed')
    return { verdict: 'malformed', ok: false, reason: v.error instanceof Error ? v.error.message : String(v.error), fields: undefined, summary: v.summary };
  if (v.verdict === 'unsigned') return { verdict: 'invalid', ok: false, reason: 'missing X-Signature header', fields: v.fields, summary: v.summary };
  const fields = v.fields ?? parseCallbackBody(body, v.format === 'json' ? 'application/json' : 'application/x-www-form-urlencoded').fields;
  if (v.verdict === 'valid') return { verdict: 'valid', ok: true, reason: null, fields, summary: v.summary };
  // A mismatch: one of the gateway's undocumented encodings may still explain it (a few HMACs).
  const check = checkCallback(fields, v.signature, request.va);
  const ok = check.verdict !== 'invalid';
  return { verdict: check.verdict, ok, reason: ok ? null : check.reason, fields, summary: v.summary };
}
