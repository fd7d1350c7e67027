import { UsageError } from '../errors.js';
import type { CallbackFields, CallbackValue } from '../signing/callback-canonical.js';

/** A callback body or capture that cannot be read. Exit 2 in the CLI; 400 in the listener. */
export class MalformedPayloadError extends UsageError {
  constructor(message: string, hint?: string) {
    super(message, { hint });
    this.name = 'MalformedPayloadError';
  }
}

export type BodyFormat = 'form' | 'json';

export interface ParsedCallback {
  fields: CallbackFields;
  format: BodyFormat;
  /** Header names lower-cased; empty when the input was a bare body. */
  headers: Record<string, string>;
  /** The raw body text as received. */
  body: string;
  /** X-Signature from the headers, when present. */
  headerSignature?: string;
}

function decodeComponent(text: string, pair: number, part: 'name' | 'value'): string {
  const plus = text.indexOf('+') >= 0 ? text.replaceAll('+', ' ') : text;
  if (plus.indexOf('%') < 0) return plus;
  try {
    return decodeURIComponent(plus);
  } catch {
    const bad = /%(?![0-9a-fA-F]{2})|%[0-9a-fA-F]{2}/.exec(plus);
    throw new MalformedPayloadError(`invalid percent-encoding in the ${part} of pair ${pair}${bad ? ` near "${plus.slice(bad.index, bad.index + 6)}"` : ''}`);
  }
}

/**
 * Parses an `application/x-www-form-urlencoded` body as PHP does: `+` is a space, repeated keys keep
 * the last value, `key[]` collects an array and `key[sub]` an object. (One pass with indexOf: this
 * runs for every request `paycli listen` receives.)
 */
export function parseFormBody(body: string): CallbackFields {
  const fields = Object.create(null) as CallbackFields;
  if (body.trim() === '') throw new MalformedPayloadError('the form body is empty');
  const end = body.endsWith('\r\n') ? body.length - 2 : body.endsWith('\n') ? body.length - 1 : body.length;
  let any = false;
  for (let start = 0, n = 1; start <= end; n++) {
    let amp = body.indexOf('&', start);
    if (amp < 0 || amp > end) amp = end;
    if (amp > start) {
      let eq = body.indexOf('=', start);
      if (eq > amp) eq = -1;
      const value = eq < 0 ? '' : decodeComponent(body.slice(eq + 1, amp), n, 'value');
      const key = decodeComponent(body.slice(start, eq < 0 ? amp : eq), n, 'name');
      if (key === '') throw new MalformedPayloadError(`pair ${n} of the form body has no name`);
      any = true;
      const m = key.endsWith(']') ? /^([^[\]]+)\[([^\]]*)\]$/.exec(key) : null;
      if (!m) fields[key] = value;
      else {
        const [, base, sub] = m as unknown as [string, string, string];
        const current = fields[base];
        if (sub === '') {
          if (Array.isArray(current)) current.push(value);
          else fields[base] = [value];
        } else {
          const obj = current !== null && typeof current === 'object' && !Array.isArray(current) ? current : (Object.create(null) as Record<string, CallbackValue>);
          obj[sub] = value;
          fields[base] = obj;
        }
      }
    }
    start = amp + 1;
  }
  if (!any) throw new MalformedPayloadError('the form body has no fields');
  return fields;
}

/** Parses a JSON callback body: it must be an object. */
export function parseJsonBody(body: string): CallbackFields {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (err) {
    throw new MalformedPayloadError(`the JSON body does not parse: ${(err as Error).message}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new MalformedPayloadError('the JSON body is not an object of callback fields');
  }
  return value as CallbackFields;
}

/** Picks the body format from a Content-Type header, or sniffs it from the body. */
export function detectBodyFormat(body: string, contentType?: string): BodyFormat {
  const ct = (contentType ?? '').toLowerCase();
  if (ct.includes('json')) return 'json';
  if (ct.includes('x-www-form-urlencoded')) return 'form';
  return /^\s*\{/.test(body) ? 'json' : 'form';
}

/** Parses a body in the given (or detected) format. */
export function parseCallbackBody(body: string, contentType?: string): { fields: CallbackFields; format: BodyFormat } {
  const format = detectBodyFormat(body, contentType);
  return { fields: format === 'json' ? parseJsonBody(body) : parseFormBody(body), format };
}

/** One header of a `{headers, body}` capture, by case-insensitive name. */
export function captureHeader(headers: Record<string, unknown> | undefined, name: string): string | undefined {
  if (!headers) return undefined;
  const direct = headers[name];
  if (typeof direct === 'string') return direct;
  for (const k in headers) {
    if (k.length === name.length && k.toLowerCase() === name) {
      const v = headers[k];
      return Array.isArray(v) ? v.map(String).join(', ') : v === undefined || v === null ? undefined : String(v);
    }
  }
  return undefined;
}

function lowerHeaders(headers: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined || v === null) continue;
    out[k.toLowerCase()] = Array.isArray(v) ? v.map(String).join(', ') : String(v);
  }
  return out;
}

/** Builds the parsed form of a `{headers, body}` capture (the event store and `--jsonl` lines). */
export function parseCaptureObject(capture: { headers?: Record<string, unknown>; body?: unknown }): ParsedCallback {
  if (typeof capture.body !== 'string') throw new MalformedPayloadError('the capture has no "body" string');
  const headers = lowerHeaders(capture.headers ?? {});
  const { fields, format } = parseCallbackBody(capture.body, headers['content-type']);
  return { fields, format, headers, body: capture.body, headerSignature: headers['x-signature'] };
}

const REQUEST_LINE = /^[A-Z]+ \S+ HTTP\/\d(\.\d)?\r?$/;

/** Parses a raw HTTP request capture: request line, headers, blank line, body (CRLF or LF). */
export function parseHttpCapture(text: string): ParsedCallback {
  const lines = text.split('\n');
  if (!REQUEST_LINE.test(lines[0] ?? '')) throw new MalformedPayloadError('line 1 is not an HTTP request line (METHOD PATH HTTP/1.1)');
  const headers: Record<string, string> = {};
  let i = 1;
  for (; i < lines.length; i++) {
    const line = lines[i]!.replace(/\r$/, '');
    if (line === '') break;
    const colon = line.indexOf(':');
    if (colon <= 0) throw new MalformedPayloadError(`line ${i + 1} of the capture is not a header (Name: value)`);
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  if (i >= lines.length) throw new MalformedPayloadError('the capture has no blank line between headers and body');
  const body = lines.slice(i + 1).join('\n');
  return parseCaptureObject({ headers, body });
}

/**
 * Reads any supported input: a JSON body, a form body, a raw HTTP capture, or a `{headers, body}`
 * object. A body's own `signature` field is kept in `fields` (canonicalisation drops it).
 */
export function parseCallbackInput(text: string): ParsedCallback {
  const trimmed = text.replace(/^\uFEFF/, '');
  if (REQUEST_LINE.test(trimmed.split('\n')[0] ?? '')) return parseHttpCapture(trimmed);
  if (/^\s*[{[]/.test(trimmed)) {
    const fields = parseJsonBody(trimmed);
    if (typeof fields.body === 'string' && fields.headers !== null && typeof fields.headers === 'object' && !Array.isArray(fields.headers)) {
      return parseCaptureObject(fields as { headers: Record<string, unknown>; body: string });
    }
    return { fields, format: 'json', headers: {}, body: trimmed };
  }
  return { fields: parseFormBody(trimmed), format: 'form', headers: {}, body: trimmed };
}
