import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseDuration } from '../duration.js';
import { isAction, parseStatus, STATUS_CHOICES, statusInfo, statusLabel } from '../statuses.js';
import { isoJakarta } from '../time.js';
import type { SandboxClock } from './clock.js';
import { advanceShipment, type ShipDeps } from './cod-routes.js';
import { callbackFieldsOf } from './outbox.js';
import type { RequestLog } from './request-log.js';
import type { SandboxState } from './state.js';
import type { Transitions } from './transitions.js';
import { postAllowed, sendJson, transactionView } from './views.js';

/** The longest single clock move (ten years). */
export const MAX_ADVANCE_MS = 3650 * 86_400_000;

/** What the lifecycle's admin routes reach: the ledger, the transitions, the clock and the request log. */
export interface LifecycleAdminDeps {
  state: SandboxState;
  transitions: Transitions;
  clock: SandboxClock;
  requests: RequestLog;
  ship: ShipDeps;
  formatOf(t: { merchantVa: string }): 'form' | 'json';
}

/** The clock as the admin API shows it. */
export function clockView(clock: SandboxClock): Record<string, unknown> {
  return { now: isoJakarta(clock.now()), epochMs: clock.nowMs(), offsetMs: clock.offsetMs };
}

/** A JSON object body of an admin POST ({} when empty); undefined (answered 400) when it is not one. */
function adminBody(body: Buffer, res: ServerResponse): Record<string, unknown> | undefined {
  if (body.length === 0) return {};
  try {
    const v = JSON.parse(body.toString('utf8')) as unknown;
    if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    /* answered below */
  }
  sendJson(res, 400, { ok: false, error: 'the body must be a JSON object' });
  return undefined;
}

/**
 * The lifecycle's admin routes under /_sandbox/: the request log, the clock (GET, advance, set) and
 * one transaction (GET, its attempts, its callback, and the actions of statuses.ts, resend, ship and
 * deliver). Returns false for any other path.
 */
export async function lifecycleAdmin(
  d: LifecycleAdminDeps,
  req: IncomingMessage,
  url: URL,
  method: string,
  res: ServerResponse,
  body: Buffer,
): Promise<boolean> {
  const path = url.pathname;
  if (path === '/_sandbox/requests' && method === 'GET') {
    const after = Number(url.searchParams.get('after') ?? 0);
    sendJson(res, 200, { ok: true, last: d.requests.lastSeq, requests: d.requests.since(Number.isSafeInteger(after) ? after : 0) });
    return true;
  }
  const clockRoute = /^\/_sandbox\/clock(?:\/(advance|set))?$/.exec(path);
  if (clockRoute) {
    await clockAdmin(d.clock, req, method, res, body, clockRoute[1] as 'advance' | 'set' | undefined);
    return true;
  }
  const m = /^\/_sandbox\/transactions\/([^/]+)(?:\/([a-z]+))?$/.exec(path);
  if (!m) return false;
  let id: string;
  try {
    id = decodeURIComponent(m[1]!);
  } catch {
    sendJson(res, 400, { ok: false, error: 'malformed percent-encoding in the transaction id' });
    return true;
  }
  if (!m[2] || (method === 'GET' && (m[2] === 'attempts' || m[2] === 'callback')))
    transactionRead(d, res, id, m[2] as 'attempts' | 'callback' | undefined, url);
  else await transactionAction(d, req, method, res, body, url, id, m[2]);
  return true;
}

/** The clock: GET shows it; POST advance ({by} or {ms}) or set ({to}) moves it, running what became due. */
async function clockAdmin(
  clock: SandboxClock,
  req: IncomingMessage,
  method: string,
  res: ServerResponse,
  body: Buffer,
  op: 'advance' | 'set' | undefined,
): Promise<void> {
  if (!op) {
    if (method !== 'GET') {
      res.setHeader('allow', 'GET');
      sendJson(res, 405, { ok: false, error: 'use GET' });
    } else sendJson(res, 200, { ok: true, clock: clockView(clock) });
    return;
  }
  if (!postAllowed(req, method, res)) return;
  const json = adminBody(body, res);
  if (!json) return;
  let r;
  if (op === 'advance') {
    let ms: number;
    try {
      ms = typeof json.ms === 'number' ? json.ms : parseDuration(String(json.by ?? ''), { maxMs: MAX_ADVANCE_MS });
    } catch (err) {
      sendJson(res, 400, { ok: false, error: `invalid duration: ${(err as Error).message}` });
      return;
    }
    r = await clock.advance(ms);
  } else {
    const to = typeof json.to === 'string' ? new Date(json.to) : new Date(NaN);
    if (Number.isNaN(to.getTime())) {
      sendJson(res, 400, { ok: false, error: 'invalid time: give "to" as ISO 8601, e.g. 2026-12-01T10:00+07:00' });
      return;
    }
    r = await clock.set(to);
  }
  if (!r.ok) sendJson(res, r.status, { ok: false, error: r.message, clock: clockView(clock) });
  else sendJson(res, 200, { ok: true, movedMs: r.movedMs, clock: clockView(clock) });
}

