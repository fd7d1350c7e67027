import { ESCAPES_PHP } from '../signing/php-json.js';

// The byte-level pieces of the callback fast path (verifier.ts, their only user): a raw form body
// read in place, without decoding it into strings.

/** A hexadecimal digit's value by character code (ASCII), -1 for anything else. */
const HEX_DIGIT = (() => {
  const t = new Int8Array(128).fill(-1);
  for (let c = 0; c < 10; c++) t[48 + c] = c;
  for (let c = 0; c < 6; c++) t[65 + c] = t[97 + c] = 10 + c;
  return t;
})();
const HEX_LOWER = '0123456789abcdef';

/** `0`, or 1 to 18 digits without a leading zero (body[start, end)): PHP's `(int)` gives the same digits. */
export function isPlainIntegerAt(body: string, start: number, end: number): boolean {
  const n = end - start;
  if (n === 0 || n > 18) return false;
  const first = body.charCodeAt(start);
  if (first === 48 /* 0 */) return n === 1;
  if (first < 49 || first > 57) return false;
  for (let i = start + 1; i < end; i++) {
    const c = body.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/**
 * Where each value of a body whose names are exactly `keys`, in order, lies (value i at
 * [bounds[2i], bounds[2i + 1])), written into `bounds` (a caller's array, reused between bodies) and
 * returned; undefined otherwise (`bounds` then holds nothing useful).
 */
export function boundsByShape(body: string, keys: readonly string[], bounds: number[] = []): number[] | undefined {
  bounds.length = keys.length * 2;
  const end = body.length;
  let start = 0;
  for (let i = 0; i < keys.length; i++) {
    if (start > end) return undefined;
    let amp = body.indexOf('&', start);
    if (amp < 0) amp = end;
    const key = keys[i]!;
    const eq = start + key.length;
    if (eq >= amp || body.charCodeAt(eq) !== 61 /* = */ || !body.startsWith(key, start)) return undefined;
    bounds[2 * i] = eq + 1;
    bounds[2 * i + 1] = amp;
    start = amp + 1;
  }
  return start > end ? bounds : undefined;
}

/**
 * The plain, distinct names of a raw form body's pairs, in order, when every pair is `name=value`
 * with a name PHP's parse_str keeps as it is (no `[`, `.`, space, NUL, `%`, `+`, not empty): then
 * the reference parse gives exactly these names, each with its decoded value. Undefined otherwise.
 */
export function plainNames(body: string, maxNames: number): string[] | undefined {
  const names: string[] = [];
  const seen = new Set<string>();
  for (let start = 0; start <= body.length; ) {
    let amp = body.indexOf('&', start);
    if (amp < 0) amp = body.length;
    const eq = body.indexOf('=', start);
    if (eq < 0 || eq >= amp || eq === start) return undefined;
    const name = body.slice(start, eq);
    if (/[[. \0%+]/.test(name) || seen.has(name) || names.length >= maxNames) return undefined;
    seen.add(name);
    names.push(name);
    start = amp + 1;
  }
  return names;
}

/**
 * A raw form value (body[start, end)) written as the reference writes its decoded text
 * (encodeJsonString(decodeFormValue(value), PHP_DEFAULT)), when that can be done byte by byte:
 * every character ASCII, every escape `%XX` below `%80`. Returns the end, or -1 for any other
 * value (the caller decodes it as a string).
 */
export function putFormValueJson(out: Buffer, n: number, body: string, start: number, end: number): number {
  out[n++] = 0x22;
  for (let i = start; i < end; i++) {
    let c = body.charCodeAt(i);
    if (c === 0x2b /* + */) c = 0x20;
    else if (c === 0x25 /* % */) {
      if (i + 2 >= end) return -1;
      const a = body.charCodeAt(i + 1);
      const b = body.charCodeAt(i + 2);
      const high = a < 128 ? HEX_DIGIT[a]! : -1;
      const low = b < 128 ? HEX_DIGIT[b]! : -1;
      if (high < 0 || low < 0 || high > 7) return -1;
      c = high * 16 + low;
      i += 2;
    } else if (c >= 0x80) return -1;
    const e = ESCAPES_PHP[c]!;
    if (e === 0) out[n++] = c;
    else if (e === 1) {
      out[n++] = 0x5c;
      out[n++] = 0x75;
      out[n++] = 0x30;
      out[n++] = 0x30;
      out[n++] = HEX_LOWER.charCodeAt(c >> 4);
      out[n++] = HEX_LOWER.charCodeAt(c & 15);
    } else {
      out[n++] = 0x5c;
      out[n++] = e;
    }
  }
  out[n++] = 0x22;
  return n;
}
