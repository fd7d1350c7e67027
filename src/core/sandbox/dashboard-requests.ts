import { badge, esc, layout } from '../dashboard/html.js';
import { DASHBOARD_EVENTS, type DashboardContext, LIST_LIMIT } from './dashboard-shared.js';

/** The API's recent requests, newest first, with why any was refused (401 diagnosis, 400 field errors, faults). */
export function renderRequests(ctx: DashboardContext): string {
  const list = (ctx.requests?.since(0) ?? []).slice(-LIST_LIMIT).reverse();
  const why = (e: import('./request-log.js').RequestEntry): string => {
    const parts: string[] = [];
    if (e.fault) parts.push(`<div>${badge('retry', `fault: ${e.fault}`)}</div>`);
    if (e.auth) {
      parts.push(`<div class="why" data-check="${esc(e.auth.check)}"><strong>401</strong> ${esc(e.auth.reason)}</div>`);
      if (e.auth.expectedStringToSign)
        parts.push(`<div class="muted">expected string to sign <span class="mono">${esc(e.auth.expectedStringToSign)}</span></div>`);
      if (e.auth.receivedBodyHash)
        parts.push(
          `<div class="muted">sha256 of the body received (${e.auth.receivedBodyBytes ?? 0} bytes) <span class="mono">${esc(e.auth.receivedBodyHash)}</span></div>`,
        );
    }
    if (e.fieldErrors)
      for (const [f, m] of Object.entries(e.fieldErrors))
        parts.push(`<div class="why"><strong>400</strong> <span class="mono">${esc(f)}</span>: ${esc(Array.isArray(m) ? m.join('; ') : String(m))}</div>`);
    return parts.join('');
  };
  const rows = list
    .map(
      (e) =>
        `<tr id="req-${e.seq}" data-status="${e.status}"><td class="mono">${esc(e.time.slice(11, 19))}</td><td>${esc(e.method)}</td><td class="mono">${esc(e.path)}</td><td>${badge(e.status === 0 ? 'bad' : e.status < 400 ? 'ok' : 'bad', e.status === 0 ? 'no answer' : String(e.status))}</td><td class="num">${e.ms} ms</td><td>${why(e)}</td></tr>`,
    )
    .join('\n');
  const live =
    list.length === 0
      ? '<div class="empty" id="empty">No API request yet.</div>'
      : `<table id="requests"><thead><tr><th>Time (WIB)</th><th>Method</th><th>Path</th><th>Status</th><th>Took</th><th>Why</th></tr></thead><tbody>\n${rows}\n</tbody></table>`;
  return layout({
    title: 'paycli sandbox · requests',
    brand: 'paycli sandbox',
    home: '/',
    events: DASHBOARD_EVENTS,
    head: `<h1>Requests</h1><p><a href="/">← transactions</a></p>`,
    live,
  });
}
