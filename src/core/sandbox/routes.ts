import type { IncomingMessage, ServerResponse } from 'node:http';
import { crossSiteRefusal, hostRefusal, NO_FRAMING_HEADERS } from '../dashboard/html.js';
import type { SandboxAccount } from './accounts.js';
import { admin } from './admin-routes.js';
import { directPayment, regionsRoute } from './api-routes.js';
import { authenticate } from './authenticate.js';
import { diagnoseAuth } from './auth-diagnosis.js';
import { paymentPage, qrRoute } from './buyer-routes.js';
import { CLOSE_ROUTES, closeApi } from './close-api.js';
import { codRoute } from './cod-api.js';
import { codLogistics } from './cod-routes.js';
import { handleDashboard } from './dashboard.js';
import { notEmulated } from './merchant-api.js';
import { decodeBody } from './request-body.js';
import { noteRequest } from './request-log.js';
import type { RouteContext, RouteDeps } from './route-context.js';
import { serviceDeps } from './service-deps.js';
import { envelope, jsonObjectBody } from './views.js';

export type { RouteDeps } from './route-context.js';

/** The buyer's pages: the direct payment page, the hosted redirect page and the QRIS sheet. */
const BUYER_PAGE = /^\/(pay|payment|qr)\//;

/**
 * The emulator's route table, for a request whose body is read: region lookups and direct payments
 * (the gateway's API, authenticated as the gateway does: `api-routes.ts`), QRIS codes and the
 * buyer's payment page (`buyer-routes.ts`), the dashboard, the admin API under /_sandbox/
 * (`admin-routes.ts`), and the rest of the API (merchant-api.ts).
 */
export function createRouter(d: RouteDeps): (req: IncomingMessage, res: ServerResponse, body: Buffer) => Promise<void> {
  const { state, regions, accounts, transitions, merchant, now, clock, requests, dashboard } = d;
  const byVa = new Map(accounts.map((a) => [a.va, a]));
  const formatOf = (t: { merchantVa: string }) => byVa.get(t.merchantVa)?.callbackFormat ?? 'form';
  const { cod, ship, close } = serviceDeps({ state, regions, byVa, transitions, merchant, now });
  const lifecycle = { state, transitions, clock, requests, ship, formatOf };

  function authenticated(req: IncomingMessage, signed: Buffer[], res: ServerResponse): SandboxAccount | undefined {
    const result = authenticate(req, signed, byVa);
    if (typeof result !== 'string') return result;
    // Why it failed, for `sandbox logs` (the answer stays the gateway's terse one).
    noteRequest(res, { auth: diagnoseAuth(req, signed[0] ?? Buffer.alloc(0), byVa) });
    envelope(res, 401, result, null);
    return undefined;
  }
  const c: RouteContext = { ...d, byVa, lifecycle, authenticated };

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
    if (area) return regionsRoute(c, req, res, decoded.signed, area[1]!, area[2]);
    if (path === '/api/v2/payment/direct') return directPayment(c, req, res, body, decoded.signed, method);
    const qr = /^\/qr\/(?:(template)\/)?(\d+)$/.exec(path);
    if (qr) return qrRoute(c, res, Number(qr[2]), qr[1] !== undefined);
    const page = /^\/pay\/(\d+)(?:\/(pay|expire|cancel))?\/?$/.exec(path);
    if (page) return paymentPage(c, res, method, Number(page[1]), page[2] as 'pay' | 'expire' | 'cancel' | undefined);
    if (path.startsWith('/_sandbox/')) return admin(c, req, url, method, res, body);
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

  return route;
}
