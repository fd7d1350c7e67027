import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseCallbackBody } from '../callback/parse.js';
import { canonicalizeCallback } from '../signing/callback-canonical.js';
import { formatJakarta } from '../time.js';
import { badge, esc, layout, pageRefusal, rupiah, sendHtml, sendText } from '../dashboard/html.js';
import { DASHBOARD_EVENTS, type DashboardContext, isDashboardPath, LIST_LIMIT, REQUESTS_PAGE, TRX_PAGE } from './dashboard-shared.js';
import { renderRequests } from './dashboard-requests.js';

export { DASHBOARD_EVENTS, type DashboardContext, isDashboardPath, LIST_LIMIT, REQUESTS_PAGE } from './dashboard-shared.js';
import type { AttemptInfo, Delivery, Transaction } from './state.js';
import { totalOf } from './views.js';
import { nextStep, trackingOf } from './cod-clock.js';

import { ACTIONS, ALLOWED_FROM, STATUSES as STATUS_TABLE, statusLabel } from '../statuses.js';

/** One vocabulary (statuses.ts): the gateway's word with its gloss. */
const STATUS_TEXT: Record<string, string> = Object.fromEntries(STATUS_TABLE.map((s) => [s.key, statusLabel(s)]));
const STATUSES = STATUS_TABLE.map((s) => s.key);
const ACTION_LABEL: Record<string, [string, string]> = {
  pay: ['Pay', 'primary'],
  expire: ['Expire', 'danger'],
  cancel: ['Cancel', 'danger'],
  fail: ['Fail', 'danger'],
  error: ['Error', 'danger'],
  refund: ['Refund', 'danger'],
  settle: ['Settle now', 'primary'],
  release: ['Release escrow', 'primary'],
};

function wib(ms: number): string {
  return `${formatJakarta(new Date(ms))} WIB`;
}

function clock(ms: number): string {
  return formatJakarta(new Date(ms)).slice(11);
}

