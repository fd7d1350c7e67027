import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { hashRequestBody } from '../signing/request-signature.js';
import { serve } from '../http/serve.js';
import { hmacHex, signaturesEqual } from '../signing/callback-signature.js';
import { formatJakarta } from '../signing/request-signature.js';
import { envelope, paymentData, sendJson, transactionView } from './views.js';
import { DEFAULT_ACCOUNT, type SandboxAccount } from './accounts.js';
import { Outbox, type CallbackAttemptEvent, type DeliveryFaults } from './outbox.js';
import { renderPaymentPage } from './page.js';
import { buildTransaction } from './payments.js';
import { readPaymentRequest } from './validate.js';
import { StoreError } from './log.js';
import { lockDataDir, type DataDirLock, type LockOwner } from './datadir.js';
import { MerchantApi, notEmulated } from './merchant-api.js';
import { loadRegions, lookupRegions, type RegionIndex } from './regions.js';
import { SandboxState, type Transaction } from './state.js';
import { actionRefusal, isLoopbackHost, LiveHub } from '../dashboard/html.js';
import { handleDashboard, isDashboardPath, type DashboardContext } from './dashboard.js';

export { transactionView } from './views.js';
export type { LockOwner } from './datadir.js';

export const DEFAULT_RETRY_SCHEDULE = [500, 1000, 2000, 5000, 10_000, 30_000, 60_000, 300_000];

export interface SandboxOptions {
  /** Port; 4010 by default, 0 for any free port. */
  port?: number;
  host?: string;
  /** Journal directory; in memory when absent. */
  dataDir?: string;
  /**
   * This process, for the data dir's lock (its pid is recorded; a crashed holder is recognised by
   * `isAlive`). Without it the holder of a lock is presumed alive until the lock goes stale (10 s).
   */
  lockOwner?: LockOwner;
  va?: string;
  apiKey?: string;
  /** Several merchants (replaces va/apiKey). */
  accounts?: SandboxAccount[];
  callbackFormat?: 'form' | 'json';
  /** `immediate` (default: settled, transaction_status_code 1) or `deferred` (unsettle, 6). */
  settlement?: 'immediate' | 'deferred';
  retrySchedule?: number[];
  callbackTimeoutMs?: number;
  faults?: DeliveryFaults;
  /** The business clock (payment times, expiry); tests move it. */
  now?: () => Date;
  onEvent?: (e: SandboxEvent) => void;
  maxBodyBytes?: number;
  /** How often pending payments are checked for expiry. */
  expirySweepMs?: number;
  /** Serve the dashboard at `/` (default true; answered on loopback addresses only). */
  dashboard?: boolean;
}

/** What start-up found in the data dir (logged by `paycli sandbox`). */
export interface StartupEvent {
  type: 'startup';
  /** Journal lines that could not be read and were skipped. */
  skippedLines: number;
  /** Paid or expired transactions found without a queued callback; queued now. */
  reconciled: number;
  /** Partial `*.tmp` files of an interrupted write, removed. */
  removedTmp: string[];
  /** The pid of a crashed emulator whose data-dir lock was taken over. */
  tookOverFrom?: number;
}

/** The journal could not take a change (a full disk): it was answered 503 and nothing changed. */
export interface StoreErrorEvent {
  type: 'store-error';
  message: string;
}

export interface RequestEvent {
  type: 'request';
  method: string;
  path: string;
  status: number;
  ms: number;
  message?: string;
}
export interface TransitionEvent {
  type: 'transition';
  trxId: number;
  from: string;
  to: string;
  by: 'buyer' | 'admin' | 'clock';
}
export type SandboxEvent = RequestEvent | TransitionEvent | CallbackAttemptEvent | StartupEvent | StoreErrorEvent;

export interface SandboxHandle {
  /** `http://host:port` */
  url: string;
  /** `http://host:port/api`, the base URL for paycli (`--base-url`). */
  apiUrl: string;
  /** The dashboard's address (`http://host:port/`), null when it is off. */
  dashboardUrl: string | null;
  port: number;
  accounts: SandboxAccount[];
  state: SandboxState;
  regions: RegionIndex;
  /** Check transaction, history, balance, channels and redirect payments, as the API answers them. */
  merchant: MerchantApi;
  /** Marks a pending payment paid and sends its callback. */
  pay(idOrPaymentNo: string): Promise<TransitionResult>;
  /** Expires a pending payment and sends its callback. */
  expire(idOrPaymentNo: string): Promise<TransitionResult>;
  /** Sends a paid or expired payment's callback again now (a retry that is due now, or a new delivery). */
  resend(idOrPaymentNo: string): Promise<ResendResult>;
  /** Expires every pending payment whose expiry has passed on the business clock. */
  expireDue(): Promise<number>;
  /** Resolves when every callback is delivered or has failed. */
  idle(timeoutMs?: number): Promise<boolean>;
  /** What start-up found in the data dir. */
  startup: StartupEvent;
  close(): Promise<void>;
}

