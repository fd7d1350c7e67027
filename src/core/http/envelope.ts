import { AuthError, GatewayError, NetworkError } from '../errors.js';
import { escapeControl } from '../terminal-text.js';
import type { HttpResponse } from './client.js';

/** The response envelope (docs/gateway.md, "Answers"). */
export interface Envelope<T = unknown> {
  Status: number;
  Success: boolean;
  Message: string;
  Data: T;
  Error?: Record<string, string[] | string>;
}

const AUTH_HINTS: Record<string, string> = {
  'invalid header param - va is required': 'set the merchant VA: --va, PAYCLI_VA or `paycli config set va …`',
  'invalid header param - signature is required': 'the request was sent without a signature header; this is a paycli bug if it came from paycli',
  'unauthorized credential': 'the VA is unknown or inactive in this environment, or has no API key: check --env and the VA',
  'unauthorized signature':
    'the API key does not belong to this VA and environment: check that the key is the one for this environment (sandbox and production keys differ)',
};

function pickKey(obj: Record<string, unknown>, name: string): unknown {
  if (name in obj) return obj[name];
  const lower = name.toLowerCase();
  for (const k of Object.keys(obj)) if (k.toLowerCase() === lower) return obj[k];
  return undefined;
}

/**
 * The gateway's own words, quoted as received (often Indonesian: paycli's words around them are
 * English), with control characters made visible: they came from the network.
 */
export function quoteGateway(text: string): string {
  return `"${escapeControl(text)}"`;
}

function formatFieldErrors(errors: unknown): string[] {
  if (!errors || typeof errors !== 'object') return [];
  const out: string[] = [];
  for (const [field, msgs] of Object.entries(errors as Record<string, unknown>)) {
    const list = Array.isArray(msgs) ? msgs.map(String) : [String(msgs)];
    out.push(`${escapeControl(field)}: ${list.map(quoteGateway).join('; ')}`);
  }
  return out;
}

/** What a caller expects in `Data` of a successful answer, and what a failure may have done. */
export interface EnvelopeExpectation {
  /** Returns why `Data` is not what this endpoint answers, or undefined when it is. */
  checkData?: (data: unknown) => string | undefined;
  /**
   * Set for a payment POST: the reference id the payment was sent with. A malformed answer then
   * says the payment may have been created and how to look it up.
   */
  paymentReferenceId?: string;
  /** The day (YYYY-MM-DD, WIB) the payment was sent, for the hint's `paycli history --from`. */
  paymentDay?: string;
}

