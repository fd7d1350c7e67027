import type { ServerResponse } from 'node:http';
import { renderPaymentPage } from './page.js';
import type { RouteContext } from './route-context.js';
import { StoreError } from './state.js';

/** A QRIS payment's code: the PNG, or the printable template page. */
export async function qrRoute(c: RouteContext, res: ServerResponse, id: number, template: boolean): Promise<void> {
  const t = c.state.get(id);
  if (!t?.qrString) {
    res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('no such QRIS payment\n');
    return;
  }
  const { qrPng, qrTemplate } = await import('./page.js');
  if (template) {
    const html = qrTemplate(t, c.byVa.get(t.merchantVa)?.name ?? t.merchantVa);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(html) }).end(html);
  } else {
    const png = await qrPng(t.qrString);
    res.writeHead(200, { 'content-type': 'image/png', 'content-length': png.length }).end(png);
  }
}

/** The buyer's payment page, and its pay / expire / cancel buttons (a transition, then back to the page). */
export async function paymentPage(
  c: RouteContext,
  res: ServerResponse,
  method: string,
  id: number,
  action: 'pay' | 'expire' | 'cancel' | undefined,
): Promise<void> {
  const t = c.state.get(id);
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
      r = await c.transitions.transition(t, action, 'buyer');
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
  await c.transitions.runDue();
  const html = await renderPaymentPage(c.state.get(t.id) ?? t, c.byVa.get(t.merchantVa)?.name ?? t.merchantVa, c.now().getTime());
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(html) }).end(html);
}
