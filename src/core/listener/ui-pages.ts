import { checkCallback, type CallbackCheck } from '../callback/check.js';
import { parseCaptureObject } from '../callback/capture.js';
import { badge, esc, layout, rupiah } from '../dashboard/html.js';
import type { CandidateKey } from '../signing/variants.js';
import { formatJakarta } from '../time.js';
import type { StoredEvent } from './event-store.js';

/** The path prefix of `paycli listen --ui`: callback traffic never uses it. */
export const UI_PREFIX = '/_paycli/';
/** The live page's event stream. */
export const UI_LIVE = `${UI_PREFIX}live`;

/** A stored time (ISO 8601, UTC) as `events list/show` show it: `YYYY-MM-DD HH:MM:SS` in WIB. */
function wibTime(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : formatJakarta(d);
}

const VERDICTS = ['valid', 'valid-variant', 'invalid', 'malformed'];

function fieldsOf(e: StoredEvent): Record<string, unknown> {
  try {
    return parseCaptureObject({ headers: e.headers, body: e.body }).fields;
  } catch {
    return {};
  }
}

function text(v: unknown): string {
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '';
}

/** What the pages need besides the events: the keys to recheck a signature with, the store's path. */
export interface PageContext {
  va: string;
  otherKeys: CandidateKey[];
  /** The store's path, or undefined without a store. */
  storePath: string | undefined;
}

function recheck(e: StoredEvent, c: PageContext): { check: CallbackCheck | null; error?: string } {
  try {
    const parsed = parseCaptureObject({ headers: e.headers, body: e.body });
    return { check: checkCallback(parsed.fields, parsed.headerSignature ?? '', c.va, { diagnose: true, otherKeys: c.otherKeys }) };
  } catch (err) {
    return { check: null, error: (err as Error).message };
  }
}

/** The list of callbacks received, newest first, filtered by `?verdict=`. */
export function listPage(events: readonly StoredEvent[], query: URLSearchParams, c: PageContext): string {
  const verdict = query.get('verdict') ?? '';
  const shown = events.filter((e) => !verdict || e.verdict === verdict).reverse();
  const option = (v: string, label: string) => `<option value="${esc(v)}"${v === verdict ? ' selected' : ''}>${esc(label)}</option>`;
  const head = `<h1>Callbacks received</h1>
<form class="filters" method="get" action="${UI_PREFIX}"><label>Verdict<select name="verdict" id="filter-verdict" onchange="this.form.submit()">${option('', 'any')}${VERDICTS.map((v) => option(v, v)).join('')}</select></label><noscript><button type="submit">Filter</button></noscript></form>`;
  const rows = shown
    .map((e) => {
      const f = fieldsOf(e);
      const amount = text(f.amount);
      return `<tr id="${esc(e.id)}" data-verdict="${esc(e.verdict)}">
<td data-label="Received (WIB)" class="mono">${esc(wibTime(e.receivedAt))}</td>
<td data-label="Event"><a href="${UI_PREFIX}events/${encodeURIComponent(e.id)}" class="mono">${esc(e.id)}</a></td>
<td data-label="Trx">${esc(e.trx_id ?? '–')}</td>
<td data-label="Status">${esc(e.status ?? '–')}</td>
<td data-label="Amount" class="num">${/^\d+$/.test(amount) ? esc(rupiah(Number(amount))) : esc(amount || '–')}</td>
<td data-label="Verdict">${badge(e.verdict)}${e.duplicate ? ' <span class="badge">duplicate</span>' : ''}${e.source === 'trigger' ? ' <span class="badge">trigger</span>' : ''}</td>
<td data-label="Answered" class="num">${esc(e.answer)}</td>
</tr>`;
    })
    .join('\n');
  const body =
    events.length === 0
      ? `<div class="empty" id="empty">No callback yet. Point a notifyUrl at this listener (or run <code>paycli trigger</code>); it appears here at once.</div>`
      : shown.length === 0
        ? `<div class="empty" id="empty">No event with this verdict (${events.length} in all).</div>`
        : `<p class="muted" id="count">${shown.length} of the newest ${events.length} events${c.storePath !== undefined ? ` in ${esc(c.storePath)}` : ' (no store: this run only)'}</p>
<table id="events"><thead><tr><th>Received (WIB)</th><th>Event</th><th>Trx</th><th>Status</th><th>Amount</th><th>Verdict</th><th>Answered</th></tr></thead><tbody>
${rows}
</tbody></table>`;
  return layout({ title: 'paycli listen · callbacks', brand: 'paycli listen', home: UI_PREFIX, events: UI_LIVE, head, live: body });
}

/** One event: its verdict, diagnosis and canonical JSON, the request, and a replay button. */
export function eventPage(e: StoredEvent, targets: string[], c: PageContext): string {
  const { check, error } = recheck(e, c);
  const headers = Object.entries(e.headers)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\n');
  const diagnosis = check?.diagnosis ? `<p id="diagnosis">${esc(check.diagnosis.message)}</p>` : '';
  const live = `<h1>${badge(e.verdict)} <span class="mono">${esc(e.id)}</span></h1>
<p class="muted">${esc(e.method)} ${esc(e.path)} · received ${esc(wibTime(e.receivedAt))} WIB · answered ${esc(e.answer)}${e.duplicate ? ' · duplicate of an earlier callback' : ''}${e.source === 'trigger' ? ' · sent by paycli trigger' : ''}</p>
<div class="card"><dl class="fields">
<dt>Verdict</dt><dd id="verdict">${esc(e.verdict)}${e.variant ? ` (${esc(e.variant)})` : ''}</dd>
<dt>Reason</dt><dd id="reason">${esc(e.reason ?? (e.verdict === 'valid' ? 'the signature matches the canonical JSON signed with the VA' : '–'))}</dd>
<dt>Trx / status</dt><dd>${esc(e.trx_id ?? '–')} / ${esc(e.status ?? '–')}</dd>
${check ? `<dt>X-Signature</dt><dd class="mono">${esc(check.received || '(none)')}</dd><dt>Expected</dt><dd class="mono">${esc(check.expected)}</dd>` : ''}
</dl>${diagnosis}${check?.notDiagnosed ? `<p class="muted">${esc(check.notDiagnosed)}</p>` : ''}</div>
<h2>Canonical JSON</h2>
${check ? `<pre id="canonical">${esc(check.canonical)}</pre><p class="muted">The signature is HMAC-SHA256 of this JSON with the merchant VA.</p>` : `<p class="muted" id="canonical">Not computable: ${esc(error ?? 'the body is not a callback')}</p>`}
<h2>Request</h2>
<pre id="request">${esc(headers)}\n\n${esc(e.body)}</pre>`;
  const head = `<p><a href="${UI_PREFIX}">← all callbacks</a></p>
<div class="card"><form class="filters" onsubmit="return false"><label>Replay the exact bytes and headers to<select id="replay-to">${targets.map((t) => `<option value="${esc(t)}">${esc(t)}</option>`).join('')}</select></label>
<button type="button" class="primary" id="replay" data-post="${UI_PREFIX}events/${encodeURIComponent(e.id)}/replay" data-input="replay-to">Replay</button></form>
<noscript><p class="muted">Replay needs JavaScript; or run <code>paycli events replay ${esc(e.id)} --to URL</code>.</p></noscript></div>`;
  return layout({ title: `${e.id} · paycli listen`, brand: 'paycli listen', home: UI_PREFIX, events: UI_LIVE, head, live });
}
