import { isUtf8 } from 'node:buffer';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { NO_SUMMARY } from '../callback/verifier.js';
import { UsageError } from '../errors.js';
import { isLoopbackUrl } from '../http/loopback.js';
import { serve } from '../http/serve.js';
import type { StoredEvent } from './stored-event.js';
import { EventIds } from './event-id.js';
import { Forwarder, forwardResult } from './forward.js';
import { collectBody, headerMap, isUiPath } from './receive.js';
import type { CallbackEventStore, ForwardResult, ListenerHandle, ListenerOptions, ListenerSummary, StoreTrouble } from './types.js';
import { comparedPart, errorText, OK_TEXT, PLAIN, RequestVerifier, type Outcome } from './verify-request.js';

export { retryKey } from './stored-event.js';
export type { CallbackEventStore, ForwardResult, ListenerEvent, ListenerHandle, ListenerOptions, ListenerSummary, StoredEvent, StoreTrouble } from './types.js';

/** The usual answer's headers, made once (node:http reads the list without changing it). */
const OK_HEADERS: readonly string[] = ['content-type', 'application/json', 'content-length', String(Buffer.byteLength(OK_TEXT))];

/**
 * A local receiver for the gateway's callbacks. Verifies each with the canonical signature, stores
 * every request before answering (a request the store cannot take is answered 503, so that the
 * gateway retries), marks retries as duplicates, optionally forwards valid callbacks' exact bytes to
 * the merchant's app, and answers like the gateway's reference handler. No request can crash it: any
 * exception while parsing or checking a body makes it a stored, 400 "malformed" request.
 *
 * Its parts read top to bottom as a request flows: receive (`receive.ts`) → verify
 * (`verify-request.ts`) → forward (valid callbacks, when forwarding: the answer mirrors the app's;
 * `forward.ts`) → store → answer.
 *
 * The hot path makes no promise per request: the body is collected from the request's events, the
 * verdict is computed synchronously, and the store's group commit calls back, in one event-loop
 * turn, every request whose event it wrote in one write; they are answered then.
 */
export async function startListener(options: ListenerOptions): Promise<ListenerHandle> {
  const store = options.store ?? null;
  // A retry of a callback acknowledged by an earlier run is found in the store (an index lookup).
  if (store) await store.prepare();
  const listener = new Listener(options, store);
  const host = options.host ?? '127.0.0.1';
  const { origin, port } = await serve(listener.server, { port: options.port ?? 8080, host, requestTimeoutMs: options.requestTimeoutMs ?? 10_000 });
  // A target that is this listener would send each callback back to itself, forever (one became 4 000 in 3 s).
  const self = (options.forwardTo ?? []).find((url) => isThisListener(url, host, port, listener.acceptPath));
  if (self) {
    await listener.close();
    throw new UsageError(`--forward-to ${self} is this listener itself: each callback would be forwarded back to it, forever`, {
      hint: 'forward to your app (its own port or path)',
    });
  }
  return {
    url: `${origin}${listener.acceptPath === '*' ? '/' : listener.acceptPath}`,
    port,
    summary: listener.summary,
    close: () => listener.close(),
  };
}

/** Whether `url` reaches this listener: its port on a loopback or its own address, and a path it takes callbacks on. */
function isThisListener(url: string, host: string, port: number, acceptPath: string): boolean {
  const u = new URL(url);
  const targetPort = Number(u.port || (u.protocol === 'https:' ? 443 : 80));
  const sameHost = isLoopbackUrl(url) || u.hostname.replace(/^\[|\]$/g, '') === host || u.hostname === '0.0.0.0';
  if (!sameHost || targetPort !== port || u.protocol !== 'http:') return false;
  return acceptPath === '*' || comparedPart(acceptPath, `${u.pathname}${u.search}`) === acceptPath;
}

/** The store's health as the listener reports it: once when it starts failing, once when it works again. */
class StoreHealth {
  private failing = false;
  private refused = 0;

  constructor(private readonly report?: (t: StoreTrouble) => void) {}

  refusedOne(err: unknown): void {
    const e = err as NodeJS.ErrnoException;
    this.refused++;
    if (this.failing) return;
    this.failing = true;
    this.report?.({ failing: true, error: errorText(e), code: e?.code });
  }

  stored(): void {
    if (!this.failing) return;
    this.failing = false;
    this.report?.({ failing: false, refused: this.refused });
    this.refused = 0;
  }
}

/** One listener's state: its counts, its requests in flight, its store's health, its server. */
class Listener {
  readonly summary: ListenerSummary = { total: 0, valid: 0, 'valid-variant': 0, invalid: 0, malformed: 0, duplicates: 0, unstored: 0 };
  readonly acceptPath: string;
  readonly server: Server;
  private readonly now: () => Date;
  private readonly limit: number;
  private readonly verifier: RequestVerifier;
  private readonly forwarder: Forwarder;
  private readonly health: StoreHealth;
  private readonly ids = new EventIds();
  // receivedAt's text for the last millisecond seen: under load many requests arrive within one.
  private isoMs = Number.NaN;
  private isoText = '';
  private inflight = 0;
  private idle: (() => void) | undefined;

  constructor(
    private readonly options: ListenerOptions,
    private readonly store: CallbackEventStore | null,
  ) {
    this.now = options.now ?? (() => new Date());
    this.limit = options.maxBodyBytes ?? 1024 * 1024;
    this.acceptPath = options.path ?? '/';
    this.verifier = new RequestVerifier({ va: options.va, otherKeys: options.otherKeys ?? [], limit: this.limit, acceptPath: this.acceptPath, store });
    this.forwarder = new Forwarder(options.forwardTo ?? [], options.forwardTimeoutMs ?? 10_000, options.onForward);
    this.health = new StoreHealth(options.onStoreTrouble);
    this.server = createServer((req, res) => this.receive(req, res));
  }

