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

export const PHP_DEFAULT: JsonEncodeOptions = { escapeSlash: true, escapeUnicode: true };
/** What the CLI sends as request bodies: `/` raw, non-ASCII escaped (cli.md section 1). */
export const REQUEST_BODY: JsonEncodeOptions = { escapeSlash: false, escapeUnicode: true };

/** A JSON integer kept as its decimal digits, so that values beyond 2^53 stay exact. */
export class JsonInteger {
  constructor(readonly digits: string) {}
}

const SHORT_ESCAPES: Record<string, string> = {
  '"': '\\"',
  '\\': '\\\\',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
};

function hex4(code: number): string {
  return '\\u' + code.toString(16).padStart(4, '0');
}

/** Encodes one string as a JSON string literal with the given escaping rules. */
const NEEDS_ESCAPE_PHP = /["\\\/\u0000-\u001f\u0080-\uffff]/;
const NEEDS_ESCAPE_RAW_SLASH = /["\\\u0000-\u001f\u0080-\uffff]/;

export function encodeJsonString(value: string, options: JsonEncodeOptions): string {
  // Most callback values are plain ASCII: skip the character loop for them.
  if (options.escapeUnicode && !(options.escapeSlash ? NEEDS_ESCAPE_PHP : NEEDS_ESCAPE_RAW_SLASH).test(value)) return '"' + value + '"';
  let out = '"';
  let start = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    let rep: string | undefined;
    if (c < 0x20 || c === 0x22 || c === 0x5c) rep = SHORT_ESCAPES[value[i]!] ?? hex4(c);
    else if (c === 0x2f && options.escapeSlash) rep = '\\/';
    else if (c >= 0x80 && options.escapeUnicode) rep = hex4(c);
    if (rep !== undefined) {
      out += value.slice(start, i) + rep;
      start = i + 1;
    }
  }
  return out + value.slice(start) + '"';
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
