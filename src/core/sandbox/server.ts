import { createServer } from 'node:http';
import { BodyTooLarge, readBody } from '../http/read-body.js';
import { serve } from '../http/serve.js';
import { envelope } from './views.js';
import { DEFAULT_ACCOUNT, type SandboxAccount } from './accounts.js';
import { Outbox, type CallbackAttemptEvent, type DeliveryFaults } from './outbox.js';
import { openDataDir, type OpenedDataDir } from './datadir.js';
import { MerchantApi } from './merchant-api.js';
import { loadRegions, type RegionIndex } from './regions.js';
import { SandboxState, StoreError, type Transaction } from './state.js';
import { isLoopbackHost, LiveHub } from '../dashboard/html.js';
import { isDashboardPath, type DashboardContext } from './dashboard.js';
import { createRouter } from './routes.js';
import { Transitions, type ResendResult, type StoreErrorEvent, type TransitionEvent, type TransitionResult } from './transitions.js';
import { deepFreeze } from '../freeze.js';

export { transactionView } from './views.js';
export type { ResendResult, StoreErrorEvent, TransitionEvent, TransitionResult } from './transitions.js';
export type { LockOwner } from './datadir.js';
import type { LockOwner } from './datadir.js';

export const DEFAULT_RETRY_SCHEDULE = deepFreeze([500, 1000, 2000, 5000, 10_000, 30_000, 60_000, 300_000]);

export interface SandboxOptions {
  /** Port; 4010 by default, 0 for any free port. */
  port?: number;
  host?: string;
  /** The data directory (its ledger is `ledger.db`); in memory when absent. */
  dataDir?: string;
  /** This process, for the data dir's lock: its pid is recorded for others to name, its uid must own the files. */
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
  /**
   * Host names the emulator answers to besides IP addresses, `localhost`, `*.localhost`, `*.internal`
   * and the `host` it listens on (a name): any other Host is refused (DNS rebinding).
   */
  allowedHosts?: string[];
}

/** What start-up found in the data dir (logged by `paycli sandbox`). */
export interface StartupEvent {
  type: 'startup';
  /** Lines of an older version's journal that could not be read and were skipped on its import. */
  skippedLines: number;
  /** Paid or expired transactions of an older journal found without a queued callback; queued now. */
  reconciled: number;
  /** Transactions imported from an older version's `journal.jsonl` (now `journal.jsonl.migrated`), if any. */
  migrated?: number;
}

export interface RequestEvent {
  type: 'request';
  method: string;
  path: string;
  status: number;
  ms: number;
  message?: string;
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

/**
 * Where a browser reaches the dashboard: the emulator's own address when it is a loopback one,
 * 127.0.0.1 when it listens on every address, none when it listens only on another address.
 */
function dashboardAddress(origin: string, port: number): string | null {
  const host = new URL(origin).hostname;
  if (host === '0.0.0.0' || host === '[::]') return `http://127.0.0.1:${port}/`;
  return isLoopbackHost(host) ? `${origin}/` : null;
}

/**
 * Starts the emulator: spec endpoints 1–5 and check transaction with the gateway's authentication,
 * a hosted payment page, an admin API under `/_sandbox`, and a durable callback outbox.
 *
 * A request flows: request (`readBody`, below) → route (routes.ts; merchant-api.ts for the rest of
 * the API) → authenticate (authenticate.ts) → transition (transitions.ts) → journal (state.ts) →
 * enqueue the callback and deliver it (outbox.ts). They are set up here in the reverse order:
 * state, outbox, transitions, routes, then the server.
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
  let opened: OpenedDataDir | undefined;
  let regions: RegionIndex;
  let state: SandboxState;
  try {
    [regions, opened] = await Promise.all([loadRegions(), options.dataDir ? openDataDir(options.dataDir, options.lockOwner) : undefined]);
    state = opened?.state ?? (await SandboxState.open());
  } catch (err) {
    await opened?.close();
    throw err;
  }
  const migrated = opened?.migrated;
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

  // transition → store → enqueue callback → deliver
  const transitions = new Transitions({ state, outbox, now, formatOf, emit });

  const merchant = new MerchantApi({
    state, accounts: byVa, now, settlement: options.settlement ?? 'immediate',
    pay: (t) => transitions.transition(t, 'berhasil', 'buyer'),
  });
  // The dashboard shows a transaction as check transaction answers it: the merchant API's own record.
  const dashboard: DashboardContext = {
    state, hub, now: () => Date.now(), merchantName: (t) => byVa.get(t.merchantVa)?.name ?? t.merchantVa,
    checkTransaction: (t) => merchant.record(t),
  };

  // route: the gateway's API, the payment and QR pages, the dashboard and the admin API (routes.ts).
  const route = createRouter({ state, regions, accounts, transitions, merchant, now, dashboard: dashboardOn ? dashboard : null,
    allowedHosts: [...(options.allowedHosts ?? []), options.host ?? '127.0.0.1'],
  });

  // request: read the body (size-limited), route it, and answer whatever went wrong in one place.
  const server = createServer((req, res) => {
    const started = performance.now();
    // The dashboard's own page loads are not API traffic: not logged.
    if (dashboardOn && isDashboardPath((req.url ?? '').split('?')[0]!)) return void readBody(req, limit).then((body) => route(req, res, body)).catch(() => res.destroy());
    res.on('finish', () => emit({ type: 'request', method: req.method ?? '?', path: (req.url ?? '').split('?')[0]!, status: res.statusCode, ms: Math.round((performance.now() - started) * 10) / 10 }));
    readBody(req, limit)
      .then((body) => route(req, res, body))
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
    await (opened ?? state).close();
    throw err;
  }
  outbox.resume();
  // An older version's journal could hold a transition whose callback was never queued: queue it now.
  let reconciled = 0;
  for (const t of migrated ? state.unqueued() : []) {
    try {
      outbox.start(await state.addDelivery(Outbox.entry(t, t.status, formatOf(t))));
      reconciled++;
    } catch (err) {
      if (!(err instanceof StoreError)) throw err;
      emit({ type: 'store-error', message: `${err.message}; the callback of trx ${t.id} was not queued` });
      break;
    }
  }
  const startup: StartupEvent = { type: 'startup', skippedLines: migrated?.skipped ?? 0, reconciled, ...(migrated ? { migrated: migrated.imported } : {}) };
  emit(startup);
  const sweep = setInterval(() => void transitions.expireDue().catch(() => undefined), options.expirySweepMs ?? 1000);
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
    pay: (id) => transitions.act(id, 'berhasil', 'admin'),
    expire: (id) => transitions.act(id, 'expired', 'admin'),
    resend: (id) => transitions.resend(id),
    expireDue: () => transitions.expireDue(),
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
      await (opened ?? state).close();
    },
  };
}