/** The list of transactions, newest first, filtered by status and method (`?status=&method=`), a page at a time (`&before=ID`). */
export function renderList(ctx: DashboardContext, query: URLSearchParams): string {
  const status = query.get('status') ?? '';
  const method = query.get('method') ?? '';
  const before = /^\d{1,15}$/.test(query.get('before') ?? '') ? Number(query.get('before')) : undefined;
  // Counts from the store's running totals, the rows one page of an index: no walk of the history.
  const all = ctx.state.count();
  const methods = ctx.state.methods();
  const filter = { ...(status ? { status } : {}), ...(method ? { via: method } : {}) };
  const matching = status || method ? ctx.state.count(filter) : all;
  const page = ctx.state.page(filter, { by: 'id', desc: true }, LIST_LIMIT, before === undefined ? {} : { cursor: { key: before, id: before } });
  const shown = page.rows;
  const callbacks = ctx.state.deliveriesOfMany(shown.map((t) => t.id));
  const older = page.next ? `/?${new URLSearchParams({ ...(status ? { status } : {}), ...(method ? { method } : {}), before: String(page.next.id) })}` : null;
  const option = (value: string, current: string, text: string) => `<option value="${esc(value)}"${value === current ? ' selected' : ''}>${esc(text)}</option>`;
  const head = `<h1>Transactions</h1>
<p class="muted">Clock <span class="mono" id="clock">${esc(wib(ctx.now()))}</span> · <a href="${REQUESTS_PAGE}" id="requests-link">Requests</a></p>
<form class="filters" method="get" action="/" id="filters">
<label>Status<select name="status" id="filter-status" onchange="this.form.submit()">${option('', status, 'any')}${STATUSES.map((s) => option(s, status, STATUS_TEXT[s]!)).join('')}</select></label>
<label>Method<select name="method" id="filter-method" onchange="this.form.submit()">${option('', method, 'any')}${[...new Set([...methods, ...(method ? [method] : [])])].map((m) => option(m, method, m)).join('')}</select></label>
<noscript><button type="submit">Filter</button></noscript>
</form>`;
  const callbacksOf = (t: Transaction) => {
    const ds = callbacks.get(t.id) ?? [];
    if (ds.length === 0) return '<span class="muted">–</span>';
    const d = ds.at(-1)!;
    return `${badge(d.state === 'pending' && d.attempts > 0 ? 'retry' : d.state, d.state === 'pending' && d.attempts > 0 ? `retrying (${d.attempts})` : d.state)}${ds.length > 1 ? ` <span class="muted">×${ds.length}</span>` : ''}`;
  };
  const rows = shown
    .map(
      (t) => `<tr id="trx-${t.id}" data-status="${esc(t.status)}">
<td data-label="ID"><a href="/dashboard/trx/${t.id}">${t.id}</a></td>
<td data-label="Reference" class="mono">${esc(t.referenceId || '–')}</td>
<td data-label="Method">${esc(t.via)}/${esc(t.channel)}</td>
<td data-label="Amount" class="num">${esc(rupiah(totalOf(t)))}</td>
<td data-label="Status">${badge(t.status, STATUS_TEXT[t.status])}</td>
<td data-label="Callback">${callbacksOf(t)}</td>
<td data-label="Created (WIB)" class="mono">${esc(formatJakarta(new Date(t.createdAt)))}</td>
<td data-label="Expires (WIB)" class="mono">${esc(formatJakarta(new Date(t.expiresAt)))}</td>
</tr>`,
    )
    .join('\n');
  const body =
    all === 0
      ? `<div class="empty" id="empty">No transactions yet. Create one with <code>paycli --env local pay …</code>; it appears here at once.</div>`
      : matching === 0
        ? `<div class="empty" id="empty">No transaction matches these filters (${all} in all).</div>`
        : shown.length === 0
          ? `<div class="empty" id="empty">No older transaction. <a href="/">Newest</a></div>`
          : `<p class="muted" id="count">${matching} of ${all} transaction${all === 1 ? '' : 's'}${matching > shown.length ? `; ${before === undefined ? 'the newest' : 'older:'} ${shown.length} shown` : ''}${before !== undefined ? ` · <a href="/" id="newest">newest</a>` : ''}${older ? ` · <a href="${esc(older)}" id="older">older →</a>` : ''}</p>
<table id="transactions"><thead><tr><th>ID</th><th>Reference</th><th>Method</th><th>Amount</th><th>Status</th><th>Callback</th><th>Created (WIB)</th><th>Expires (WIB)</th></tr></thead>
<tbody>
${rows}
</tbody></table>`;
  return layout({ title: 'paycli sandbox · transactions', brand: 'paycli sandbox', home: '/', events: DASHBOARD_EVENTS, head, live: body });
}

/** The canonical JSON that an attempt's X-Signature signs, recomputed from the body it sent. */
export function canonicalOf(body: string, contentType: string | undefined): string {
  try {
    return canonicalizeCallback(parseCallbackBody(body, contentType).fields);
  } catch (err) {
    return `(cannot compute: ${(err as Error).message})`;
  }
}

function header(headers: Record<string, string>, name: string): string | undefined {
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === name) return v;
  return undefined;
}

