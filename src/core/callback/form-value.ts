// Percent-decoding of form values (no imports: the reference parse and the fast path share it).

/** One raw form name or value decoded as PHP's parse_str decodes it (`+` a space, then percent-decoding); undefined when it does not decode. */
export function decodeFormValue(raw: string): string | undefined {
  const value = raw.indexOf('+') < 0 ? raw : raw.replaceAll('+', ' ');
  if (value.indexOf('%') < 0) return value;
  try {
    return decodeURIComponent(value);
  } catch {
    return undefined;
  }
}
