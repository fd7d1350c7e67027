import { EMULATOR_DEFAULT_API_KEY } from '../config/resolve.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { crossSiteRefusal, hostRefusal, NO_FRAMING_HEADERS } from '../dashboard/html.js';
import { actingAccount, type SandboxAccount } from './accounts.js';
import { authenticate } from './authenticate.js';
import { diagnoseAuth } from './auth-diagnosis.js';
import { noteRequest, type RequestLog } from './request-log.js';
import { clockView, lifecycleAdmin } from './admin-lifecycle.js';
import type { SandboxClock } from './clock.js';
import { decodeBody } from './request-body.js';
import { codLogistics } from './cod-routes.js';
import { serviceDeps } from './service-deps.js';
import { codRoute } from './cod-api.js';
import { CLOSE_ROUTES, closeApi } from './close-api.js';

import { channelAsset } from './channel-assets.js';
import { handleDashboard, type DashboardContext } from './dashboard.js';
import { notEmulated, type MerchantApi } from './merchant-api.js';
import { renderPaymentPage } from './page.js';
import { buildTransaction } from './payments.js';
import { lookupRegions, type RegionIndex } from './regions.js';
import { StoreError, type SandboxState } from './state.js';
import { listPage } from './bulk.js';
import { ledgerAdmin } from './admin-ledger.js';
import type { Transitions } from './transitions.js';
import { readPaymentRequest } from './validate.js';
import { envelope, jsonObjectBody, paymentData, sendJson, transactionView } from './views.js';

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
  const { cod, ship, close } = serviceDeps({ state, regions, byVa, transitions, merchant, now });
  const lifecycle = { state, transitions, clock, requests, ship, formatOf };

  /** Authenticates like the gateway (authenticate.ts), before any route logic: the account, or a 401 answered. */
  function authenticated(req: IncomingMessage, signed: Buffer[], res: ServerResponse): SandboxAccount | undefined {
    const result = authenticate(req, signed, byVa);
    if (typeof result !== 'string') return result;
    // Why it failed, for `sandbox logs` (the answer stays the gateway's terse one).
    noteRequest(res, { auth: diagnoseAuth(req, signed[0] ?? Buffer.alloc(0), byVa) });
    envelope(res, 401, result, null);
    return undefined;
  }

  /** Routes a request whose body is read: every route authenticates itself where the gateway does. */
  async function route(req: IncomingMessage, res: ServerResponse, raw: Buffer): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://sandbox');
    const path = url.pathname;
    const method = (req.method ?? 'GET').toUpperCase();
    // JSON, form and multipart bodies alike reach the routes as JSON; the signature covers what the
    // body's form says (request-body.ts).
    const decoded = path.startsWith('/api/') ? await decodeBody(req, raw, url) : { json: raw, signed: [raw], form: false };
    if (!decoded) {
      envelope(res, 400, 'error - invalid request', null, { Error: { body: ['body multipart/form-data tidak dapat dibaca.'] } });
      return;
    }
    const body = decoded.json;
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
    if (area) return regionsRoute(req, res, decoded.signed, area[1]!, area[2]);
    if (path === '/api/v2/payment/direct') return directPayment(req, res, body, decoded.signed, method);
    const qr = /^\/qr\/(?:(template)\/)?(\d+)$/.exec(path);
    if (qr) return qrRoute(res, Number(qr[2]), qr[1] !== undefined);
    const page = /^\/pay\/(\d+)(?:\/(pay|expire|cancel))?\/?$/.exec(path);
    if (page) return paymentPage(res, method, Number(page[1]), page[2] as 'pay' | 'expire' | 'cancel' | undefined);
    if (path.startsWith('/_sandbox/')) return admin(req, url, method, res, body);
    if (path.startsWith('/api/v2/') || path.startsWith('/api/areas/')) {
      // The gateway's middleware authenticates these prefixes before routing.
      const account = authenticated(req, decoded.signed, res);
      if (!account) return;
      if (codRoute(method, path)) {
        // COD logistics (cod-routes.ts): every path of the gateway's three sources.
        const params = jsonObjectBody(body, res, '{}');
        if (params) await codLogistics(cod, res, method, path, params, account);
        return;
      }
      if (CLOSE_ROUTES.includes(path.replace(/\/+$/, ''))) {
        const params = jsonObjectBody(body, res, '{}');
        if (params) await closeApi(close, res, path, method, params, account);
        return;
      }
      if (await merchant.api(req, res, body, path, method, account)) return;
    } else if (await merchant.page(req, res, body, path, method)) return;
    envelope(res, 404, notEmulated(method, path), null);
  }

  /** Region lookups (province → city → district → village), from the bundled data. */
  function regionsRoute(req: IncomingMessage, res: ServerResponse, signed: Buffer[], level: string, code: string | undefined): void {
    if (!authenticated(req, signed, res)) return;
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

  /** A direct payment: authenticate → validate → create → store → answer (the callback comes on its transition). */
  async function directPayment(req: IncomingMessage, res: ServerResponse, body: Buffer, signed: Buffer[], method: string): Promise<void> {
    const account = authenticated(req, signed, res);
    if (!account) return;
    if (method !== 'POST') {
      envelope(res, 405, 'method not allowed', null);
      return;
    }
    const json = jsonObjectBody(body, res, 'null');
    if (!json) return;
    // A payment for one of the caller's child accounts (`account`), or the caller's own.
    const acting = actingAccount(account, json.account, byVa);
    if (!acting) {
      envelope(res, 400, 'error - invalid request', null, { Error: { account: ['Invalid va'] } });
      return;
    }
    const read = readPaymentRequest(json);
    if (!read.ok) {
      envelope(res, 400, 'error - invalid request', null, { Error: read.errors });
      return;
    }
    // The id comes from the ledger's sequence, in the transaction that stores the payment; the answer goes out once it is committed.
    const t = await state.addTransaction((id) => buildTransaction(read.request, acting, id, now().getTime()));
    envelope(res, 200, 'Success', paymentData(t, `http://${req.headers.host ?? 'sandbox'}`));
  }

  /** A QRIS payment's code: the PNG, or the printable template page. */
  async function qrRoute(res: ServerResponse, id: number, template: boolean): Promise<void> {
    const t = state.get(id);
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

  /** The buyer's payment page, and its pay / expire / cancel buttons (a transition, then back to the page). */
  async function paymentPage(res: ServerResponse, method: string, id: number, action: 'pay' | 'expire' | 'cancel' | undefined): Promise<void> {
    const t = state.get(id);
    if (!t) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('no such payment\n');
      return;
    }
    if (action) {
      if (method !== 'POST') {
        res.writeHead(405, { allow: 'POST' }).end();
        return;
      }
      let r;
      try {
        r = await transitions.transition(t, action, 'buyer');
      } catch (err) {
        if (!(err instanceof StoreError)) throw err;
        r = { ok: false as const, status: 503, message: `${err.message}; nothing changed, try again` };
      }
      if (!r.ok) {
        res.writeHead(r.status, { 'content-type': 'text/plain; charset=utf-8' }).end(r.message + '\n');
        return;
      }
      res.writeHead(303, { location: `/pay/${t.id}` }).end();
      return;
    }
    await transitions.runDue();
    const html = await renderPaymentPage(state.get(t.id) ?? t, byVa.get(t.merchantVa)?.name ?? t.merchantVa, now().getTime());
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(html) }).end(html);
  }

  /** The admin API under /_sandbox/: health, clock, transactions, and their actions (POST, same-site only). */
  async function admin(req: IncomingMessage, url: URL, method: string, res: ServerResponse, body: Buffer): Promise<void> {
    const path = url.pathname;
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
      sendJson(res, 200, { ok: true, transactions: state.count(), accounts: accounts.map((a) => a.va), defaultKey: accounts[0]?.apiKey === EMULATOR_DEFAULT_API_KEY, regions: regions.counts, clock: clockView(clock) });
      return;
    }
    const checks = /^\/_sandbox\/checks\/(\d{1,15})$/.exec(path);
    if (checks) {
      sendJson(res, 200, { trx: Number(checks[1]), checks: merchant.checksByTrx.get(Number(checks[1])) ?? 0 });
      return;
    }
    if (path === '/_sandbox/transactions' && method === 'GET') {
      const page = listPage(state, url.searchParams);
      if (!page.ok) sendJson(res, 400, { ok: false, error: page.error });
      else {
        const callbacks = state.deliveriesOfMany(page.rows.map((t) => t.id));
        sendJson(res, 200, { transactions: page.rows.map((t) => transactionView(t, state, callbacks.get(t.id) ?? [])), next: page.next, total: page.total });
      }
      return;
    }
    if (await ledgerAdmin({ state, va: accounts[0]!.va, merchantName: accounts[0]!.name, now, clock }, req, url, method, res)) return;
    if (await lifecycleAdmin(lifecycle, req, url, method, res, body)) return;
    sendJson(res, 404, { ok: false, error: 'unknown admin route' });
  }

  return route;
}