function renderAttempt(a: AttemptInfo, now: number): string {
  const d = a.detail;
  const ok = a.state === 'delivered';
  const outcome =
    a.state === 'delivered'
      ? badge('delivered')
      : a.state === 'failed'
        ? badge('failed', 'gave up')
        : a.nextAt !== null
          ? `${badge('retry', `next retry ${clock(a.nextAt)} WIB`)}${a.nextAt > now ? ` <span class="muted">in ${Math.ceil((a.nextAt - now) / 1000)} s</span>` : ''}`
          : badge('retry', 'retrying');
  const id = `${a.deliveryId}-${a.attempt}`;
  if (!d) {
    return `<div class="attempt ${ok ? 'ok' : 'bad'}" id="attempt-${esc(id)}"><div class="line"><strong>#${a.attempt}</strong> ${esc(a.result)} ${outcome}</div>
<p class="muted">The request and the answer were not kept (recorded by an older paycli version, or seeded history).</p></div>`;
  }
  const status = d.httpStatus === null ? badge('bad', a.result) : badge(d.httpStatus === 200 ? 'ok' : 'bad', `HTTP ${d.httpStatus}`);
  let target = d.url;
  try {
    const u = new URL(d.url);
    target = `${u.pathname || '/'}${u.search}`;
  } catch {
    /* shown as given: the attempt failed on it */
  }
  const requestText = `POST ${target}\n${Object.entries(d.headers)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\n')}\n\n${d.body}`;
  return `<div class="attempt ${ok ? 'ok' : 'bad'}" id="attempt-${esc(id)}" data-http="${d.httpStatus ?? ''}">
<div class="line"><strong>#${a.attempt}</strong> ${status}${d.duplicate ? ` ${badge('retry', 'duplicate (--faults duplicate)')}` : ''} <span class="mono">${esc(wib(d.at))}</span>${d.ms !== null ? ` <span class="muted">${d.ms} ms</span>` : ''} ${outcome}</div>
<div class="muted url">→ <span class="mono">${esc(d.url)}</span></div>
<details id="req-${esc(id)}"><summary>Request (headers and body, as sent)</summary><pre class="request">${esc(requestText)}</pre></details>
<details id="can-${esc(id)}"><summary>Canonical JSON that X-Signature signs</summary><pre class="canonical">${esc(canonicalOf(d.body, header(d.headers, 'content-type')))}</pre>
<p class="muted">X-Signature = HMAC-SHA256(this JSON, the merchant VA)</p></details>
${d.httpStatus !== null ? `<div class="muted">Answer${d.truncated ? ' (first KB)' : ''}:</div><pre class="answer">${esc(d.answer) || '<span class="muted">(empty)</span>'}</pre>` : `<div class="muted">No answer: ${esc(a.result)}</div>`}
</div>`;
}

function renderDelivery(d: Delivery, attempts: AttemptInfo[], now: number): string {
  const summary =
    d.state === 'delivered'
      ? `delivered after ${d.attempts} attempt${d.attempts === 1 ? '' : 's'}`
      : d.state === 'failed'
        ? `gave up after ${d.attempts} attempt${d.attempts === 1 ? '' : 's'}`
        : d.attempts === 0
          ? `queued${d.nextAt !== null ? `, first attempt ${clock(d.nextAt)} WIB` : ''}`
          : `retrying; next attempt ${d.nextAt !== null ? `${clock(d.nextAt)} WIB` : 'soon'}`;
  return `<div class="card delivery" id="delivery-${esc(d.id)}" data-state="${esc(d.state)}">
<div class="line"><strong>${esc(d.id)}</strong> · ${badge(d.status, STATUS_TEXT[d.status])} callback · ${esc(d.format)} · ${badge(d.state === 'pending' ? 'retry' : d.state, summary)}</div>
${attempts.map((a) => renderAttempt(a, now)).join('\n') || `<p class="muted">${d.attempts === 0 ? 'No attempt yet.' : 'Its attempts were not recorded (seeded history).'}</p>`}
</div>`;
}

/** A COD payment's parcel: its tracking history (as `cod track` answers it) and, while on its way, the step the clock takes next. */
function renderParcel(ctx: DashboardContext, t: Transaction): string {
  if (t.via !== 'cod') return '';
  const steps = ctx.state.parcelSteps(t.id);
  const track = trackingOf(t, steps);
  const next = t.status === 'pending' ? nextStep(t, steps, ctx.state.pickupsOf(t.id)) : undefined;
  const due =
    next && (next.stage !== 'picked_up' || next.at < t.expiresAt)
      ? `<p class="muted" id="parcel-next">Next on the emulator's clock: ${esc(next.stage.replace('_', ' '))} at ${esc(wib(next.at))} (<code>paycli sandbox clock advance</code>)</p>`
      : '';
  const rows = track.history.map((h) => `<tr><td class="mono">${esc(h.at)}</td><td>${esc(h.status)}</td><td class="muted">${esc(h.note)}</td></tr>`).join('');
  return `<h2>Parcel</h2>
<div class="card" id="parcel" data-stage="${esc(track.status)}"><p><strong>${esc(track.status)}</strong> · AWB <span class="mono">${esc(track.awb)}</span></p>
<table><thead><tr><th>Time (WIB)</th><th>Step</th><th></th></tr></thead><tbody>${rows}</tbody></table>${due}</div>`;
}

