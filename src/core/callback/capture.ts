import { MalformedPayloadError, parseCallbackBody, parseFormBody, parseJsonBody, type BodyFormat } from './parse.js';
import type { CallbackFields } from '../signing/callback-canonical.js';

// Captured callbacks: `{headers, body}` objects, raw HTTP requests, and any input `verify-callback`
// takes (the reading of their bodies is parse.ts's).

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
export function parseCaptureObject(capture: { headers?: Record<string, unknown>; body?: unknown }, options: { fromFile?: boolean } = {}): ParsedCallback {
  if (typeof capture.body !== 'string') throw new MalformedPayloadError('the capture has no "body" string');
  const headers = lowerHeaders(capture.headers ?? {});
  const { fields, format } = parseCallbackBody(capture.body, headers['content-type'], options);
  return { fields, format, headers, body: capture.body, headerSignature: headers['x-signature'] };
}

const REQUEST_LINE = /^[A-Z]+ \S+ HTTP\/\d(\.\d)?\r?$/;

/** Parses a raw HTTP request capture (a file): request line, headers, blank line, body (CRLF or LF). */
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
  return parseCaptureObject({ headers, body }, { fromFile: true });
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
  return { fields: parseFormBody(trimmed, { fromFile: true }), format: 'form', headers: {}, body: trimmed };
}
