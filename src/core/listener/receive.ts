import type { IncomingMessage } from 'node:http';

/** The request's headers, names lower-cased, from rawHeaders once (req.headers would build a second object). */
export function headerMap(req: IncomingMessage): Record<string, string> {
  const h: Record<string, string> = {};
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) h[raw[i]!.toLowerCase()] = raw[i + 1]!;
  return h;
}

/** `/_paycli/…`, or `/_paycli` alone (with or without a query). */
export function isUiPath(url: string, prefix: string): boolean {
  return url.startsWith(prefix) || url === prefix.slice(0, -1) || url.startsWith(`${prefix.slice(0, -1)}?`);
}

/**
 * Collects a request's body from its events, at most `limit` bytes: `done` is called once, with the
 * body or with null for one over the limit (declared or sent; the rest is discarded), or `gone` is
 * called once when the sender went away (or timed out) before the end of its request.
 */
export function collectBody(req: IncomingMessage, declared: number, limit: number, done: (body: Buffer | null) => void, gone: () => void): void {
  if (declared > limit) {
    req.resume();
    done(null);
    return;
  }
  let chunks: Buffer[] | null = [];
  let size = 0;
  let finished = false;
  req.on('data', (c: Buffer) => {
    if (finished) return;
    size += c.length;
    if (size > limit) {
      finished = true;
      chunks = null;
      done(null);
      return;
    }
    chunks!.push(c);
  });
  req.on('end', () => {
    if (finished) return;
    finished = true;
    done(chunks!.length === 1 ? chunks![0]! : Buffer.concat(chunks!, size));
  });
  req.on('error', () => undefined);
  req.on('close', () => {
    // Nothing to store, nobody to answer.
    if (finished) return;
    finished = true;
    gone();
  });
}