  /** receive: the body, collected from the request's events and size-limited. */
  private receive(req: IncomingMessage, res: ServerResponse): void {
    // The UI's pages: never a callback (a path callbacks do not use), never stored.
    if (this.options.ui && isUiPath(req.url ?? '', this.options.ui.prefix)) {
      this.options.ui.handle(req, res);
      return;
    }
    const started = performance.now();
    const receivedAt = this.now();
    this.inflight++;
    const headers = headerMap(req);
    collectBody(
      req,
      Number(headers['content-length']),
      this.limit,
      (body) => this.received(req, res, headers, body, started, receivedAt),
      () => {
        res.destroy();
        this.finished();
      },
    );
  }

  /** verify, then forward (a valid callback, when forwarding) → store → answer. */
  private received(req: IncomingMessage, res: ServerResponse, headers: Record<string, string>, body: Buffer | null, started: number, receivedAt: Date): void {
    const method = (req.method ?? 'GET').toUpperCase();
    const path = req.url ?? '/';
    // Decoded once, for the parser and the stored event.
    const text = body === null ? null : body.toString('utf8');
    // Bytes that are not UTF-8 are kept exactly too (a replay sends them back as they came).
    const exact = body !== null && !isUtf8(body) ? body.toString('base64') : undefined;
    const o = this.verifier.verify(method, path, headers, text);
    const id = this.ids.next(receivedAt);
    if (!o.accepted || this.forwarder.targets.length === 0 || body === null) {
      this.storeEvent(res, o, id, receivedAt, method, path, headers, text ?? '', exact, started, []);
      return;
    }
    // Forwarded: the answer mirrors the first target.
    void this.forwarder.send(id, headers, body).then((first) => {
      if (first.status === null) [o.answer, o.text, o.contentType] = [502, `forward to ${first.url} failed: ${first.error}\n`, PLAIN];
      else [o.answer, o.text, o.contentType] = [first.status, first.body ?? '', first.contentType ?? PLAIN]; // its bytes, as they came
      this.storeEvent(res, o, id, receivedAt, method, path, headers, text ?? '', exact, started, [forwardResult(first)]);
    });
  }

  /** store: the event, before any answer (an acknowledged callback is never lost). */
  private storeEvent(
    res: ServerResponse,
    o: Outcome,
    id: string,
    receivedAt: Date,
    method: string,
    path: string,
    headers: Record<string, string>,
    text: string,
    exact: string | undefined,
    started: number,
    forwards: ForwardResult[],
  ): void {
    const event: StoredEvent = {
      id,
      receivedAt: this.isoOf(receivedAt),
      method,
      path,
      headers,
      body: text,
      bodyBase64: exact,
      verdict: o.verdict,
      variant: o.variant,
      reason: o.reason,
      duplicate: o.duplicate,
      trx_id: o.summary.trx_id,
      status: o.summary.status,
      answer: o.answer,
      source: 'listen',
    };
    this.summary.total++;
    this.summary[o.verdict]++;
    if (o.duplicate) this.summary.duplicates++;
    if (this.store) this.store.appendWith(event, (err) => this.answer(res, o, event, started, forwards, err), o.key);
    else this.answer(res, o, event, started, forwards, undefined);
  }

  private isoOf(d: Date): string {
    const ms = d.getTime();
    if (ms !== this.isoMs) {
      this.isoText = d.toISOString(); // throws for an invalid date, as before
      this.isoMs = ms;
    }
    return this.isoText;
  }

  /** answer: after the store took the event (or refused it: 503, so that the gateway retries). */
  private answer(res: ServerResponse, o: Outcome, event: StoredEvent, started: number, forwards: ForwardResult[], storeError: unknown): void {
    if (storeError !== undefined) {
      const e = storeError as NodeJS.ErrnoException;
      [o.answer, o.contentType, o.close] = [503, PLAIN, false];
      o.text = `cannot store the request (${e?.code ?? errorText(e)}); try again later\n`;
      event.answer = 503;
      this.summary.unstored++;
      this.health.refusedOne(e);
    } else if (this.store) this.health.stored();
    this.verifier.settled(o);
    if (o.close) res.setHeader('connection', 'close');
    if (o.answer === 405) res.setHeader('allow', 'POST');
    // A flat [name, value, …] list: node:http stores it without walking an object's keys.
    if (o.answer === 200 && o.text === OK_TEXT && o.contentType === 'application/json') res.writeHead(200, OK_HEADERS as string[]);
    else res.writeHead(o.answer, ['content-type', o.contentType, 'content-length', String(Buffer.byteLength(o.text))]);
    res.end(o.text);
    this.finished();
    if (storeError === undefined) this.options.ui?.added(event);
    this.options.onEvent?.({
      type: 'request',
      event,
      summary: o.summary === NO_SUMMARY ? { ...NO_SUMMARY } : o.summary,
      forwards,
      stored: storeError === undefined && this.store !== null,
      ms: Math.round((performance.now() - started) * 10) / 10,
    });
  }

  private finished(): void {
    if (--this.inflight === 0) this.idle?.();
  }

  /** Stops accepting, finishes in-flight requests, returns the counts. */
  async close(): Promise<ListenerSummary> {
    this.options.ui?.close();
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeIdleConnections();
    if (this.inflight > 0) await new Promise<void>((resolve) => (this.idle = resolve));
    this.server.closeAllConnections(); // stalled clients do not hold the shutdown
    await closed;
    await this.forwarder.drain();
    await this.store?.close();
    return this.summary;
  }
}