/** GET of one transaction, its callback attempts (scenario expectations) or its callback as the emulator would send it (`trigger --trx`). */
function transactionRead(d: LifecycleAdminDeps, res: ServerResponse, id: string, what: 'attempts' | 'callback' | undefined, url: URL): void {
  const { state } = d;
  const t = state.find(id);
  if (!t) {
    sendJson(res, 404, { ok: false, error: `no transaction with id or payment number "${id}"` });
    return;
  }
  if (what === 'attempts') {
    const attempts = state.deliveriesOf(t.id).flatMap((dl) =>
      state.attemptsOf(dl.id).map((a) => ({
        delivery: dl.id,
        status: dl.status,
        attempt: a.attempt,
        state: a.state,
        result: a.result,
        url: a.detail?.url ?? dl.url,
        httpStatus: a.detail?.httpStatus ?? null,
        contentType: a.detail?.headers['Content-Type'] ?? null,
        body: a.detail?.body ?? null,
        duplicate: a.detail?.duplicate === true,
      })),
    );
    sendJson(res, 200, { ok: true, attempts });
  } else if (what === 'callback') {
    const asked = url.searchParams.get('status');
    const s = asked ? parseStatus(asked) : statusInfo(t.status);
    if (!s) sendJson(res, 400, { ok: false, error: `invalid status "${asked}" (${STATUS_CHOICES})` });
    else sendJson(res, 200, { ok: true, va: t.merchantVa, format: d.formatOf(t), fields: callbackFieldsOf(t, s.key), transaction: transactionView(t, state) });
  } else sendJson(res, 200, { ok: true, transaction: transactionView(t, state) });
}

/** POST of an action on one transaction: those of statuses.ts, resend (optionally `to` another URL), ship and deliver (COD). */
async function transactionAction(
  d: LifecycleAdminDeps,
  req: IncomingMessage,
  method: string,
  res: ServerResponse,
  body: Buffer,
  url: URL,
  id: string,
  action: string,
): Promise<void> {
  const { state, transitions } = d;
  if (action !== 'resend' && action !== 'ship' && action !== 'deliver' && !isAction(action)) {
    sendJson(res, 404, { ok: false, error: `unknown action "${action}": pay, expire, cancel, fail, error, refund, settle, release, resend, ship or deliver` });
    return;
  }
  if (!postAllowed(req, method, res)) return;
  const view = (t: Parameters<typeof transactionView>[0] | undefined) => (t ? transactionView(t, state) : null);
  if (action === 'ship' || action === 'deliver') {
    const r = await advanceShipment(d.ship, id, action === 'ship' ? 'next' : 'delivered');
    if (!r.ok) sendJson(res, r.status, { ok: false, error: r.message, transaction: view(r.txn) });
    else
      sendJson(res, 200, {
        ok: true,
        changed: r.changed,
        stage: r.stage,
        message: `${r.changed ? '' : 'already '}${r.stage.replace('_', ' ')}: trx ${r.txn.id}${r.stage === 'delivered' && r.changed ? ' (paid); callback queued' : ''}`,
        transaction: view(r.txn),
      });
    return;
  }
  if (action === 'resend') {
    const json = adminBody(body, res);
    if (!json) return;
    const to = typeof json.to === 'string' ? json.to : (url.searchParams.get('to') ?? undefined);
    const r = await transitions.resend(id, to);
    if (!r.ok) sendJson(res, r.status, { ok: false, error: r.message, transaction: view(r.txn) });
    else
      sendJson(res, 200, {
        ok: true,
        delivery: r.deliveryId,
        queued: r.queued,
        message: `callback ${r.deliveryId} of trx ${r.txn.id} (${statusLabel(statusInfo(r.txn.status))}) ${r.queued ? 'queued' : 'sent'} now${to ? ` to ${to}` : ''}`,
        transaction: view(r.txn),
      });
    return;
  }
  const r = await transitions.act(id, action as Parameters<Transitions['act']>[1], 'admin');
  if (!r.ok) sendJson(res, r.status, { ok: false, error: r.message, transaction: view(r.txn) });
  else
    sendJson(res, 200, {
      ok: true,
      changed: r.changed,
      message: `${r.changed ? '' : 'already '}${statusLabel(statusInfo(r.txn.status))}: trx ${r.txn.id}${r.changed ? '; callback queued' : ''}`,
      transaction: view(r.txn),
    });
}
