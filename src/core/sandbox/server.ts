import { createServer } from 'node:http';
import { BodyTooLarge, readBody } from '../http/read-body.js';
import { serve } from '../http/serve.js';
import { envelope } from './views.js';
import { isoJakarta } from '../time.js';
import { DEFAULT_ACCOUNT, type SandboxAccount } from './accounts.js';
import { Outbox } from './outbox.js';
import { openDataDir, type OpenedDataDir } from './datadir.js';
import { MerchantApi } from './merchant-api.js';
import { loadRegions, type RegionIndex } from './regions.js';
import { SandboxState, StoreError, type Transaction } from './state.js';
import { isLoopbackHost, LiveHub } from '../dashboard/html.js';
import { isDashboardPath, type DashboardContext } from './dashboard.js';
import { createRouter } from './routes.js';
import { CLOCK_SETTING, SandboxClock } from './clock.js';
import { RequestLog, noteOf, noteRequest } from './request-log.js';
import { drawFaults } from './faults.js';
import { Transitions } from './transitions.js';

export { transactionView } from './views.js';
export type { ResendResult, StoreErrorEvent, TransitionEvent, TransitionResult } from './transitions.js';
export type { LockOwner } from './datadir.js';
export type { ClockResult } from './clock.js';

export { DEFAULT_RETRY_SCHEDULE } from './server-types.js';
export type { RequestEvent, SandboxEvent, SandboxHandle, SandboxOptions, StartupEvent } from './server-types.js';
import { DEFAULT_RETRY_SCHEDULE, type SandboxHandle, type SandboxOptions, type StartupEvent } from './server-types.js';

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
 * the API) → authenticate (authenticate.ts) → transition (transitions.ts) → store (state.ts) →
 * enqueue the callback and deliver it (outbox.ts). They are set up here in the reverse order:
 * state, outbox, transitions, routes, then the server.
 */
export async function startSandbox(options: SandboxOptions = {}): Promise<SandboxHandle> {
  const clock = new SandboxClock(options.now);
  const now = () => clock.now();
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
    clock.restore(Number(state.setting(CLOCK_SETTING) ?? 0));
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
  const transitions = new Transitions({ state, outbox, now, formatOf, emit, settlement: options.settlement });
  clock.persist = (ms) => state.setSetting(CLOCK_SETTING, String(ms));
  clock.onMove = async () => {
    await transitions.runDue();
    outbox.reschedule();
  };

  const merchant = new MerchantApi({
    state, accounts: byVa, now, settlement: options.settlement ?? 'immediate',
    pay: (t) => transitions.transition(t, 'pay', 'buyer'),
    due: () => transitions.runDue().catch(() => undefined),
  });
  // The dashboard shows a transaction as check transaction answers it: the merchant API's own record.
  const dashboard: DashboardContext = {
    state, hub, now: () => clock.nowMs(), merchantName: (t) => byVa.get(t.merchantVa)?.name ?? t.merchantVa,
    checkTransaction: (t) => merchant.record(t),
  };

  // route: the gateway's API, the payment and QR pages, the dashboard and the admin API (routes.ts).
  const requests = new RequestLog();
  dashboard.requests = requests;
  const route = createRouter({ state, regions, accounts, transitions, merchant, now, clock, requests, dashboard: dashboardOn ? dashboard : null,
    allowedHosts: [...(options.allowedHosts ?? []), options.host ?? '127.0.0.1'],
  });
  const apiFaults = options.apiFaults ?? [];
  const random = options.random ?? Math.random;
  const held = new Set<import('node:http').ServerResponse>();

  // request: read the body (size-limited), route it, and answer whatever went wrong in one place.
  const server = createServer((req, res) => {
    const started = performance.now();
    // The dashboard's own page loads are not API traffic: not logged.
    if (dashboardOn && isDashboardPath((req.url ?? '').split('?')[0]!)) return void readBody(req, limit).then((body) => route(req, res, body)).catch(() => res.destroy());
    const path = (req.url ?? '').split('?')[0]!;
    const logged = (status: number) => {
      const e = { method: req.method ?? '?', path, status, ms: Math.round((performance.now() - started) * 10) / 10, ...noteOf(res) };
      requests.add({ time: isoJakarta(clock.now()), ...e });
      if (dashboardOn) hub.changed();
      emit({ type: 'request', ...e });
    };
    res.on('finish', () => logged(res.statusCode));
    // API faults are drawn before anything is read or routed: a faulted request changes no state.
    const fault = apiFaults.length > 0 ? drawFaults(apiFaults, path, random) : { delayMs: 0 };
    const handle = async (body: Buffer) => {
      if (fault.delayMs > 0) {
        noteRequest(res, { fault: 'api-slow' });
        await new Promise((r) => setTimeout(r, fault.delayMs));
      }
      if (fault.fail === 'api-500') {
        noteRequest(res, { fault: 'api-500' });
        envelope(res, 500, 'internal server error (injected by --faults api-500; nothing was changed)', null);
        return;
      }
      if (fault.fail === 'api-timeout') {
        // No answer: the client's own timeout decides. Logged now, since it never finishes.
        noteRequest(res, { fault: 'api-timeout' });
        held.add(res);
        res.on('close', () => held.delete(res));
        logged(0);
        return;
      }
      await route(req, res, body);
    };
    readBody(req, limit)
      .then(handle)
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
      outbox.start(await state.addDelivery(outbox.entry(t, t.status, formatOf(t))));
      reconciled++;
    } catch (err) {
      if (!(err instanceof StoreError)) throw err;
      emit({ type: 'store-error', message: `${err.message}; the callback of trx ${t.id} was not queued` });
      break;
    }
  }
  const startup: StartupEvent = { type: 'startup', skippedLines: migrated?.skipped ?? 0, reconciled, ...(migrated ? { migrated: migrated.imported } : {}) };
  emit(startup);
  const sweep = setInterval(() => void transitions.runDue().catch(() => undefined), options.expirySweepMs ?? 1000);
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
    pay: (id) => transitions.act(id, 'pay', 'admin'),
    expire: (id) => transitions.act(id, 'expire', 'admin'),
    act: (id, action) => transitions.act(id, action, 'admin'),
    resend: (id, to) => transitions.resend(id, to),
    expireDue: () => transitions.expireDue(),
    clock,
    advanceClock: (ms) => clock.advance(ms),
    setClock: (at) => clock.set(at),
    idle: (ms) => outbox.idle(ms),
    startup,
    requests,
    async close() {
      clearInterval(sweep);
      for (const r of held) r.destroy();
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
