/**
 * Whether a text is an http(s) URL a merchant may give (notifyUrl, returnUrl, cancelUrl): it parses
 * as a URL with a host, and holds no space or control character (they cannot go in a Location
 * header or a request line). Characters outside ASCII are allowed: `locationOf` percent-encodes them.
 */
export function isWebUrl(text: string): boolean {
  if (!/^https?:\/\/[^\s\x00-\x1f\x7f\u0080-\u009f]+$/i.test(text)) return false;
  try {
    return new URL(text).host !== '';
  } catch {
    return false;
  }
}

/**
 * A merchant's URL as a redirect's Location: percent-encoded (and its host in punycode) so that it
 * is ASCII whatever it held; undefined when it is not a web URL (an older journal's session).
 */
export function locationOf(url: string | undefined): string | undefined {
  if (url === undefined || !isWebUrl(url)) return undefined;
  return new URL(url).href;
}