export type ResendResult = { ok: true; txn: Transaction; deliveryId: string; queued: boolean } | { ok: false; status: number; message: string; txn?: Transaction };

export type TransitionResult = { ok: true; txn: Transaction; changed: boolean } | { ok: false; status: number; message: string; txn?: Transaction };

class BodyTooLarge extends Error {}

/**
 * Where a browser reaches the dashboard: the emulator's own address when it is a loopback one,
 * 127.0.0.1 when it listens on every address, none when it listens only on another address.
 */
function dashboardAddress(origin: string, port: number): string | null {
  const host = new URL(origin).hostname;
  if (host === '0.0.0.0' || host === '[::]') return `http://127.0.0.1:${port}/`;
  return isLoopbackHost(host) ? `${origin}/` : null;
}

function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        reject(new BodyTooLarge());
        req.pause();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/**
 * Starts the emulator: spec endpoints 1–5 and check transaction with the gateway's authentication,
 * a hosted payment page, an admin API under `/_sandbox`, and a durable callback outbox.
 */
export async function startSandbox(options: SandboxOptions = {}): Promise<SandboxHandle> {
  const now = options.now ?? (() => new Date());
  const emit = options.onEvent ?? (() => undefined);
  const accounts: SandboxAccount[] = options.accounts ?? [
    { ...DEFAULT_ACCOUNT, va: options.va ?? DEFAULT_ACCOUNT.va, apiKey: options.apiKey ?? (options.va ? undefined : DEFAULT_ACCOUNT.apiKey), callbackFormat: options.callbackFormat ?? 'form' },
  ];
  if (options.callbackFormat && options.accounts) for (const a of accounts) a.callbackFormat = options.callbackFormat;
  const byVa = new Map(accounts.map((a) => [a.va, a]));
  const limit = options.maxBodyBytes ?? 1024 * 1024;
  let lock: DataDirLock | undefined;
  let opened: SandboxState | undefined;
  if (options.dataDir) {
    lock = await lockDataDir(
      options.dataDir,
      (err) => {
        // Another emulator may own the journal now: stop writing to it (every change answers 503).
        const reason = `the data-dir lock was lost (${err.message}); restart the emulator`;
        opened?.fence(reason);
        emit({ type: 'store-error', message: reason });
      },
      options.lockOwner,
    );
  }
  let regions: RegionIndex;
  let state: SandboxState;
  try {
    [regions, state] = await Promise.all([loadRegions(), SandboxState.open(lock?.dir)]);
    opened = state;
  } catch (err) {
    await lock?.release();
    throw err;
  }
  const outbox = new Outbox(state, {
    schedule: options.retrySchedule ?? DEFAULT_RETRY_SCHEDULE,
    attemptTimeoutMs: options.callbackTimeoutMs ?? 5000,
    now,
    faults: options.faults ?? {},
    settlement: options.settlement,
    onEvent: emit,
  });

  const formatOf = (t: Transaction) => byVa.get(t.merchantVa)?.callbackFormat ?? 'form';
  const hub = new LiveHub();
  const dashboardOn = options.dashboard !== false;
  if (dashboardOn) state.onChange = () => hub.changed();
  const dashboard: DashboardContext = { state, hub, now: () => Date.now(), merchantName: (t) => byVa.get(t.merchantVa)?.name ?? t.merchantVa };

  /** Journals the status change and its callback as one record, then starts the delivery. */
  async function change(t: Transaction, to: 'berhasil' | 'expired', by: TransitionEvent['by']): Promise<void> {
    const from = t.status;
    const d = await state.transition(t.id, to, now().getTime(), Outbox.entry(t, to, formatOf(t)));
    emit({ type: 'transition', trxId: t.id, from, to, by });
    if (d) outbox.start(d);
  }

  /** A transition, checked and journalled while no other transition of the same payment runs. */
  function transition(t: Transaction, to: 'berhasil' | 'expired', by: TransitionEvent['by']): Promise<TransitionResult> {
    return state.exclusive(t.id, async (): Promise<TransitionResult> => {
      if (t.status === 'pending' && to === 'berhasil' && t.expiresAt <= now().getTime()) await change(t, 'expired', 'clock');
      if (t.status === to) return { ok: true, txn: t, changed: false };
      if (t.status !== 'pending') {
        const message = t.status === 'expired' ? `transaction ${t.id} has expired and cannot be paid` : `transaction ${t.id} is already paid and cannot expire`;
        return { ok: false, status: 409, message, txn: t };
      }
      await change(t, to, by);
      return { ok: true, txn: t, changed: true };
    });
  }

  async function act(id: string, to: 'berhasil' | 'expired', by: TransitionEvent['by']): Promise<TransitionResult> {
    const t = state.find(id);
    if (!t) return { ok: false, status: 404, message: `no transaction with id or payment number "${id}"` };
    try {
      return await transition(t, to, by);
    } catch (err) {
      if (!(err instanceof StoreError)) throw err;
      emit({ type: 'store-error', message: err.message });
      return { ok: false, status: 503, message: `${err.message}; nothing changed, try again`, txn: t };
    }
  }

  /**
   * Re-sends a transaction's callback now: a delivery waiting for its next retry is attempted at
   * once; otherwise (delivered, or given up) a new delivery of the current status is journalled and
   * sent, with the usual retries.
   */
  async function resend(id: string): Promise<ResendResult> {
    const t = state.find(id);
    if (!t) return { ok: false, status: 404, message: `no transaction with id or payment number "${id}"` };
    if (t.status === 'pending') return { ok: false, status: 409, message: `transaction ${t.id} is pending: it has no callback to send until it is paid or expires`, txn: t };
    try {
      return await state.exclusive(t.id, async (): Promise<ResendResult> => {
        const waiting = state.deliveriesOf(t.id).find((d) => d.state === 'pending' && d.status === t.status);
        if (waiting) {
          outbox.sendNow(waiting);
          return { ok: true, txn: t, deliveryId: waiting.id, queued: false };
        }
        const d = await state.addDelivery(Outbox.entry(t, t.status as 'berhasil' | 'expired', formatOf(t)));
        outbox.start(d);
        return { ok: true, txn: t, deliveryId: d.id, queued: true };
      });
    } catch (err) {
      if (!(err instanceof StoreError)) throw err;
      emit({ type: 'store-error', message: err.message });
      return { ok: false, status: 503, message: `${err.message}; nothing changed, try again`, txn: t };
    }
  }

  async function expireDue(): Promise<number> {
    const at = now().getTime();
    let n = 0;
    for (const t of [...state.txns.values()]) {
      if (t.status === 'pending' && t.expiresAt <= at) {
        const r = await transition(t, 'expired', 'clock');
        if (r.ok && r.changed) n++;
      }
    }
    return n;
  }

  const merchant = await MerchantApi.open({
    state, accounts: byVa, now, settlement: options.settlement ?? 'immediate', dataDir: options.dataDir,
    pay: (t) => transition(t, 'berhasil', 'buyer'),
  });

  /** Spec 5.1 and 7: checked before any route logic. Returns the account or answers 401. */
  function authenticate(req: IncomingMessage, body: Buffer, res: ServerResponse): SandboxAccount | undefined {
    const va = req.headers['va'];
    const signature = req.headers['signature'];
    const deny = (m: string) => {
      envelope(res, 401, m, null);
      return undefined;
    };
    if (typeof va !== 'string' || va === '') return deny('invalid header param - va is required');
    if (typeof signature !== 'string' || signature === '') return deny('invalid header param - signature is required');
    const account = byVa.get(va);
    if (!account || !account.active || !account.apiKey) return deny('unauthorized credential');
    if (signature === account.apiKey) return deny('unauthorized signature');
    const method = (req.method ?? 'GET').toUpperCase();
    const expected = hmacHex(account.apiKey, `${method}:${va}:${hashRequestBody(body)}:${account.apiKey}`);
    if (!signaturesEqual(expected, signature)) return deny('unauthorized signature');
    return account;
  }

  function parseJson(body: Buffer, res: ServerResponse): Record<string, unknown> | undefined {
    try {
      const v = JSON.parse(body.toString('utf8') || 'null') as unknown;
      if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
    } catch {
      /* answered below */
    }
    envelope(res, 400, 'error - invalid request', null, { Error: { body: ['body harus berupa objek JSON yang valid.'] } });
    return undefined;
  }

  async function handle(req: IncomingMessage, res: ServerResponse, body: Buffer): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://sandbox');
    const path = url.pathname;
    const method = (req.method ?? 'GET').toUpperCase();
    if (dashboardOn && handleDashboard(dashboard, req, res, url, method)) return;
    const area = /^\/api\/areas\/(province|city|district|village)(?:\/([^/]*))?\/?$/.exec(path);
    if (area) {
      if (!authenticate(req, body, res)) return;
      const [, level, code] = area;
      if (level !== 'province' && code === undefined) {
        envelope(res, 404, 'route not found', null);
        return;
      }
      let decoded: string | undefined;
      try {
        decoded = code === undefined ? undefined : decodeURIComponent(code);
      } catch {
        decoded = ''; // not a code the gateway knows: an empty result, like any unknown code
      }
      envelope(res, 200, 'Success', lookupRegions(regions, level!, decoded));
      return;
    }
    if (path === '/api/v2/payment/direct') {
      const account = authenticate(req, body, res);
      if (!account) return;
      if (method !== 'POST') {
        envelope(res, 405, 'method not allowed', null);
        return;
      }
      const json = parseJson(body, res);
      if (!json) return;
      const read = readPaymentRequest(json);
      if (!read.ok) {
        envelope(res, 400, 'error - invalid request', null, { Error: read.errors });
        return;
      }
      // The id is reserved durably first; the answer goes out only once the payment is journalled.
      const t = buildTransaction(read.request, account, await state.reserveId(), now().getTime());
      await state.addTransaction(t);
      envelope(res, 200, 'Success', paymentData(t, `http://${req.headers.host ?? 'sandbox'}`));
      return;
    }
    const qr = /^\/qr\/(?:(template)\/)?(\d+)$/.exec(path);
    if (qr) {
      const t = state.txns.get(Number(qr[2]));
      if (!t?.qrString) {
        res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('no such QRIS payment\n');
        return;
      }
      const { qrPng, qrTemplate } = await import('./page.js');
      if (qr[1]) {
        const html = qrTemplate(t, byVa.get(t.merchantVa)?.name ?? t.merchantVa);
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(html) }).end(html);
      } else {
        const png = await qrPng(t.qrString);
        res.writeHead(200, { 'content-type': 'image/png', 'content-length': png.length }).end(png);
      }
      return;
    }
    const page = /^\/pay\/(\d+)(?:\/(pay|expire))?\/?$/.exec(path);
    if (page) {
      const t = state.txns.get(Number(page[1]));
      if (!t) {
        res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('no such payment\n');
        return;
      }
      if (page[2]) {
        if (method !== 'POST') {
          res.writeHead(405, { allow: 'POST' }).end();
          return;
        }
        const r = await transition(t, page[2] === 'pay' ? 'berhasil' : 'expired', 'buyer');
        if (!r.ok) {
          res.writeHead(r.status, { 'content-type': 'text/plain; charset=utf-8' }).end(r.message + '\n');
          return;
        }
        res.writeHead(303, { location: `/pay/${t.id}` }).end();
        return;
      }
      await expireDue();
      const html = await renderPaymentPage(t, byVa.get(t.merchantVa)?.name ?? t.merchantVa, now().getTime());
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(html) }).end(html);
      return;
    }
    if (path.startsWith('/_sandbox/')) {
      await admin(req, path, method, res);
      return;
    }
    if (path.startsWith('/api/v2/') || path.startsWith('/api/areas/')) {
      // The gateway's middleware authenticates these prefixes before routing.
      const account = authenticate(req, body, res);
      if (!account || (await merchant.api(req, res, body, path, method, account))) return;
    } else if (await merchant.page(req, res, body, path, method)) return;
    envelope(res, 404, notEmulated(method, path), null);
  }

  async function admin(req: IncomingMessage, path: string, method: string, res: ServerResponse): Promise<void> {
    if (path === '/_sandbox/health') {
      sendJson(res, 200, { ok: true, transactions: state.txns.size, accounts: accounts.map((a) => a.va), regions: regions.counts });
      return;
    }
    if (path === '/_sandbox/transactions' && method === 'GET') {
      sendJson(res, 200, { transactions: [...state.txns.values()].map((t) => transactionView(t, state)) });
      return;
    }
    const m = /^\/_sandbox\/transactions\/([^/]+)(?:\/(pay|expire|resend))?$/.exec(path);
    if (m) {
      let id: string;
      try {
        id = decodeURIComponent(m[1]!);
      } catch {
        sendJson(res, 400, { ok: false, error: 'malformed percent-encoding in the transaction id' });
        return;
      }
      if (!m[2]) {
        const t = state.find(id);
        if (!t) sendJson(res, 404, { ok: false, error: `no transaction with id or payment number "${id}"` });
        else sendJson(res, 200, { ok: true, transaction: transactionView(t, state) });
        return;
      }
      if (method !== 'POST') {
        res.setHeader('allow', 'POST');
        sendJson(res, 405, { ok: false, error: 'use POST' });
        return;
      }
      // A page of another site must not be able to make a browser pay or expire payments here.
      const refused = actionRefusal(req);
      if (refused) {
        sendJson(res, 403, { ok: false, error: refused });
        return;
      }
      if (m[2] === 'resend') {
        const r = await resend(id);
        if (!r.ok) sendJson(res, r.status, { ok: false, error: r.message, transaction: r.txn ? transactionView(r.txn, state) : null });
        else sendJson(res, 200, { ok: true, delivery: r.deliveryId, queued: r.queued, message: `callback ${r.deliveryId} of trx ${r.txn.id} (${r.txn.status}) ${r.queued ? 'queued' : 'sent'} now`, transaction: transactionView(r.txn, state) });
        return;
      }
      const r = await act(id, m[2] === 'pay' ? 'berhasil' : 'expired', 'admin');
      if (!r.ok) sendJson(res, r.status, { ok: false, error: r.message, transaction: r.txn ? transactionView(r.txn, state) : null });
      else sendJson(res, 200, { ok: true, changed: r.changed, message: `${r.changed ? '' : 'already '}${m[2] === 'pay' ? 'paid' : 'expired'}: trx ${r.txn.id}${r.changed ? '; callback queued' : ''}`, transaction: transactionView(r.txn, state) });
      return;
    }
    sendJson(res, 404, { ok: false, error: 'unknown admin route' });
  }

  const server = createServer((req, res) => {
    const started = performance.now();
    // The dashboard's own page loads are not API traffic: not logged.
    if (dashboardOn && isDashboardPath((req.url ?? '').split('?')[0]!)) return void readBody(req, limit).then((body) => handle(req, res, body)).catch(() => res.destroy());
    res.on('finish', () => emit({ type: 'request', method: req.method ?? '?', path: (req.url ?? '').split('?')[0]!, status: res.statusCode, ms: Math.round((performance.now() - started) * 10) / 10 }));
    readBody(req, limit)
      .then((body) => handle(req, res, body))
      .catch((err: unknown) => {
        if (res.headersSent) {
          res.destroy();
          return;
        }
        if (err instanceof BodyTooLarge) {
          res.setHeader('connection', 'close');
          envelope(res, 413, `request body over ${limit} bytes`, null);
          return;
        }
        if (err instanceof StoreError) {
          // Nothing was stored and nothing changed: the client may retry once there is room.
          emit({ type: 'store-error', message: err.message });
          res.setHeader('retry-after', '5');
          envelope(res, 503, 'service unavailable - the emulator cannot store this request now; nothing was changed', null);
          return;
        }
        envelope(res, 500, `internal emulator error: ${(err as Error).message}`, null);
      });
  });
  let url: string;
  let port: number;
  try {
    ({ origin: url, port } = await serve(server, { port: options.port ?? 4010, host: options.host ?? '127.0.0.1', requestTimeoutMs: 30_000 }));
  } catch (err) {
    await state.close();
    await lock?.release();
    throw err;
  }
  outbox.resume();
  // Journals of older versions could hold a transition whose callback was never queued: queue it now.
  let reconciled = 0;
  const queued = new Set([...state.deliveries.values()].map((d) => `${d.trxId}:${d.status}`));
  for (const t of state.txns.values()) {
    if (t.status === 'pending' || queued.has(`${t.id}:${t.status}`)) continue;
    try {
      outbox.start(await state.addDelivery(Outbox.entry(t, t.status, formatOf(t))));
      reconciled++;
    } catch (err) {
      if (!(err instanceof StoreError)) throw err;
      emit({ type: 'store-error', message: `${err.message}; the callback of trx ${t.id} will be queued on the next start` });
      break;
    }
  }
  const startup: StartupEvent = { type: 'startup', skippedLines: state.skipped, reconciled, removedTmp: lock?.removedTmp ?? [], ...(lock?.tookOverFrom !== undefined ? { tookOverFrom: lock.tookOverFrom } : {}) };
  emit(startup);
  const sweep = setInterval(() => void expireDue().catch(() => undefined), options.expirySweepMs ?? 1000);
  sweep.unref();
  return {
    url,
    apiUrl: `${url}/api`,
    dashboardUrl: dashboardOn ? dashboardAddress(url, port) : null,
    port,
    accounts,
    state,
    regions,
    merchant,
    pay: (id) => act(id, 'berhasil', 'admin'),
    expire: (id) => act(id, 'expired', 'admin'),
    resend,
    expireDue,
    idle: (ms) => outbox.idle(ms),
    startup,
    async close() {
      clearInterval(sweep);
      hub.close();
      await outbox.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await merchant.close();
      await state.close();
      await lock?.release();
    },
  };
}