/** A transaction: its check-transaction fields, the payment page, every callback attempt, and actions. */
export function renderTransaction(ctx: DashboardContext, t: Transaction): string {
  const data = ctx.checkTransaction(t);
  const deliveries = ctx.state.deliveriesOf(t.id).reverse();
  const now = ctx.now();
  const fields = Object.entries(data)
    .map(
      ([k, v]) =>
        `<dt>${esc(k)}</dt><dd class="mono">${v === null ? '<span class="muted">null</span>' : esc(typeof v === 'string' ? v : JSON.stringify(v))}</dd>`,
    )
    .join('');
  const post = (action: string, label: string, cls = '') =>
    `<button type="button" class="${cls}" id="action-${action}" data-post="/_sandbox/transactions/${t.id}/${action}">${esc(label)}</button>`;
  // The buttons are the transitions the table allows from this status (statuses.ts), plus re-send.
  const allowed = ACTIONS.filter((a) => ALLOWED_FROM[a].includes(t.status)).map((a) => post(a, ACTION_LABEL[a]![0], ACTION_LABEL[a]![1]));
  const cod = t.status === 'pending' && t.via === 'cod' ? `${post('ship', 'Courier: next step')}${post('deliver', 'Courier: deliver (paid)')}` : '';
  const actions = `${allowed.join('')}${cod}${t.status !== 'pending' ? post('resend', 'Re-send callback now', allowed.length === 0 ? 'primary' : '') : ''}`;
  const live = `<h1>Transaction ${t.id} ${badge(t.status, STATUS_TEXT[t.status])}</h1>
<p class="muted">${esc(ctx.merchantName(t))} · ${esc(t.via)}/${esc(t.channel)} · ${esc(rupiah(totalOf(t)))} · <a href="/pay/${t.id}" id="payment-page">payment page</a> · notifyUrl <span class="mono">${esc(t.notifyUrl || '(none)')}</span></p>
<div class="actions" id="actions">${actions}</div>
<noscript><p class="muted">Actions need JavaScript; or run <code>paycli sandbox ${t.status === 'pending' ? 'pay' : 'list'} ${t.id}</code>.</p></noscript>
${renderParcel(ctx, t)}<h2>Callbacks</h2>
${deliveries.map((d) => renderDelivery(d, ctx.state.attemptsOf(d.id), now)).join('\n') || '<div class="empty">No callback yet: one is sent when the payment is paid or expires.</div>'}
<h2>As check transaction answers it</h2>
<div class="card"><dl class="fields" id="fields">${fields}</dl></div>`;
  return layout({
    title: `trx ${t.id} · paycli sandbox`,
    brand: 'paycli sandbox',
    home: '/',
    events: DASHBOARD_EVENTS,
    head: `<p><a href="/">← all transactions</a></p>`,
    live,
  });
}

/** Serves a dashboard request; false when the path is not the dashboard's. */
export function handleDashboard(ctx: DashboardContext, req: IncomingMessage, res: ServerResponse, url: URL, method: string): boolean {
  const path = url.pathname;
  if (!isDashboardPath(path)) return false;
  const refused = pageRefusal(req);
  if (refused) {
    sendText(res, 403, `${refused}\n`);
    return true;
  }
  if (method !== 'GET' && method !== 'HEAD') {
    res.writeHead(405, { allow: 'GET' }).end();
    return true;
  }
  if (path === '/') {
    sendHtml(res, 200, renderList(ctx, url.searchParams));
    return true;
  }
  if (path === REQUESTS_PAGE) {
    sendHtml(res, 200, renderRequests(ctx));
    return true;
  }
  if (path === DASHBOARD_EVENTS) {
    ctx.hub.attach(req, res);
    return true;
  }
  const m = TRX_PAGE.exec(path);
  const t = m ? ctx.state.get(Number(m[1])) : undefined;
  if (!t) {
    sendText(res, 404, 'no such page\n');
    return true;
  }
  sendHtml(res, 200, renderTransaction(ctx, t));
  return true;
}
