import { deepFreeze } from '../freeze.js';
/**
 * JSON encoders that reproduce what other languages put on the wire, byte for byte.
 * PHP's `json_encode` with default flags escapes `/` as `\/` and every non-ASCII character as a
 * lower-case `\uXXXX` (surrogate pairs outside the BMP). The gateway signs callbacks that way.
 */
export interface JsonEncodeOptions {
  /** Escape `/` as `\/` (PHP default). */
  escapeSlash: boolean;
  /** Escape non-ASCII as lower-case `\uXXXX` (PHP and Python default). */
  escapeUnicode: boolean;
}

export const PHP_DEFAULT: Readonly<JsonEncodeOptions> = deepFreeze({ escapeSlash: true, escapeUnicode: true });
/** What the CLI sends as request bodies: `/` raw, non-ASCII escaped (docs/gateway.md, "Request signing"). */
export const REQUEST_BODY: Readonly<JsonEncodeOptions> = deepFreeze({ escapeSlash: false, escapeUnicode: true });

/** A JSON integer kept as its decimal digits, so that values beyond 2^53 stay exact. */
export class JsonInteger {
  constructor(readonly digits: string) {}
}

/** Strings with nothing to escape are written as they are (most callback values). */
const NEEDS_ESCAPE_PHP = /["\\/\u0000-\u001f\u0080-\uffff]/;
const NEEDS_ESCAPE_RAW_SLASH = /["\\\u0000-\u001f\u0080-\uffff]/;
const NEEDS_ESCAPE_ASCII_ONLY = /["\\/\u0000-\u001f]/;
const NEEDS_ESCAPE_ASCII_ONLY_RAW_SLASH = /["\\\u0000-\u001f]/;

const HEX = '0123456789abcdef';

/** Per ASCII code: 0 written as is, 1 written as \u00XX, else the letter after a backslash. */
function escapeTable(escapeSlash: boolean): Uint8Array {
  const t = new Uint8Array(128);
  for (let c = 0; c < 0x20; c++) t[c] = 1;
  t[0x08] = 0x62; // b
  t[0x0c] = 0x66; // f
  t[0x0a] = 0x6e; // n
  t[0x0d] = 0x72; // r
  t[0x09] = 0x74; // t
  t[0x22] = 0x22;
  t[0x5c] = 0x5c;
  if (escapeSlash) t[0x2f] = 0x2f;
  return t;
}
/** Per ASCII code, how PHP_DEFAULT writes it in a string: 0 as is, 1 as \u00XX, else the letter after a backslash. */
export const ESCAPES_PHP: Readonly<Uint8Array> = escapeTable(true);
const ESCAPES_RAW_SLASH = escapeTable(false);

/**
 * Encodes one string as a JSON string literal with the given escaping rules. A string that needs
 * escaping is written code unit by code unit into one array (a string of a million characters
 * that all need escaping costs a few milliseconds instead of a million concatenations: a forged
 * callback must not cost the listener much more than a valid one).
 */
export function encodeJsonString(value: string, options: JsonEncodeOptions): string {
  const needs = options.escapeUnicode
    ? options.escapeSlash
      ? NEEDS_ESCAPE_PHP
      : NEEDS_ESCAPE_RAW_SLASH
    : options.escapeSlash
      ? NEEDS_ESCAPE_ASCII_ONLY
      : NEEDS_ESCAPE_ASCII_ONLY_RAW_SLASH;
  if (!needs.test(value)) return '"' + value + '"';
  const table = options.escapeSlash ? ESCAPES_PHP : ESCAPES_RAW_SLASH;
  const unicode = options.escapeUnicode;
  // Escaping every non-ASCII character makes the text ASCII: one byte per character (Latin-1);
  // otherwise the code units are kept as they are (UTF-16).
  const out = unicode ? Buffer.allocUnsafe(value.length * 6 + 2) : new Uint16Array(value.length * 6 + 2);
  let p = 0;
  out[p++] = 0x22;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    const e = c < 0x80 ? table[c]! : unicode ? 1 : 0;
    if (e === 0) out[p++] = c;
    else if (e === 1) {
      out[p] = 0x5c;
      out[p + 1] = 0x75;
      out[p + 2] = HEX.charCodeAt(c >> 12);
      out[p + 3] = HEX.charCodeAt((c >> 8) & 15);
      out[p + 4] = HEX.charCodeAt((c >> 4) & 15);
      out[p + 5] = HEX.charCodeAt(c & 15);
      p += 6;
    } else {
      out[p] = 0x5c;
      out[p + 1] = e;
      p += 2;
    }
  }
  out[p++] = 0x22;
  return out instanceof Buffer ? out.toString('latin1', 0, p) : Buffer.from(out.buffer, 0, 2 * p).toString('utf16le');
}

/** Encodes a value compactly, keys in insertion order. */
export function encodeJson(value: unknown, options: JsonEncodeOptions): string {
  if (value === null || value === undefined) return 'null';
  if (value instanceof JsonInteger) return value.digits;
  switch (typeof value) {
    case 'string':
      return encodeJsonString(value, options);
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'bigint':
      return value.toString();
    case 'boolean':
      return value ? 'true' : 'false';
    default:
      break;
  }
  if (Array.isArray(value)) return '[' + value.map((v) => encodeJson(v, options)).join(',') + ']';
  const obj = value as Record<string, unknown>;
  const parts: string[] = [];
  for (const key of Object.keys(obj)) {
    if (obj[key] === undefined) continue;
    parts.push(encodeJsonString(key, options) + ':' + encodeJson(obj[key], options));
  }
  return '{' + parts.join(',') + '}';
}
