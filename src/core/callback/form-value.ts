// Percent-decoding of form values (no imports: the parser and the canonical form's byte writer share it).

/** A hexadecimal digit's value by character code (ASCII), -1 for anything else. */
const HEX_VALUE = (() => {
  const t = new Int8Array(128).fill(-1);
  for (let c = 0; c < 10; c++) t[48 + c] = c;
  for (let c = 0; c < 6; c++) t[65 + c] = t[97 + c] = 10 + c;
  return t;
})();

/**
 * `decodeURIComponent(text)` when every escape in it is `%XX` below `%80` (one ASCII character
 * each, which is what decodeURIComponent makes of it); undefined otherwise (a multi-byte or
 * malformed escape: decodeURIComponent decides). A callback's escapes are mostly `:`, `/`, `@`.
 */
export function decodeAsciiEscapes(text: string): string | undefined {
  let at = text.indexOf('%');
  let out = '';
  let start = 0;
  while (at >= 0) {
    const a = text.charCodeAt(at + 1);
    const b = text.charCodeAt(at + 2);
    const high = a < 128 ? HEX_VALUE[a]! : -1;
    const low = b < 128 ? HEX_VALUE[b]! : -1;
    if (high < 0 || low < 0 || high > 7) return undefined;
    out += text.slice(start, at) + String.fromCharCode(high * 16 + low);
    start = at + 3;
    at = text.indexOf('%', start);
  }
  return out + text.slice(start);
}

/** One raw form value decoded as parseFormBody decodes it (`+` a space, then percent-decoding); undefined when it does not decode. */
export function decodeFormValue(raw: string): string | undefined {
  let value = raw.indexOf('+') < 0 ? raw : raw.replaceAll('+', ' ');
  if (value.indexOf('%') < 0) return value;
  const ascii = decodeAsciiEscapes(value);
  if (ascii !== undefined) return ascii;
  try {
    value = decodeURIComponent(value);
  } catch {
    return undefined;
  }
  return value;
}
