import { request as httpRequest, type Agent, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';

/** One phrase for a failed `sendRaw`: its timeout message already names the limit. */
export function describeSendError(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  return e?.code === 'ECONNREFUSED' ? 'connection refused' : (e?.message ?? String(err));
}

/** Response headers as one string each (repeated ones joined with ", "). */
export function flattenHeaders(headers: IncomingHttpHeaders | Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
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
  /** A keep-alive agent for connections to reuse; a fresh connection per request by default. */
  agent?: Agent;
  /** Aborts the request at once (Ctrl-C); it then rejects with an AbortError. */
  signal?: AbortSignal;
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
    let settled = false;
    const fail = (err: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(err);
    };
    const req = send(target, { method: options.method ?? 'POST', headers, agent: options.agent ?? false, signal: options.signal }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, headers: flattenHeaders(res.headers), body: Buffer.concat(chunks).toString('utf8'), ms: Math.round((clock() - started) * 10) / 10 });
      });
      res.on('error', fail);
      // A connection that closes mid-body: a truncated answer, never a complete one.
      res.on('close', () => {
        if (!res.complete) fail(Object.assign(new Error('the connection closed before the answer was complete'), { code: 'ECONNRESET' }));
      });
    });
    const timer = setTimeout(() => {
      const err = Object.assign(new Error(`no answer within ${options.timeoutMs} ms`), { code: 'ETIMEDOUT' });
      req.destroy(err);
    }, options.timeoutMs);
    req.on('error', fail);
    req.end(body);
  });
}
