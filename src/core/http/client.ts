import type { Agent as HttpAgent } from 'node:http';
import type { Dispatcher } from 'undici';
import { NetworkError, PaycliError } from '../errors.js';
import { flattenHeaders, sendRaw } from './raw-post.js';
import { readPrefix, WHOLE_ANSWER_MAX_BYTES } from './bounded-read.js';

/** The largest gateway answer the API client reads (whole, it is parsed); a larger one is an error. */
export const API_ANSWER_MAX_BYTES = WHOLE_ANSWER_MAX_BYTES;
import type { Env } from '../env.js';

export interface HttpRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  /** Aborts the request at once (Ctrl-C): `send` then rejects with an `interrupted` error. */
  signal?: AbortSignal;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string>;
  text: string;
  /** The answer's bytes (`text` is their UTF-8 reading): a PDF label, an image. */
  bytes?: Buffer;
  /** Attempts made (1 unless a GET was retried). */
  attempts: number;
}

export interface HttpClientOptions {
  timeoutMs: number;
  userAgent: string;
  /** Environment, for HTTPS_PROXY / HTTP_PROXY / NO_PROXY. */
  env?: Env;
  /** An undici dispatcher to use instead of the default keep-alive agent (tests, proxies). */
  dispatcher?: Dispatcher;
  /** Retries for idempotent (GET) requests on transient failures; POST is never retried. */
  getRetries?: number;
  retryBaseDelayMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

export interface HttpClient {
  send(req: HttpRequest): Promise<HttpResponse>;
  close(): Promise<void>;
}

const TRANSIENT_STATUS = new Set([502, 503, 504]);

/** A one-line cause for a low-level network error. */
export function describeNetworkError(err: unknown, timeoutMs: number): string {
  const e = err as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = e?.code ?? e?.cause?.code ?? '';
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'DNS lookup failed (host not found)';
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return `could not connect within ${timeoutMs} ms`;
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'ETIMEDOUT' || (err as Error)?.name === 'TimeoutError')
    return `no complete answer within ${timeoutMs} ms (timeout)`;
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE') return 'the connection was reset before the answer was complete';
  if (/CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY/.test(code)) return `TLS failed (${code})`;
  if (code === 'UND_ERR_INVALID_ARG' || code === 'ERR_INVALID_URL') return `invalid request: ${e.message}`;
  return (e?.message ?? String(err)) + (code ? ` (${code})` : '');
}

function isTransient(err: unknown): boolean {
  const e = err as { code?: string; cause?: { code?: string } };
  const code = e?.code ?? e?.cause?.code ?? '';
  return ['ECONNRESET', 'UND_ERR_SOCKET', 'ECONNREFUSED', 'EPIPE', 'UND_ERR_CONNECT_TIMEOUT', 'EAI_AGAIN', 'UND_ERR_HEADERS_TIMEOUT'].includes(code);
}

/**
 * Creates the HTTP client every API command uses: node:http(s), or the undici package with an
 * EnvHttpProxyAgent when a proxy is configured or a dispatcher is injected, with keep-alive,
 * timeouts, a paycli user agent, and retries with backoff for GET only (a payment POST must never be
 * sent twice).
 */
export async function createHttpClient(options: HttpClientOptions): Promise<HttpClient> {
  const env = options.env ?? {};
  const proxy = env.HTTPS_PROXY ?? env.https_proxy ?? env.HTTP_PROXY ?? env.http_proxy;
  const retries = options.getRetries ?? 2;
  const baseDelay = options.retryBaseDelayMs ?? 200;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  // Without a proxy or an injected dispatcher, node:http(s) is enough, and the cheapest: Node's
  // built-in fetch costs ~18 ms more to load and keeps the process alive ~40 ms after the answer
  // (BENCHMARKS.md). Keep-alive agents per protocol; one timer bounds connect, headers and body.
  let undici: typeof import('undici') | undefined;
  let ownedDispatcher: Dispatcher | undefined;
  if (options.dispatcher || proxy) undici = await import('undici');
  /** The injected dispatcher, or this client's own (made again after a deadline destroyed it). */
  const dispatcherFor = (u: typeof import('undici')): Dispatcher => {
    if (options.dispatcher) return options.dispatcher;
    if (!ownedDispatcher) {
      const timeouts = { headersTimeout: options.timeoutMs, bodyTimeout: options.timeoutMs, connectTimeout: Math.min(options.timeoutMs, 10_000) };
      ownedDispatcher = proxy
        ? new u.EnvHttpProxyAgent({
            httpProxy: env.HTTP_PROXY ?? env.http_proxy,
            httpsProxy: env.HTTPS_PROXY ?? env.https_proxy,
            noProxy: env.NO_PROXY ?? env.no_proxy,
            ...timeouts,
            keepAliveTimeout: 10_000,
          })
        : new u.Agent({ ...timeouts, keepAliveTimeout: 10_000 });
    }
    return ownedDispatcher;
  };
  const agents = new Map<string, HttpAgent>();

  async function once(req: HttpRequest): Promise<Omit<HttpResponse, 'attempts'>> {
    const headers = { 'user-agent': options.userAgent, ...req.headers };
    if (undici) {
      const dispatcher = dispatcherFor(undici);
      // One deadline for the whole request, proxy CONNECT included, raced rather than only passed
      // to undici: a proxy that closes the connection during CONNECT makes undici's proxy agent
      // re-queue the request and reconnect without end, never looking at the request's signal
      // (nodejs/undici#3897, still so in the 7.x line that supports Node 20). On the deadline or
      // Ctrl-C the request rejects at once, and this client's own dispatcher is destroyed so the
      // reconnect loop stops; a later request makes a new one.
      const deadline = AbortSignal.timeout(options.timeoutMs);
      const signal = req.signal ? AbortSignal.any([deadline, req.signal]) : deadline;
      try {
        return await untilAborted(signal, async () => {
          const res = await undici!.request(req.url, {
            method: req.method as Dispatcher.HttpMethod,
            headers,
            body: req.body,
            dispatcher,
            headersTimeout: options.timeoutMs,
            bodyTimeout: options.timeoutMs,
            signal,
          });
          const answer = await readPrefix(res.body, API_ANSWER_MAX_BYTES, 'fail');
          return { status: res.statusCode, headers: flattenHeaders(res.headers), text: answer.bytes.toString('utf8'), bytes: answer.bytes };
        });
      } catch (err) {
        if (signal.aborted && dispatcher === ownedDispatcher) {
          ownedDispatcher = undefined;
          dispatcher.destroy().catch(() => {});
        }
        throw err;
      }
    }
    return nodeRequest(req, headers, agents, options.timeoutMs);
  }

  return {
    send: (req) =>
      sendWithRetries(req, once, { retries, baseDelay, sleep, timeoutMs: options.timeoutMs, proxied: () => Boolean(undici && !options.dispatcher) }),
    async close() {
      for (const agent of agents.values()) agent.destroy();
      await ownedDispatcher?.close();
    },
  };
}

