import { EMULATOR_DEFAULT_API_KEY } from '../config/resolve.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { actionRefusal, crossSiteRefusal, hostRefusal, NO_FRAMING_HEADERS } from '../dashboard/html.js';
import type { SandboxAccount } from './accounts.js';
import { authenticate } from './authenticate.js';
import { diagnoseAuth } from './auth-diagnosis.js';
import { noteRequest, type RequestLog } from './request-log.js';
import { channelAsset } from './channel-assets.js';
import { handleDashboard, type DashboardContext } from './dashboard.js';
import { notEmulated, type MerchantApi } from './merchant-api.js';
import { renderPaymentPage } from './page.js';
import { buildTransaction } from './payments.js';
import { lookupRegions, type RegionIndex } from './regions.js';
import type { SandboxState } from './state.js';
import type { Transitions } from './transitions.js';
import type { SandboxClock } from './clock.js';
import { parseDuration } from '../duration.js';
import { isAction, parseStatus, STATUS_CHOICES, statusInfo, statusLabel } from '../statuses.js';
import { callbackFieldsOf } from './outbox.js';
import { isoJakarta } from '../time.js';
import { readPaymentRequest } from './validate.js';
import { envelope, jsonObjectBody, paymentData, sendJson, transactionView } from './views.js';

/** The longest single clock move (ten years). */
export const MAX_ADVANCE_MS = 3650 * 86_400_000;

export interface RouteDeps {
  state: SandboxState;
  regions: RegionIndex;
  accounts: SandboxAccount[];
  transitions: Transitions;
  merchant: MerchantApi;
  now(): Date;
  clock: SandboxClock;
  requests: RequestLog;
  /** The dashboard's pages, or null when it is off. */
  dashboard: DashboardContext | null;
  /** Host names answered besides IP literals, localhost and `*.internal` (hostRefusal). */
  allowedHosts?: string[];
}

/** The buyer's pages: the direct payment page, the hosted redirect page and the QRIS sheet. */
const BUYER_PAGE = /^\/(pay|payment|qr)\//;

/**
 * The emulator's routes, for a request whose body is read: region lookups and direct payments (the
 * gateway's API, authenticated as the gateway does), QRIS codes, the buyer's payment page, the
 * dashboard, the admin API under /_sandbox/, and the rest of the API (merchant-api.ts).
 */
