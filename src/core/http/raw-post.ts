import { request as httpRequest, type Agent, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { ANSWER_PREFIX_BYTES, readPrefix } from './bounded-read.js';

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
  /** The answer's bytes as received (`body` is their UTF-8 reading). */
  bytes: Buffer;
  ms: number;
  /** The answer had more than `maxAnswerBytes`: `body` is its first bytes, the rest was not read. */
  truncated: boolean;
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
  /** Reads at most this many bytes of the answer (ANSWER_PREFIX_BYTES by default). */
  maxAnswerBytes?: number;
  /** A longer answer: its prefix (`truncated`, the default) or an AnswerTooLarge rejection (`fail`). */
  overLimit?: 'truncate' | 'fail';
}

/**
 * Sends one HTTP request with exactly the given headers and body bytes (no headers added but
 * Host, Content-Length and Connection) and reads at most `maxAnswerBytes` of the answer (readPrefix:
 * a peer answering gigabytes costs no more). Used to deliver callbacks, to forward and replay them,
 * to test merchants' handlers, and by the API client. Rejects on network errors and timeouts.
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
      readPrefix(res, options.maxAnswerBytes ?? ANSWER_PREFIX_BYTES, options.overLimit ?? 'truncate').then((prefix) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({
          status: res.statusCode ?? 0,
          headers: flattenHeaders(res.headers),
          body: prefix.bytes.toString('utf8'),
          bytes: prefix.bytes,
          ms: Math.round((clock() - started) * 10) / 10,
          truncated: prefix.truncated,
        });
      }, fail);
    });
    const timer = setTimeout(() => {
      const err = Object.assign(new Error(`no answer within ${options.timeoutMs} ms`), { code: 'ETIMEDOUT' });
      req.destroy(err);
    }, options.timeoutMs);
    req.on('error', fail);
    req.end(body);
  });
}
