/**
 * Hop-by-hop header fields (RFC 9110 §7.6.1): they describe one connection, not the message, and a
 * forwarder must not pass them on. Besides the fixed list, every field that `Connection` names is
 * hop-by-hop for that message. Content-Length is recomputed by the sender; Host is the target's.
 */
const HOP_BY_HOP = new Set(['connection', 'proxy-connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host', 'content-length']);

/** The headers (lower-cased names) a forwarder may pass on: hop-by-hop fields and the ones `Connection` names removed. */
export function forwardableHeaders(headers: Record<string, string>): Record<string, string> {
  const named = new Set<string>();
  for (const [k, v] of Object.entries(headers)) {
    if (k.toLowerCase() !== 'connection' && k.toLowerCase() !== 'proxy-connection') continue;
    for (const token of v.split(',')) {
      const t = token.trim().toLowerCase();
      if (t) named.add(t);
    }
  }
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) {
    const name = k.toLowerCase();
    if (!HOP_BY_HOP.has(name) && !named.has(name)) out[k] = v;
  }
  return out;
}
