import { AuthError, GatewayError, NetworkError } from '../errors.js';
import type { HttpResponse } from './client.js';

/** The response envelope of spec 2.1. */
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
  'unauthorized signature': 'the API key does not belong to this VA and environment: check that the key is the one for this environment (sandbox and production keys differ)',
};

function pickKey(obj: Record<string, unknown>, name: string): unknown {
  if (name in obj) return obj[name];
  const lower = name.toLowerCase();
  for (const k of Object.keys(obj)) if (k.toLowerCase() === lower) return obj[k];
  return undefined;
}

function formatFieldErrors(errors: unknown): string[] {
  if (!errors || typeof errors !== 'object') return [];
  const out: string[] = [];
  for (const [field, msgs] of Object.entries(errors as Record<string, unknown>)) {
    const list = Array.isArray(msgs) ? msgs.map(String) : [String(msgs)];
    out.push(`${field}: ${list.join('; ')}`);
  }
  return out;
}

/**
 * Parses the gateway's envelope tolerantly (key case, missing Success) and turns failures into
 * typed errors: 401 → AuthError with a hint per message, other failures → GatewayError with the
 * per-field errors, a body that is not a JSON envelope → NetworkError (malformed response).
 */
export function parseEnvelope<T = unknown>(res: HttpResponse, url: string): Envelope<T> {
  let json: unknown;
  try {
    json = JSON.parse(res.text);
  } catch {
    const ct = res.headers['content-type'] ?? 'no content type';
    const what = res.text.length === 0 ? 'an empty body' : /^\s*</.test(res.text) ? `an HTML page (${ct})` : `a body that is not JSON (${ct}, ${res.text.length} bytes, possibly truncated)`;
    throw new NetworkError(`malformed response from ${url}: HTTP ${res.status} with ${what}`, {
      hint: res.status >= 500 ? 'the gateway or a proxy in between failed; try again later' : 'check --base-url: it must point at the API root including /api',
    });
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    throw new NetworkError(`malformed response from ${url}: HTTP ${res.status} with JSON that is not an envelope object`);
  }
  const obj = json as Record<string, unknown>;
  const status = Number(pickKey(obj, 'Status') ?? res.status);
  const successRaw = pickKey(obj, 'Success');
  const success = successRaw === undefined ? res.status < 400 && status < 400 : successRaw === true || successRaw === 'true' || successRaw === 1;
  const message = String(pickKey(obj, 'Message') ?? '');
  const env: Envelope<T> = { Status: status, Success: success, Message: message, Data: pickKey(obj, 'Data') as T };
  const errors = pickKey(obj, 'Error');
  if (errors && typeof errors === 'object') env.Error = errors as Envelope['Error'];
  if (res.status === 401 || status === 401) {
    const key = message.trim().toLowerCase();
    throw new AuthError(`the gateway refused the request (401): ${message || 'unauthorized'}`, { hint: AUTH_HINTS[key] ?? 'check the VA, API key and environment', details: env });
  }
  if (!success || res.status >= 400) {
    const fields = formatFieldErrors(env.Error);
    const httpStatus = res.status >= 400 ? res.status : status;
    throw new GatewayError(httpStatus, `the gateway answered ${httpStatus}: ${message || 'error'}${fields.length ? ` (${fields.join(', ')})` : ''}`, {
      details: env,
      hint: fields.length ? 'fix the fields named above and send again' : httpStatus >= 500 ? 'the gateway failed; try again later' : undefined,
    });
  }
  return env;
}
