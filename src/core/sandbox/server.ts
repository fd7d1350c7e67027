import { createServer } from 'node:http';
import { serve } from '../http/serve.js';
import { DEFAULT_ACCOUNT, type SandboxAccount } from './accounts.js';
import { Outbox } from './outbox.js';
import { openDataDir, type OpenedDataDir } from './datadir.js';
import { MerchantApi } from './merchant-api.js';
import { loadRegions, type RegionIndex } from './regions.js';
import { SandboxState, StoreError, type Transaction } from './state.js';
import { isLoopbackHost, LiveHub } from '../dashboard/html.js';
import type { DashboardContext } from './dashboard.js';
import { createRouter } from './routes.js';
import { CLOCK_SETTING, SandboxClock } from './clock.js';
import { RequestLog } from './request-log.js';
import { RequestIntake } from './request-intake.js';
import { Transitions, type StoreErrorEvent } from './transitions.js';

export { transactionView } from './views.js';
export type { ResendResult, StoreErrorEvent, TransitionEvent, TransitionResult } from './transitions.js';
export type { LockOwner } from './datadir.js';
export type { ClockResult } from './clock.js';

export { DEFAULT_RETRY_SCHEDULE } from './server-types.js';
export type { EmulatorHandle, RequestEvent, SandboxEvent, SandboxHandle, SandboxOptions, StartupEvent } from './server-types.js';
import { DEFAULT_RETRY_SCHEDULE, type EmulatorHandle, type SandboxOptions, type StartupEvent } from './server-types.js';

/**
 * Where a browser reaches the dashboard: the emulator's own address when it is a loopback one,
 * 127.0.0.1 when it listens on every address, none when it listens only on another address.
 */
function dashboardAddress(origin: string, port: number): string | null {
  const host = new URL(origin).hostname;
  if (host === '0.0.0.0' || host === '[::]') return `http://127.0.0.1:${port}/`;
  return isLoopbackHost(host) ? `${origin}/` : null;
}

/** The accounts the emulator answers for: `accounts`, or the default merchant (with `va` and `apiKey`). */
function accountsOf(options: SandboxOptions): SandboxAccount[] {
  const accounts: SandboxAccount[] = options.accounts ?? [
    {
      ...DEFAULT_ACCOUNT,
      va: options.va ?? DEFAULT_ACCOUNT.va,
      apiKey: options.apiKey ?? (options.va ? undefined : DEFAULT_ACCOUNT.apiKey),
      callbackFormat: options.callbackFormat ?? 'form',
    },
  ];
  if (options.callbackFormat && options.accounts) for (const a of accounts) a.callbackFormat = options.callbackFormat;
  return accounts;
}

/** The region data and the ledger (the data directory's, locked, or one in memory), the clock restored from it. */
async function openStores(
  options: SandboxOptions,
  clock: SandboxClock,
): Promise<{ regions: RegionIndex; opened: OpenedDataDir | undefined; state: SandboxState }> {
  let opened: OpenedDataDir | undefined;
  try {
    const [regions, dir] = await Promise.all([loadRegions(), options.dataDir ? openDataDir(options.dataDir, options.lockOwner) : undefined]);
    opened = dir;
    const state = opened?.state ?? (await SandboxState.open());
    clock.restore(Number(state.setting(CLOCK_SETTING) ?? 0));
    return { regions, opened, state };
  } catch (err) {
    await opened?.close();
    throw err;
  }
}

/** An older version's journal could hold a transition whose callback was never queued: queue it now. */
async function queueUnqueued(
  state: SandboxState,
  outbox: Outbox,
  formatOf: (t: Transaction) => NonNullable<SandboxAccount['callbackFormat']>,
  emit: (e: StoreErrorEvent) => void,
): Promise<number> {
  let reconciled = 0;
  for (const t of state.unqueued()) {
    try {
      outbox.start(await state.addDelivery(outbox.entry(t, t.status, formatOf(t))));
      reconciled++;
    } catch (err) {
      if (!(err instanceof StoreError)) throw err;
      emit({ type: 'store-error', message: `${err.message}; the callback of trx ${t.id} was not queued` });
      break;
    }
  }
  return reconciled;
}

/**
 * The emulator's parts, wired in the reverse order of a request's flow: state, outbox, transitions,
 * the merchant API and the dashboard, routes, then the request step and its server (not listening yet).
 */
async function assemble(options: SandboxOptions) {
  const clock = new SandboxClock(options.now);
  const now = () => clock.now();
  const emit = options.onEvent ?? (() => undefined);
  const accounts = accountsOf(options);
  const byVa = new Map(accounts.map((a) => [a.va, a]));
  const { regions, opened, state } = await openStores(options, clock);
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
    state,
    accounts: byVa,
    now,
    settlement: options.settlement ?? 'immediate',
    pay: (t) => transitions.transition(t, 'pay', 'buyer'),
    due: () => transitions.runDue().catch(() => undefined),
  });
  // The dashboard shows a transaction as check transaction answers it: the merchant API's own record.
  const dashboard: DashboardContext = {
    state,
    hub,
    now: () => clock.nowMs(),
    merchantName: (t) => byVa.get(t.merchantVa)?.name ?? t.merchantVa,
    checkTransaction: (t) => merchant.record(t),
  };

  // route: the gateway's API, the payment and QR pages, the dashboard and the admin API (routes.ts).
  const requests = new RequestLog();
  dashboard.requests = requests;
  const route = createRouter({
    state,
    regions,
    accounts,
    transitions,
    merchant,
    now,
    clock,
    requests,
    dashboard: dashboardOn ? dashboard : null,
    allowedHosts: [...(options.allowedHosts ?? []), options.host ?? '127.0.0.1'],
  });
  // request: read the body (size-limited), route it, and answer whatever went wrong in one place.
  const intake = new RequestIntake({
    route,
    requests,
    clock,
    hub: dashboardOn ? hub : null,
    emit,
    limit: options.maxBodyBytes ?? 1024 * 1024,
    apiFaults: options.apiFaults ?? [],
    random: options.random ?? Math.random,
  });
  const server = createServer((req, res) => intake.handle(req, res));
  return { clock, emit, accounts, regions, opened, state, outbox, formatOf, hub, dashboardOn, transitions, merchant, requests, intake, server };
}

/**
 * Starts the emulator: spec endpoints 1–5 and check transaction with the gateway's authentication,
 * a hosted payment page, an admin API under `/_sandbox`, and a durable callback outbox.
 *
 * A request flows: request (request-intake.ts) → route (routes.ts; merchant-api.ts for the rest of
 * the API) → authenticate (authenticate.ts) → transition (transitions.ts) → store (state.ts) →
 * enqueue the callback and deliver it (outbox.ts). `assemble` sets them up in the reverse order.
 */
export async function startSandbox(options: SandboxOptions = {}): Promise<EmulatorHandle> {
  const { clock, emit, accounts, regions, opened, state, outbox, formatOf, hub, dashboardOn, transitions, merchant, requests, intake, server } =
    await assemble(options);
  let url: string;
  let port: number;
  try {
    ({ origin: url, port } = await serve(server, { port: options.port ?? 4010, host: options.host ?? '127.0.0.1', requestTimeoutMs: 30_000 }));
  } catch (err) {
    await (opened ?? state).close();
    throw err;
  }
  outbox.resume();
  const migrated = opened?.migrated;
  const reconciled = migrated ? await queueUnqueued(state, outbox, formatOf, emit) : 0;
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
      intake.dropHeld();
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
