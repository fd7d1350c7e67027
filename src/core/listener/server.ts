import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { checkCallback } from '../callback/check.js';
import { callbackSignatureMatches, formSignatureMatches } from '../signing/callback-signature.js';
import { decodeFormValue, detectBodyFormat, locateFormShape, parseCallbackBody } from '../callback/parse.js';
import { describeSendError, sendRaw } from '../http/raw-post.js';
import { serve } from '../http/serve.js';
import type { CandidateKey } from '../signing/variants.js';
import { newEventId, retryKey, type EventStore, type StoredEvent, type Verdict } from './event-store.js';
import { forwardableHeaders } from './forward.js';
import type { ListenerUi } from './ui.js';

export interface ForwardResult {
  url: string;
  status: number | null;
  ms: number | null;
  error?: string;
}

export interface ListenerEvent {
  type: 'request';
  event: StoredEvent;
  /** Parsed fields useful for display. */
  summary: { trx_id: string | null; status: string | null; via: string | null; channel: string | null; amount: string | null };
  /** The first --forward-to target's result (its answer was mirrored); the others come through `onForward`. */
  forwards: ForwardResult[];
  /** False when the store could not take the request: it was answered 503 and is not in the store. */
  stored: boolean;
  ms: number;
}

/** The store's state changed: it started failing (first failure of an episode) or works again. */
export interface StoreTrouble {
  failing: boolean;
  /** The error of the first failed write (failing: true). */
  error?: string;
  code?: string;
  /** Requests answered 503 during the episode (failing: false). */
  refused?: number;
}

export interface ListenerOptions {
  port?: number;
  host?: string;
  /** Only this path is accepted (default `/`; `*` accepts any). */
  path?: string;
  va: string;
  /** Secrets to try when explaining a mismatch (API key, other VAs). */
  otherKeys?: CandidateKey[];
  store?: EventStore | null;
  maxBodyBytes?: number;
  /** Valid callbacks are forwarded to each; the answer mirrors the first, the others are fire-and-forget. */
  forwardTo?: string[];
  /** Each forward's own time limit (default 10 s). */
  forwardTimeoutMs?: number;
  /** A client must send its whole request within this many ms (slow clients get 408). */
  requestTimeoutMs?: number;
  now?: () => Date;
  onEvent?: (e: ListenerEvent) => void;
  /** The result of a forward to a second or later target, once it is known (after the answer). */
  onForward?: (e: { id: string; result: ForwardResult }) => void;
  /** Called once when the store starts failing (disk full, I/O error) and once when it works again. */
  onStoreTrouble?: (t: StoreTrouble) => void;
  /** Pages served under `ui.prefix` (`paycli listen --ui`); told of every stored event. */
  ui?: ListenerUi;
}

export interface ListenerSummary {
  total: number;
  valid: number;
  'valid-variant': number;
  invalid: number;
  malformed: number;
  duplicates: number;
  /** Requests answered 503 because the store could not take them. */
  unstored: number;
}

export interface ListenerHandle {
  url: string;
  port: number;
  summary: ListenerSummary;
  /** Stops accepting, finishes in-flight requests, returns the counts. */
  close(): Promise<ListenerSummary>;
}

function headerMap(req: IncomingMessage): Record<string, string> {
  const h: Record<string, string> = {};
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) h[raw[i]!.toLowerCase()] = raw[i + 1]!;
  return h;
}

/** `/_paycli/…`, or `/_paycli` alone (with or without a query). */
function isUiPath(url: string, prefix: string): boolean {
  return url.startsWith(prefix) || url === prefix.slice(0, -1) || url.startsWith(`${prefix.slice(0, -1)}?`);
}

function str(v: unknown): string | null {
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : null;
}

