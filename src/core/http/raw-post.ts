import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

const HOP_BY_HOP = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'content-length', 'proxy-connection', 'upgrade', 'te', 'trailer']);

/** A received request's headers (lower-cased names) without the hop-by-hop ones, ready to send on. */
export function endToEndHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (!HOP_BY_HOP.has(k)) out[k] = v;
  return out;
}

/** One phrase for a failed `sendRaw`: its timeout message already names the limit. */
export function describeSendError(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  return e?.code === 'ECONNREFUSED' ? 'connection refused' : (e?.message ?? String(err));
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  ms: number;
}

export interface RawRequestOptions {
  method?: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  timeoutMs: number;
  /** Milliseconds since an epoch, for latency; performance.now by default. */
  clock?: () => number;
}

/**
 * Sends one HTTP request with exactly the given headers and body bytes (no headers added but
 * Host, Content-Length and Connection) and reads the whole answer. Used to deliver callbacks, to
 * forward them, and to test merchants' handlers. Rejects on network errors and timeouts.
 */
export function sendRaw(url: string, options: RawRequestOptions): Promise<RawResponse> {
  const clock = options.clock ?? (() => performance.now());
  const started = clock();
  return new Promise((resolve, reject) => {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      reject(new Error(`invalid URL "${url}"`));
      return;
    }
    const body = options.body === undefined ? undefined : Buffer.isBuffer(options.body) ? options.body : Buffer.from(options.body);
    const headers: Record<string, string | number> = { ...options.headers };
    if (body && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-length')) headers['Content-Length'] = body.length;
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(target, { method: options.method ?? 'POST', headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        clearTimeout(timer);
        const h: Record<string, string> = {};
        for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) h[k] = Array.isArray(v) ? v.join(', ') : v;
        resolve({ status: res.statusCode ?? 0, headers: h, body: Buffer.concat(chunks).toString('utf8'), ms: Math.round((clock() - started) * 10) / 10 });
      });
      res.on('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
    });
    const timer = setTimeout(() => {
      const err = Object.assign(new Error(`no answer within ${options.timeoutMs} ms`), { code: 'ETIMEDOUT' });
      req.destroy(err);
    }, options.timeoutMs);
    req.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.end(body);
  });
}