/** A short, one-line, escaped excerpt of a body, for error messages. */
export function excerpt(text: string, max = 60): string {
  const cut = text.length > max ? text.slice(0, max) : text;
  const shown = JSON.stringify(cut).replace(/[\u007f-\u009f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return text.length > max ? `${shown}… (${Buffer.byteLength(text)} bytes)` : shown;
}

/**
 * The hint of any failure after a payment POST reached the gateway: it may exist now. The check
 * transaction endpoint takes the gateway's id, which a failed answer did not give, so the way to it
 * is the transaction history, where the payment carries its reference id.
 */
export function paymentMayExistHint(referenceId: string, day?: string): string {
  return `the payment may have been created: look for reference ${referenceId} in \`paycli history${day ? ` --from ${day}` : ''}\`, then check it with \`paycli transaction ID\`, before sending it again`;
}

function malformed(res: HttpResponse, url: string, what: string, expectation: EnvelopeExpectation, withExcerpt = true): NetworkError {
  const ref = expectation.paymentReferenceId;
  return new NetworkError(
    `malformed response from ${url}: HTTP ${res.status} with ${what}${withExcerpt && res.text.length > 0 ? `: ${excerpt(res.text)}` : ''}`,
    {
      hint: ref
        ? paymentMayExistHint(ref, expectation.paymentDay)
        : res.status >= 500
          ? 'the gateway or a proxy in between failed; try again later'
          : 'check --base-url: it must point at the API root including /api',
      code: 'ERR_MALFORMED_RESPONSE',
    },
  );
}

/** A Status that is an HTTP status code: an integer 100–599, or such an integer written as text. */
function statusCode(value: unknown): number | undefined {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\d{3}$/.test(value.trim()) ? Number(value) : NaN;
  return Number.isInteger(n) && n >= 100 && n <= 599 ? n : undefined;
}

/**
 * Parses the gateway's envelope (docs/gateway.md, "Answers") and turns failures into typed errors: 401 → AuthError
 * with a hint per message, other failures → GatewayError with the per-field errors. Key case is
 * tolerated; anything else that is not a well-formed envelope — not JSON, not an object, no
 * integer `Status`, a `Success` or `Message` of the wrong type, a success without `Data`, or `Data`
 * the endpoint never answers — is a NetworkError "malformed response" (exit 5) with the HTTP status
 * and a short excerpt; after a payment POST its hint says the payment may exist.
 */
export function parseEnvelope<T = unknown>(res: HttpResponse, url: string, expectation: EnvelopeExpectation = {}): Envelope<T> {
  let json: unknown;
  try {
    json = JSON.parse(res.text);
  } catch {
    const ct = res.headers['content-type'] ?? 'no content type';
    const what =
      res.text.length === 0
        ? 'an empty body'
        : /^\s*</.test(res.text)
          ? `an HTML page (${ct})`
          : `a body that is not JSON (${ct}, ${res.text.length} bytes, possibly truncated)`;
    throw malformed(res, url, what, expectation, !/^\s*</.test(res.text));
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    throw malformed(res, url, 'JSON that is not an envelope object', expectation);
  }
  const obj = json as Record<string, unknown>;
  const status = statusCode(pickKey(obj, 'Status'));
  if (status === undefined) throw malformed(res, url, `an envelope without an integer Status`, expectation);
  const successRaw = pickKey(obj, 'Success');
  if (successRaw !== undefined && typeof successRaw !== 'boolean') throw malformed(res, url, 'an envelope whose Success is not true or false', expectation);
  const messageRaw = pickKey(obj, 'Message');
  if (messageRaw !== undefined && messageRaw !== null && typeof messageRaw !== 'string')
    throw malformed(res, url, 'an envelope whose Message is not text', expectation);
  const success = successRaw === undefined ? res.status < 400 && status < 400 : successRaw;
  const message = typeof messageRaw === 'string' ? messageRaw : '';
  const env: Envelope<T> = { Status: status, Success: success, Message: message, Data: pickKey(obj, 'Data') as T };
  const errors = pickKey(obj, 'Error');
  if (errors && typeof errors === 'object') env.Error = errors as Envelope['Error'];
  if (res.status === 401 || status === 401) {
    const key = message.trim().toLowerCase();
    throw new AuthError(`the gateway refused the request (401): ${message ? quoteGateway(message) : 'unauthorized'}`, {
      hint: AUTH_HINTS[key] ?? 'check the VA, API key and environment',
      details: env,
    });
  }
  if (!success || res.status >= 400) {
    const fields = formatFieldErrors(env.Error);
    const httpStatus = res.status >= 400 ? res.status : status;
    throw new GatewayError(
      httpStatus,
      `the gateway answered ${httpStatus}: ${message ? quoteGateway(message) : 'error'}${fields.length ? ` (${fields.join(', ')})` : ''}`,
      {
        details: env,
        hint: fields.length ? 'fix the fields named above and send again' : httpStatus >= 500 ? 'the gateway failed; try again later' : undefined,
      },
    );
  }
  if (!hasKey(obj, 'Data')) throw malformed(res, url, 'a success envelope without Data', expectation);
  const problem = expectation.checkData?.(env.Data);
  if (problem) throw malformed(res, url, `a success envelope whose Data ${problem}`, expectation);
  return env;
}

function hasKey(obj: Record<string, unknown>, name: string): boolean {
  const lower = name.toLowerCase();
  return Object.keys(obj).some((k) => k.toLowerCase() === lower);
}

/** Data of a region lookup: an array of {code, name} objects (an empty array: no regions). */
export function checkRegionsData(data: unknown): string | undefined {
  if (!Array.isArray(data)) return `is ${data === null ? 'null' : typeof data === 'object' ? 'an object' : typeof data}, not a list of regions`;
  const bad = data.findIndex(
    (r) => r === null || typeof r !== 'object' || (typeof r.code !== 'string' && typeof r.code !== 'number') || typeof r.name !== 'string',
  );
  return bad >= 0 ? `has an item without a code and name (item ${bad + 1})` : undefined;
}

/** Data of a direct payment (docs/gateway.md, "Payments"): an object with a TransactionId. */
export function checkPaymentData(data: unknown): string | undefined {
  if (data === null || typeof data !== 'object' || Array.isArray(data))
    return `is ${data === null ? 'null' : Array.isArray(data) ? 'a list' : typeof data}, not the payment`;
  const id = (data as Record<string, unknown>).TransactionId;
  if (!((typeof id === 'number' && Number.isInteger(id) && id > 0) || (typeof id === 'string' && /^\d+$/.test(id)))) return 'has no TransactionId';
  return undefined;
}
