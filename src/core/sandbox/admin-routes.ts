import type { IncomingMessage, ServerResponse } from 'node:http';
import { EMULATOR_DEFAULT_API_KEY } from '../config/resolve.js';
import { ledgerAdmin } from './admin-ledger.js';
import { clockView, lifecycleAdmin } from './admin-lifecycle.js';
import { listPage } from './bulk.js';
import { channelAsset } from './channel-assets.js';
import type { RouteContext } from './route-context.js';
import { sendJson, transactionView } from './views.js';

/** The admin API under /_sandbox/: health, clock, transactions, and their actions (POST, same-site only). */
export async function admin(c: RouteContext, req: IncomingMessage, url: URL, method: string, res: ServerResponse, body: Buffer): Promise<void> {
  const { state, accounts, regions, clock, merchant, now } = c;
  const path = url.pathname;
  const asset = channelAsset(path, method);
  if (asset) {
    res.writeHead(asset.status, {
      'content-type': asset.type,
      'content-length': Buffer.byteLength(asset.body),
      'x-content-type-options': 'nosniff',
      'cache-control': 'public, max-age=3600',
      'content-security-policy': "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; frame-ancestors 'none'",
    });
    res.end(method === 'HEAD' ? undefined : asset.body);
    return;
  }
  if (path === '/_sandbox/health') {
    // defaultKey: whether the first merchant uses the documented (public) key, for `paycli sandbox env`; a key of its own is never told.
    sendJson(res, 200, {
      ok: true,
      transactions: state.count(),
      accounts: accounts.map((a) => a.va),
      defaultKey: accounts[0]?.apiKey === EMULATOR_DEFAULT_API_KEY,
      regions: regions.counts,
      clock: clockView(clock),
    });
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
  if (await lifecycleAdmin(c.lifecycle, req, url, method, res, body)) return;
  sendJson(res, 404, { ok: false, error: 'unknown admin route' });
}
