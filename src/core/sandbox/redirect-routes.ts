import type { ServerResponse } from 'node:http';
import { renderChoicePage } from './redirect-page.js';
import type { RedirectSession } from './redirect-session.js';
import type { Transaction } from './state.js';
import { locationOf } from './web-url.js';

/** What the hosted page needs of the merchant API (merchant-api.ts). */
export interface HostedPageApi {
  session(sid: string): RedirectSession | undefined;
  sessionTransaction(s: RedirectSession): Transaction | undefined;
  choose(
    s: RedirectSession,
    method: string,
    channel: string,
    buyer?: Partial<RedirectSession['buyer']>,
  ): Promise<{ ok: true; txn: Transaction } | { ok: false; status: number; message: string }>;
  /** Marks a transaction paid (stored, callback queued), as the buyer on a page does. */
  pay(t: Transaction): Promise<{ ok: boolean; status?: number; message?: string }>;
  merchantName(va: string): string;
  nowMs(): number;
}

/** The hosted page of redirect payments: `/payment/SID` (choose, then pay, or cancel), no authentication. */
export async function hostedPage(api: HostedPageApi, res: ServerResponse, body: Buffer, path: string, method: string): Promise<boolean> {
  const m = /^\/payment\/([0-9A-Fa-f-]{36})(?:\/(choose|pay|cancel))?\/?$/.exec(path);
  if (!m) return false;
  const s = api.session(m[1]!.toUpperCase());
  if (!s) {
    res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('no such payment session\n');
    return true;
  }
  const action = m[2];
  if (!action) {
    const html = await renderChoicePage(s, api.sessionTransaction(s), api.merchantName(s.merchantVa), api.nowMs());
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(html) }).end(html);
    return true;
  }
  if (method !== 'POST') {
    res.writeHead(405, { allow: 'POST' }).end();
    return true;
  }
  const text = (status: number, message: string) => res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' }).end(message + '\n');
  const back = (location: string) => res.writeHead(303, { location }).end();
  if (action === 'choose') {
    const form = new URLSearchParams(body.toString('utf8'));
    const [chosenMethod, channel] = (form.get('channel') ?? '').split(':');
    const r = await api.choose(s, chosenMethod ?? '', channel ?? '', {
      name: form.get('name') ?? undefined,
      phone: form.get('phone') ?? undefined,
      email: form.get('email') ?? undefined,
    });
    if (!r.ok && r.status === 400) {
      // Shown on the page itself, above the form, with the 400 the API would answer.
      const html = await renderChoicePage(s, undefined, api.merchantName(s.merchantVa), api.nowMs(), r.message);
      res.writeHead(400, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(html) }).end(html);
    } else if (!r.ok) text(r.status, r.message);
    else back(`/payment/${s.sid}`);
    return true;
  }
  if (action === 'cancel') {
    back(locationOf(s.cancelUrl) ?? `/payment/${s.sid}`);
    return true;
  }
  const t = api.sessionTransaction(s);
  if (!t) {
    text(409, 'choose a payment method first');
    return true;
  }
  const r = await api.pay(t);
  if (!r.ok) text(r.status ?? 409, r.message ?? 'cannot pay');
  else back(locationOf(s.returnUrl) ?? `/payment/${s.sid}`);
  return true;
}