/** A located form shape's decoded value for a name (what `str(fields[name])` gives for its fields), null without the name, undefined when it does not decode. */
function rawValue(raw: { keys: readonly string[]; bounds: readonly number[] }, body: string, name: string): string | null | undefined {
  const i = raw.keys.indexOf(name);
  return i < 0 ? null : decodeFormValue(body.slice(raw.bounds[2 * i], raw.bounds[2 * i + 1]));
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** What the listener makes of one request before storing it. */
interface Outcome {
  answer: number;
  text: string;
  contentType: string;
  verdict: Verdict;
  variant: string | null;
  reason: string | null;
  /** The fields of the body, once parsed (undefined before, and while they are only a form shape). */
  fields: Record<string, unknown> | undefined;
  /** The fields shown with the event (from the parsed body; all null before it is parsed). */
  summary: ListenerEvent['summary'];
  /** The retry key, for an accepted callback. */
  key: string | null;
  duplicate: boolean;
  /** Accepted as a callback (valid or valid-variant): only these are forwarded. */
  accepted: boolean;
  close: boolean;
}

/** The summary of a request whose body was not parsed (copied before it is handed out). */
const NO_SUMMARY: ListenerEvent['summary'] = Object.freeze({ trx_id: null, status: null, via: null, channel: null, amount: null });

const PLAIN = 'text/plain; charset=utf-8';
const OK_TEXT = '{"status":"OK"}';
/** The usual answer's headers, made once (node:http reads the list without changing it). */
const OK_HEADERS: readonly string[] = ['content-type', 'application/json', 'content-length', String(Buffer.byteLength(OK_TEXT))];

/**
 * A local receiver for the gateway's callbacks. Verifies each with the canonical signature, stores
 * every request before answering (a request the store cannot take is answered 503, so that the
 * gateway retries), marks retries as duplicates, optionally forwards valid callbacks' exact bytes to
 * the merchant's app, and answers like the gateway's reference handler. No request can crash it: any
 * exception while parsing or checking a body makes it a stored, 400 "malformed" request.
 *
 * Its parts read top to bottom as a request flows: receive → verify → forward (valid callbacks, when
 * forwarding: the answer mirrors the app's) → store → answer.
 *
 * The hot path makes no promise per request: the body is collected from the request's events, the
 * verdict is computed synchronously, and the store's group commit calls back, in one event-loop
 * turn, every request whose event it wrote in one write; they are answered then.
 */
export async function startListener(options: ListenerOptions): Promise<ListenerHandle> {
  const now = options.now ?? (() => new Date());
  const limit = options.maxBodyBytes ?? 1024 * 1024;
  const acceptPath = options.path ?? '/';
  const forwardTo = options.forwardTo ?? [];
  const forwardTimeoutMs = options.forwardTimeoutMs ?? 10_000;
  const store = options.store ?? null;
  const seen = new Set<string>();
  const summary: ListenerSummary = { total: 0, valid: 0, 'valid-variant': 0, invalid: 0, malformed: 0, duplicates: 0, unstored: 0 };
  // A retry of a callback acknowledged by an earlier run is found in the store (an index lookup).
  if (store) await store.prepare();
  // receivedAt's text for the last millisecond seen: under load many requests arrive within one.
  let isoMs = Number.NaN;
  let isoText = '';
  const isoOf = (d: Date): string => {
    const ms = d.getTime();
    if (ms !== isoMs) {
      isoText = d.toISOString(); // throws for an invalid date, as before
      isoMs = ms;
    }
    return isoText;
  };
  let failing = false;
  let refused = 0;
  let inflight = 0;
  let idle: (() => void) | undefined;
  const secondaries = new Set<Promise<void>>();

  /** receive: the body, collected from the request's events and size-limited. */
  function receive(req: IncomingMessage, res: ServerResponse): void {
    // The UI's pages: never a callback (a path callbacks do not use), never stored.
    if (options.ui && isUiPath(req.url ?? '', options.ui.prefix)) {
      options.ui.handle(req, res);
      return;
    }
    const started = performance.now();
    const receivedAt = now();
    inflight++;
    // From rawHeaders, once: req.headers would build a second header object.
    const headers = headerMap(req);
    const declared = Number(headers['content-length']);
    if (declared > limit) {
      req.resume();
      received(req, res, headers, null, started, receivedAt);
      return;
    }
    let chunks: Buffer[] | null = [];
    let size = 0;
    let done = false;
    req.on('data', (c: Buffer) => {
      if (done) return;
      size += c.length;
      if (size > limit) {
        done = true;
        chunks = null;
        received(req, res, headers, null, started, receivedAt);
        return;
      }
      chunks!.push(c);
    });
    req.on('end', () => {
      if (done) return;
      done = true;
      received(req, res, headers, chunks!.length === 1 ? chunks![0]! : Buffer.concat(chunks!, size), started, receivedAt);
    });
    req.on('error', () => undefined);
    req.on('close', () => {
      // The sender went away (or timed out) before the end of its request: nothing to store, nobody to answer.
      if (done) return;
      done = true;
      res.destroy();
      finished();
    });
  }

  /** verify, then forward (a valid callback, when forwarding) → store → answer. */
  function received(req: IncomingMessage, res: ServerResponse, headers: Record<string, string>, body: Buffer | null, started: number, receivedAt: Date): void {
    const method = (req.method ?? 'GET').toUpperCase();
    const path = req.url ?? '/';
    // Decoded once, for the parser and the stored event.
    const text = body === null ? null : body.toString('utf8');
    const o = verify(method, path, headers, text);
    const id = newEventId(receivedAt);
    if (!o.accepted || forwardTo.length === 0 || body === null) {
      storeEvent(res, o, id, receivedAt, method, path, headers, text ?? '', started, []);
      return;
    }
    // Forwarded: the answer mirrors the first target; the others are fire-and-forget with their own timeout.
    const out = forwardableHeaders(headers);
    for (const url of forwardTo.slice(1)) {
      const p = forward(url, out, body)
        .then((result) => options.onForward?.({ id, result: { url, status: result.status, ms: result.ms, ...(result.error ? { error: result.error } : {}) } }))
        .catch(() => undefined);
      secondaries.add(p);
      void p.finally(() => secondaries.delete(p));
    }
    void forward(forwardTo[0]!, out, body).then((first) => {
      if (first.status === null) [o.answer, o.text, o.contentType] = [502, `forward to ${first.url} failed: ${first.error}\n`, PLAIN];
      else [o.answer, o.text, o.contentType] = [first.status, first.body ?? '', first.contentType ?? PLAIN];
      storeEvent(res, o, id, receivedAt, method, path, headers, text ?? '', started, [{ url: first.url, status: first.status, ms: first.ms, ...(first.error ? { error: first.error } : {}) }]);
    });
  }

  /** verify: the answer, verdict and duplicate mark of a request, synchronously; nothing stored yet. */
  function verify(method: string, path: string, headers: Record<string, string>, body: string | null): Outcome {
    const o: Outcome = { answer: 400, text: '', contentType: PLAIN, verdict: 'malformed', variant: null, reason: null, fields: undefined, summary: NO_SUMMARY, key: null, duplicate: false, accepted: false, close: false };
    const q = path.indexOf('?');
    const pathOnly = q < 0 ? path : path.slice(0, q);
    if (body === null) {
      [o.answer, o.text, o.reason, o.close] = [413, `body over ${limit} bytes\n`, `body over ${limit} bytes`, true];
      return o;
    }
    if (method !== 'POST') {
      [o.answer, o.text, o.reason] = [405, 'callbacks must be POSTed\n', `method ${method} not allowed`];
      return o;
    }
    if (acceptPath !== '*' && pathOnly !== acceptPath) {
      [o.answer, o.text, o.reason] = [404, `this listener receives callbacks on ${acceptPath}\n`, `path ${pathOnly} is not ${acceptPath}`];
      return o;
    }
    const ct = (headers['content-type'] ?? '').toLowerCase();
    if (!(ct === '' || ct.includes('application/json') || ct.includes('application/x-www-form-urlencoded'))) {
      [o.answer, o.text, o.reason] = [415, 'use application/x-www-form-urlencoded or application/json\n', `unsupported content type ${ct}`];
      return o;
    }
    const signature = headers['x-signature'];
    // A valid form callback with the names of a recent one: checked from its raw body (no values
    // decoded but the summary's, no canonical text made). Anything else takes the general route.
    if (!validRawForm(o, body, ct, signature)) {
      const early = verifyGeneral(o, body, ct, signature);
      if (early) return o;
    }
    o.key = retryKey(o.summary.trx_id, o.summary.status, signature!);
    o.duplicate = seen.has(o.key) || (store?.acknowledged(o.summary.trx_id, o.key) ?? false);
    if (!o.duplicate) seen.add(o.key);
    o.answer = 200;
    o.text = OK_TEXT;
    o.contentType = 'application/json';
    o.accepted = true;
    return o;
  }

  /**
   * A form body whose raw names are those of a recent body, with a signature that matches: its
   * summary and verdict set in `o` (true). False, with `o` untouched, for anything else.
   */
  function validRawForm(o: Outcome, body: string, ct: string, signature: string | undefined): boolean {
    if (signature === undefined || signature.trim() === '') return false;
    try {
      if (detectBodyFormat(body, ct) !== 'form') return false;
      const raw = locateFormShape(body);
      if (raw === undefined) return false;
      const summary = { trx_id: rawValue(raw, body, 'trx_id'), status: rawValue(raw, body, 'status'), via: rawValue(raw, body, 'via'), channel: rawValue(raw, body, 'channel'), amount: rawValue(raw, body, 'amount') };
      if (summary.trx_id === undefined || summary.status === undefined || summary.via === undefined || summary.channel === undefined || summary.amount === undefined) return false;
      if (formSignatureMatches(raw.keys, body, raw.bounds, signature, options.va) !== true) return false;
      o.summary = summary as ListenerEvent['summary'];
      o.verdict = 'valid';
      return true;
    } catch {
      return false; // the general route meets the same trouble and reports it
    }
  }

  /**
   * The general route: parse, then check. True when `o` is final (malformed, invalid, …); false for
   * an accepted callback, whose key is still to be made.
   */
  function verifyGeneral(o: Outcome, body: string, ct: string, signature: string | undefined): boolean {
    try {
      const fields = parseCallbackBody(body, ct).fields;
      o.fields = fields;
      o.summary = { trx_id: str(fields.trx_id), status: str(fields.status), via: str(fields.via), channel: str(fields.channel), amount: str(fields.amount) };
    } catch (err) {
      // MalformedPayloadError, but also whatever else a hostile body provokes (RangeError, …): 400, stored.
      o.reason = errorText(err);
      o.text = `malformed callback: ${o.reason}\n`;
      return true;
    }
    if (signature === undefined || signature.trim() === '') {
      [o.verdict, o.reason] = ['invalid', 'missing X-Signature header'];
      o.text = 'invalid signature: missing X-Signature header\n';
      return true;
    }
    try {
      // A valid callback needs one canonical form, one HMAC and one comparison of bytes; only the
      // others get checkCallback's report (variants, other keys, the reason).
      if (callbackSignatureMatches(o.fields as never, signature, options.va)) o.verdict = 'valid';
      else {
        const check = checkCallback(o.fields as never, signature, options.va, { diagnose: true, otherKeys: options.otherKeys ?? [] });
        o.verdict = check.verdict;
        o.variant = check.verdict === 'valid-variant' ? (check.diagnosis?.id ?? null) : null;
        o.reason = check.verdict === 'valid' ? null : check.reason;
        if (check.verdict === 'invalid') {
          o.text = `invalid signature: ${check.reason}\n`;
          return true;
        }
      }
    } catch (err) {
      o.verdict = 'malformed';
      o.variant = null;
      o.reason = `cannot check it: ${errorText(err)}`;
      o.text = `malformed callback: ${o.reason}\n`;
      return true;
    }
    return false;
  }

  function forward(url: string, headers: Record<string, string>, body: Buffer): Promise<ForwardResult & { body?: string; contentType?: string }> {
    return sendRaw(url, { method: 'POST', headers, body, timeoutMs: forwardTimeoutMs }).then(
      (r) => ({ url, status: r.status, ms: r.ms, body: r.body, contentType: r.headers['content-type'] }),
      (err: unknown) => ({ url, status: null, ms: null, error: describeSendError(err) }),
    );
  }

  /** store: the event, before any answer (an acknowledged callback is never lost). */
  function storeEvent(res: ServerResponse, o: Outcome, id: string, receivedAt: Date, method: string, path: string, headers: Record<string, string>, text: string, started: number, forwards: ForwardResult[]): void {
    const event: StoredEvent = {
      id,
      receivedAt: isoOf(receivedAt),
      method,
      path,
      headers,
      body: text,
      verdict: o.verdict,
      variant: o.variant,
      reason: o.reason,
      duplicate: o.duplicate,
      trx_id: o.summary.trx_id,
      status: o.summary.status,
      answer: o.answer,
      source: 'listen',
    };
    summary.total++;
    summary[o.verdict]++;
    if (o.duplicate) summary.duplicates++;
    // Stored before the answer: an acknowledged callback is never lost.
    if (store) store.appendWith(event, (err) => answer(res, o, event, started, forwards, err));
    else answer(res, o, event, started, forwards, undefined);
  }

  /** answer: after the store took the event (or refused it: 503, so that the gateway retries). */
  function answer(res: ServerResponse, o: Outcome, event: StoredEvent, started: number, forwards: ForwardResult[], storeError: unknown): void {
    const stored = storeError === undefined && store !== null;
    if (storeError !== undefined) {
      const e = storeError as NodeJS.ErrnoException;
      [o.answer, o.contentType, o.close] = [503, PLAIN, false];
      o.text = `cannot store the request (${e?.code ?? errorText(e)}); try again later\n`;
      event.answer = 503;
      summary.unstored++;
      refused++;
      if (!failing) {
        failing = true;
        options.onStoreTrouble?.({ failing: true, error: errorText(e), code: e?.code });
      }
    } else if (failing && store) {
      failing = false;
      options.onStoreTrouble?.({ failing: false, refused });
      refused = 0;
    }
    // Only an acknowledged callback is seen: after a 503 (or a forward target's non-200, mirrored) the
    // gateway retries, and that retry is not a duplicate.
    if (o.key && !o.duplicate && o.answer !== 200) seen.delete(o.key);
    if (o.close) res.setHeader('connection', 'close');
    if (o.answer === 405) res.setHeader('allow', 'POST');
    // A flat [name, value, …] list: node:http stores it without walking an object's keys.
    if (o.answer === 200 && o.text === OK_TEXT && o.contentType === 'application/json') res.writeHead(200, OK_HEADERS as string[]);
    else res.writeHead(o.answer, ['content-type', o.contentType, 'content-length', String(Buffer.byteLength(o.text))]);
    res.end(o.text);
    finished();
    if (storeError === undefined) options.ui?.added(event);
    options.onEvent?.({
      type: 'request',
      event,
      summary: o.summary === NO_SUMMARY ? { ...NO_SUMMARY } : o.summary,
      forwards,
      stored,
      ms: Math.round((performance.now() - started) * 10) / 10,
    });
  }

  function finished(): void {
    if (--inflight === 0) idle?.();
  }

  const server = createServer(receive);
  const { origin, port } = await serve(server, { port: options.port ?? 8080, host: options.host ?? '127.0.0.1', requestTimeoutMs: options.requestTimeoutMs ?? 10_000 });
  return {
    url: `${origin}${acceptPath === '*' ? '/' : acceptPath}`,
    port,
    summary,
    async close() {
      options.ui?.close();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      if (inflight > 0) await new Promise<void>((resolve) => (idle = resolve));
      server.closeAllConnections(); // stalled clients do not hold the shutdown
      await closed;
      // Forwards to other targets get a moment to finish; each has its own timeout anyway.
      if (secondaries.size > 0) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([Promise.allSettled([...secondaries]), new Promise((r) => (timer = setTimeout(r, 1000)))]);
        clearTimeout(timer);
      }
      await store?.close();
      return summary;
    },
  };
}