/** One request through node:http or node:https (sendRaw) on a keep-alive agent per protocol. */
async function nodeRequest(
  req: HttpRequest,
  headers: Record<string, string>,
  agents: Map<string, HttpAgent>,
  timeoutMs: number,
): Promise<Omit<HttpResponse, 'attempts'>> {
  const { protocol } = new URL(req.url);
  if (protocol !== 'http:' && protocol !== 'https:') throw Object.assign(new Error(`unsupported protocol ${protocol}`), { code: 'ERR_INVALID_URL' });
  let agent = agents.get(protocol);
  if (!agent) {
    const { Agent } = protocol === 'https:' ? await import('node:https') : await import('node:http');
    agents.set(protocol, (agent = new Agent({ keepAlive: true, keepAliveMsecs: 10_000 })));
  }
  const res = await sendRaw(req.url, {
    method: req.method.toUpperCase(),
    headers,
    body: req.body,
    timeoutMs,
    agent,
    signal: req.signal,
    maxAnswerBytes: API_ANSWER_MAX_BYTES,
    overLimit: 'fail',
  });
  return { status: res.status, headers: res.headers, text: res.body, bytes: res.bytes };
}

interface RetryPolicy {
  retries: number;
  baseDelay: number;
  sleep(ms: number): Promise<void>;
  timeoutMs: number;
  /** Whether the request went through a proxy (for the hint of a failure). */
  proxied(): boolean;
}

/** Sends `req` with `once`, retrying a GET with backoff on a transient status or error; failures become NetworkError. */
async function sendWithRetries(req: HttpRequest, once: (req: HttpRequest) => Promise<Omit<HttpResponse, 'attempts'>>, p: RetryPolicy): Promise<HttpResponse> {
  const retriable = req.method.toUpperCase() === 'GET';
  for (let attempt = 1; ; attempt++) {
    try {
      const res = await once(req);
      if (retriable && attempt <= p.retries && TRANSIENT_STATUS.has(res.status)) {
        await p.sleep(p.baseDelay * 2 ** (attempt - 1));
        continue;
      }
      return { ...res, attempts: attempt };
    } catch (err) {
      if (req.signal?.aborted) {
        throw new PaycliError('interrupted', `${req.method.toUpperCase()} ${redactUrl(req.url)} interrupted: the request was aborted`, { cause: err });
      }
      if (retriable && attempt <= p.retries && isTransient(err)) {
        await p.sleep(p.baseDelay * 2 ** (attempt - 1));
        continue;
      }
      throw new NetworkError(`${req.method.toUpperCase()} ${redactUrl(req.url)} failed: ${describeNetworkError(err, p.timeoutMs)}`, {
        cause: err,
        hint: hintFor(err, req.url, p.proxied()),
      });
    }
  }
}

/** `work()`, or a rejection with the signal's reason as soon as the signal aborts, whichever is first. */
function untilAborted<T>(signal: AbortSignal, work: () => Promise<T>): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work().then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

function hintFor(err: unknown, url: string, proxied = false): string | undefined {
  const d = describeNetworkError(err, 0);
  // Through a proxy, a request that never ends may be the proxy's doing (one that closes every CONNECT).
  if (proxied && d.includes('timeout')) return 'raise --timeout, or check the proxy (HTTPS_PROXY, HTTP_PROXY, NO_PROXY) and the network path to the gateway';
  if (d.startsWith('connection refused') && /127\.0\.0\.1|localhost/.test(url)) return 'is the emulator running? start it with `paycli sandbox`';
  if (d.startsWith('connection refused')) return 'check --base-url and your network or proxy (HTTPS_PROXY)';
  if (d.startsWith('DNS')) return 'check the host name in --base-url and your DNS or proxy settings';
  if (d.includes('timeout')) return 'raise --timeout, or check the network path to the gateway';
  if (d.startsWith('TLS')) return 'check the system clock and any TLS-intercepting proxy (NODE_EXTRA_CA_CERTS)';
  return undefined;
}

/** Drops userinfo from a URL before it is shown. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.username || u.password) {
      u.username = '';
      u.password = '';
    }
    return u.toString();
  } catch {
    return url;
  }
}