export function createRouter(d: RouteDeps): (req: IncomingMessage, res: ServerResponse, body: Buffer) => Promise<void> {
  const { state, regions, accounts, transitions, merchant, now, clock, requests, dashboard } = d;
  const byVa = new Map(accounts.map((a) => [a.va, a]));
  const formatOf = (t: { merchantVa: string }) => byVa.get(t.merchantVa)?.callbackFormat ?? 'form';

  /** Authenticates like the gateway (authenticate.ts), before any route logic: the account, or a 401 answered. */
  function authenticated(req: IncomingMessage, body: Buffer, res: ServerResponse): SandboxAccount | undefined {
    const result = authenticate(req, body, byVa);
    if (typeof result !== 'string') return result;
    noteRequest(res, { auth: diagnoseAuth(req, body, byVa) });
    envelope(res, 401, result, null);
    return undefined;
  }

  /** Routes a request whose body is read: every route authenticates itself where the gateway does. */
  async function route(req: IncomingMessage, res: ServerResponse, body: Buffer): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://sandbox');
    const path = url.pathname;
    const method = (req.method ?? 'GET').toUpperCase();
    // One rule for every route: a DNS-rebinding page must not read the admin API, the pages or the API.
    const foreign = hostRefusal(req.headers.host, d.allowedHosts);
    if (foreign) {
      if (path.startsWith('/api/')) envelope(res, 403, foreign, null);
      else res.writeHead(403, { 'content-type': 'text/plain; charset=utf-8' }).end(`${foreign}\n`);
      return;
    }
    if (BUYER_PAGE.test(path)) {
      // The buyer's pages are never framed by another site, and their buttons (pay, expire, choose,
      // cancel) are refused to another site's forms and scripts: the admin API's rules.
      for (const [k, v] of Object.entries(NO_FRAMING_HEADERS)) res.setHeader(k, v);
      const cross = method === 'POST' ? crossSiteRefusal(req) : undefined;
      if (cross) {
        res.writeHead(403, { 'content-type': 'text/plain; charset=utf-8' }).end(`${cross}\n`);
        return;
      }
    }
    if (dashboard && handleDashboard(dashboard, req, res, url, method)) return;
    const area = /^\/api\/areas\/(province|city|district|village)(?:\/([^/]*))?\/?$/.exec(path);
    if (area) return regionsRoute(req, res, body, area[1]!, area[2]);
    if (path === '/api/v2/payment/direct') return directPayment(req, res, body, method);
    const qr = /^\/qr\/(?:(template)\/)?(\d+)$/.exec(path);
    if (qr) return qrRoute(res, Number(qr[2]), qr[1] !== undefined);
    const page = /^\/pay\/(\d+)(?:\/(pay|expire|cancel))?\/?$/.exec(path);
    if (page) return paymentPage(res, method, Number(page[1]), page[2] as 'pay' | 'expire' | 'cancel' | undefined);
    if (path.startsWith('/_sandbox/')) return admin(req, path, method, res, body, url);
    if (path.startsWith('/api/v2/') || path.startsWith('/api/areas/')) {
      // The gateway's middleware authenticates these prefixes before routing.
      const account = authenticated(req, body, res);
      if (!account || (await merchant.api(req, res, body, path, method, account))) return;
    } else if (await merchant.page(req, res, body, path, method)) return;
    envelope(res, 404, notEmulated(method, path), null);
  }

  /** Region lookups (province → city → district → village), from the bundled data. */
  function regionsRoute(req: IncomingMessage, res: ServerResponse, body: Buffer, level: string, code: string | undefined): void {
    if (!authenticated(req, body, res)) return;
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
    envelope(res, 200, 'Success', lookupRegions(regions, level, decoded));
  }

  /** A direct payment: authenticate → validate → create → journal → answer (the callback comes on its transition). */
  async function directPayment(req: IncomingMessage, res: ServerResponse, body: Buffer, method: string): Promise<void> {
    const account = authenticated(req, body, res);
    if (!account) return;
    if (method !== 'POST') {
      envelope(res, 405, 'method not allowed', null);
      return;
    }
    const json = jsonObjectBody(body, res, 'null');
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
  }

  /** A QRIS payment's code: the PNG, or the printable template page. */
  async function qrRoute(res: ServerResponse, id: number, template: boolean): Promise<void> {
    const t = state.txns.get(id);
    if (!t?.qrString) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('no such QRIS payment\n');
      return;
    }
    const { qrPng, qrTemplate } = await import('./page.js');
    if (template) {
      const html = qrTemplate(t, byVa.get(t.merchantVa)?.name ?? t.merchantVa);
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(html) }).end(html);
    } else {
      const png = await qrPng(t.qrString);
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': png.length }).end(png);
    }
  }

  /** The buyer's payment page, and its pay / expire buttons (a transition, then back to the page). */
  async function paymentPage(res: ServerResponse, method: string, id: number, action: 'pay' | 'expire' | 'cancel' | undefined): Promise<void> {
    const t = state.txns.get(id);
    if (!t) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('no such payment\n');
      return;
    }
    if (action) {
      if (method !== 'POST') {
        res.writeHead(405, { allow: 'POST' }).end();
        return;
      }
      const r = await transitions.transition(t, action, 'buyer');
      if (!r.ok) {
        res.writeHead(r.status, { 'content-type': 'text/plain; charset=utf-8' }).end(r.message + '\n');
        return;
      }
      res.writeHead(303, { location: `/pay/${t.id}` }).end();
      return;
    }
    await transitions.runDue();
    const html = await renderPaymentPage(t, byVa.get(t.merchantVa)?.name ?? t.merchantVa, now().getTime());
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(html) }).end(html);
  }

  /** The clock as the admin API shows it. */
  function clockView(): Record<string, unknown> {
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

  /** The admin API under /_sandbox/: health, clock, transactions, and their actions (POST, same-site only). */
  async function admin(req: IncomingMessage, path: string, method: string, res: ServerResponse, body: Buffer, url: URL): Promise<void> {
    const asset = channelAsset(path, method);
    if (asset) {
      res.writeHead(asset.status, {
        'content-type': asset.type, 'content-length': Buffer.byteLength(asset.body), 'x-content-type-options': 'nosniff', 'cache-control': 'public, max-age=3600',
        'content-security-policy': "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; frame-ancestors 'none'",
      });
      res.end(method === 'HEAD' ? undefined : asset.body);
      return;
    }
    if (path === '/_sandbox/health') {
      // defaultKey: whether the first merchant uses the documented (public) key, for `paycli sandbox env`; a key of its own is never told.
      sendJson(res, 200, { ok: true, transactions: state.txns.size, accounts: accounts.map((a) => a.va), defaultKey: accounts[0]?.apiKey === EMULATOR_DEFAULT_API_KEY, regions: regions.counts, clock: clockView() });
      return;
    }
    const checks = /^\/_sandbox\/checks\/(\d{1,15})$/.exec(path);
    if (checks) {
      sendJson(res, 200, { trx: Number(checks[1]), checks: merchant.checksByTrx.get(Number(checks[1])) ?? 0 });
      return;
    }
    if (path === '/_sandbox/transactions' && method === 'GET') {
      sendJson(res, 200, { transactions: [...state.txns.values()].map((t) => transactionView(t, state)) });
      return;
    }
    if (path === '/_sandbox/requests' && method === 'GET') {
      const after = Number(url.searchParams.get('after') ?? 0);
      sendJson(res, 200, { ok: true, last: requests.lastSeq, requests: requests.since(Number.isSafeInteger(after) ? after : 0) });
      return;
    }
    const clockRoute = /^\/_sandbox\/clock(?:\/(advance|set))?$/.exec(path);
    if (clockRoute) {
      if (!clockRoute[1]) {
        if (method !== 'GET') {
          res.setHeader('allow', 'GET');
          sendJson(res, 405, { ok: false, error: 'use GET' });
        } else sendJson(res, 200, { ok: true, clock: clockView() });
        return;
      }
      if (!postAllowed(req, method, res)) return;
      const json = adminBody(body, res);
      if (!json) return;
      let r;
      if (clockRoute[1] === 'advance') {
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
      if (!r.ok) sendJson(res, r.status, { ok: false, error: r.message, clock: clockView() });
      else sendJson(res, 200, { ok: true, movedMs: r.movedMs, clock: clockView() });
      return;
    }
    const m = /^\/_sandbox\/transactions\/([^/]+)(?:\/([a-z]+))?$/.exec(path);
    if (m) {
      let id: string;
      try {
        id = decodeURIComponent(m[1]!);
      } catch {
        sendJson(res, 400, { ok: false, error: 'malformed percent-encoding in the transaction id' });
        return;
      }
      const action = m[2];
      if (action === 'attempts' && method === 'GET') {
        // Every callback attempt of this transaction, with what was sent and answered (scenario expectations).
        const t = state.find(id);
        if (!t) {
          sendJson(res, 404, { ok: false, error: `no transaction with id or payment number "${id}"` });
          return;
        }
        const attempts = state.deliveriesOf(t.id).flatMap((d) =>
          (state.attempts.get(d.id) ?? []).map((a) => ({ delivery: d.id, status: d.status, attempt: a.attempt, state: a.state, result: a.result, url: a.detail?.url ?? d.url, httpStatus: a.detail?.httpStatus ?? null, contentType: a.detail?.headers['Content-Type'] ?? null, body: a.detail?.body ?? null, duplicate: a.detail?.duplicate === true })),
        );
        sendJson(res, 200, { ok: true, attempts });
        return;
      }
      if (action === 'callback' && method === 'GET') {
        // The callback of this transaction as the emulator would send it (for `paycli trigger --trx`).
        const t = state.find(id);
        if (!t) {
          sendJson(res, 404, { ok: false, error: `no transaction with id or payment number "${id}"` });
          return;
        }
        const asked = url.searchParams.get('status');
        const s = asked ? parseStatus(asked) : statusInfo(t.status);
        if (!s) {
          sendJson(res, 400, { ok: false, error: `invalid status "${asked}" (${STATUS_CHOICES})` });
          return;
        }
        sendJson(res, 200, { ok: true, va: t.merchantVa, format: formatOf(t), fields: callbackFieldsOf(t, s.key), transaction: transactionView(t, state) });
        return;
      }
      if (!action) {
        const t = state.find(id);
        if (!t) sendJson(res, 404, { ok: false, error: `no transaction with id or payment number "${id}"` });
        else sendJson(res, 200, { ok: true, transaction: transactionView(t, state) });
        return;
      }
      if (action !== 'resend' && !isAction(action)) {
        sendJson(res, 404, { ok: false, error: `unknown action "${action}": pay, expire, cancel, fail, error, refund, settle, release or resend` });
        return;
      }
      if (!postAllowed(req, method, res)) return;
      if (action === 'resend') {
        const json = adminBody(body, res);
        if (!json) return;
        const to = typeof json.to === 'string' ? json.to : (url.searchParams.get('to') ?? undefined);
        const r = await transitions.resend(id, to);
        if (!r.ok) sendJson(res, r.status, { ok: false, error: r.message, transaction: r.txn ? transactionView(r.txn, state) : null });
        else sendJson(res, 200, { ok: true, delivery: r.deliveryId, queued: r.queued, message: `callback ${r.deliveryId} of trx ${r.txn.id} (${statusLabel(statusInfo(r.txn.status))}) ${r.queued ? 'queued' : 'sent'} now${to ? ` to ${to}` : ''}`, transaction: transactionView(r.txn, state) });
        return;
      }
      const r = await transitions.act(id, action, 'admin');
      if (!r.ok) sendJson(res, r.status, { ok: false, error: r.message, transaction: r.txn ? transactionView(r.txn, state) : null });
      else sendJson(res, 200, { ok: true, changed: r.changed, message: `${r.changed ? '' : 'already '}${statusLabel(statusInfo(r.txn.status))}: trx ${r.txn.id}${r.changed ? '; callback queued' : ''}`, transaction: transactionView(r.txn, state) });
      return;
    }
    sendJson(res, 404, { ok: false, error: 'unknown admin route' });
  }

  /** An admin change: POST only, and never from a page of another site (a browser must not act here for it). */
  function postAllowed(req: IncomingMessage, method: string, res: ServerResponse): boolean {
    if (method !== 'POST') {
      res.setHeader('allow', 'POST');
      sendJson(res, 405, { ok: false, error: 'use POST' });
      return false;
    }
    const refused = actionRefusal(req);
    if (refused) {
      sendJson(res, 403, { ok: false, error: refused });
      return false;
    }
    return true;
  }

  return route;
}
