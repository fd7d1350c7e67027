import type { IncomingMessage } from 'node:http';

/**
 * The request's headers, names lower-cased: node:http's own map, which it builds for every request
 * anyway (a second one from rawHeaders cost the listener ~1.5 % of its thread). A repeated field is
 * what node:http makes of it (the first `content-type`, `host`, …; others joined with `, `);
 * `set-cookie`, the one list, is joined too.
 */
export function headerMap(req: IncomingMessage): Record<string, string> {
  const h = req.headers as Record<string, string | string[]>;
  const cookies = h['set-cookie'];
  if (cookies !== undefined) h['set-cookie'] = ([] as string[]).concat(cookies).join(', ');
  return h as Record<string, string>;
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
