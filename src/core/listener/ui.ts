import type { IncomingMessage, ServerResponse } from 'node:http';
import { readBody } from '../http/read-body.js';
import { checkCallback, type CallbackCheck } from '../callback/check.js';
import { parseCaptureObject } from '../callback/parse.js';
import { actionRefusal, esc, layout, LiveHub, pageRefusal, rupiah, sendHtml, sendText } from '../dashboard/html.js';
import { describeSendError, sendRaw } from '../http/raw-post.js';
import type { CandidateKey } from '../signing/variants.js';
import type { EventStore, StoredEvent } from './event-store.js';
import { forwardableHeaders } from './forward.js';
import { formatJakarta } from '../time.js';

/** A stored time (ISO 8601, UTC) as `events list/show` show it: `YYYY-MM-DD HH:MM:SS` in WIB. */
function wibTime(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : formatJakarta(d);
}

/** The path prefix of `paycli listen --ui`: callback traffic never uses it. */
export const UI_PREFIX = '/_paycli/';
/** Events kept for the pages (the newest). */
export const UI_KEEP = 500;
/**
 * Of an event's body, the pages keep this much in memory (a real callback is 1 to 2 KiB); a longer
 * one is read back from the store when its page is opened.
 */
export const UI_BODY_KEEP_BYTES = 16 * 1024;
/** What the kept events may hold in all (bodies, headers, fields); the oldest go first. */
export const UI_MEMORY_BYTES = 16 * 1024 * 1024;

/** What the listener needs from a UI: its requests, and every event it stored. */
export interface ListenerUi {
  prefix: string;
  handle(req: IncomingMessage, res: ServerResponse): void;
  added(event: StoredEvent): void;
  /** What the events kept for the pages hold in memory (about; bounded by UI_MEMORY_BYTES). */
  readonly retainedBytes: number;
  close(): void;
}

export interface ListenerUiOptions {
  store: EventStore | null;
  va: string;
  otherKeys?: CandidateKey[];
  /** The path callbacks arrive on (the listener itself is a replay target). */
  callbackPath: string;
  /** The --forward-to targets: with the listener itself, the only targets Replay sends to. */
  forwardTo?: string[];
  replayTimeoutMs?: number;
}

const VERDICTS = ['valid', 'valid-variant', 'invalid', 'malformed'];

function fieldsOf(e: StoredEvent): Record<string, unknown> {
  try {
    return parseCaptureObject({ headers: e.headers, body: e.body }).fields;
  } catch {
    return {};
  }
}

/** About what an event costs in memory: its strings (UTF-16) and a fixed overhead. */
function sizeOf(e: StoredEvent): number {
  let n = 256 + e.id.length + e.path.length + e.body.length + (e.reason?.length ?? 0);
  for (const [k, v] of Object.entries(e.headers)) n += 32 + k.length + v.length;
  return 2 * n;
}

function text(v: unknown): string {
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '';
}

function badge(cls: string, label = cls): string {
  return `<span class="badge ${esc(cls)}">${esc(label)}</span>`;
}

async function readJson(req: IncomingMessage, limit: number): Promise<Record<string, unknown>> {
  const body = await readBody(req, limit);
  let v: unknown;
  try {
    v = JSON.parse(body.toString('utf8') || '{}');
  } catch {
    throw new Error('the body is not JSON');
  }
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

/** An http(s) URL in its normal form (`new URL().href`), or undefined. */
function normalUrl(text: string): string | undefined {
  try {
    const u = new URL(text);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : undefined;
  } catch {
    return undefined;
  }
}

function json(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store' });
  res.end(body);
}

/**
 * `paycli listen --ui`: the listener's events as pages under `/_paycli/` (the list, live, and each
 * event with its verdict, diagnosis and canonical JSON, and a replay button), served only on
 * loopback addresses. Seeded with the newest events of the store.
 */
export async function createListenerUi(o: ListenerUiOptions): Promise<ListenerUi> {
  const hub = new LiveHub();
  // The newest events, in memory for the pages: at most 2 × UI_KEEP and UI_MEMORY_BYTES (bodies cut
  // at UI_BODY_KEEP_BYTES; `cut` holds the events whose body was cut, read whole from the store).
  let events: StoredEvent[] = [];
  let bytes = 0;
  const sizes = new WeakMap<StoredEvent, number>();
  const cut = new WeakSet<StoredEvent>();
  const keep = (event: StoredEvent): void => {
    let e = event;
    if (Buffer.byteLength(e.body) > UI_BODY_KEEP_BYTES) {
      e = { ...e, body: Buffer.from(e.body).subarray(0, UI_BODY_KEEP_BYTES).toString('utf8') };
      cut.add(e);
    }
    const size = sizeOf(e);
    sizes.set(e, size);
    events.push(e);
    bytes += size;
    let drop = 0;
    while (events.length - drop > 1 && (bytes > UI_MEMORY_BYTES || events.length - drop > 2 * UI_KEEP)) bytes -= sizes.get(events[drop++]!) ?? 0;
    if (drop > 0) events = events.slice(drop);
  };
  if (o.store) {
    // The newest UI_KEEP from the end of the table (an index read, whatever the store's size).
    for (const e of await o.store.list({ limit: UI_KEEP })) keep(e);
    while (events.length > UI_KEEP) bytes -= sizes.get(events.shift()!) ?? 0;
  }
  const events_ = `${UI_PREFIX}live`;

  function recheck(e: StoredEvent): { check: CallbackCheck | null; error?: string } {
    try {
      const parsed = parseCaptureObject({ headers: e.headers, body: e.body });
      return { check: checkCallback(parsed.fields, parsed.headerSignature ?? '', o.va, { diagnose: true, otherKeys: o.otherKeys ?? [] }) };
    } catch (err) {
      return { check: null, error: (err as Error).message };
    }
  }

  function list(query: URLSearchParams): string {
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
          : `<p class="muted" id="count">${shown.length} of the newest ${events.length} events${o.store ? ` in ${esc(o.store.path)}` : ' (no store: this run only)'}</p>
<table id="events"><thead><tr><th>Received (WIB)</th><th>Event</th><th>Trx</th><th>Status</th><th>Amount</th><th>Verdict</th><th>Answered</th></tr></thead><tbody>
${rows}
</tbody></table>`;
    return layout({ title: 'paycli listen · callbacks', brand: 'paycli listen', home: UI_PREFIX, events: events_, head, live: body });
  }

  /**
   * Where Replay may send: the --forward-to targets and this listener itself (on the address the
   * request reached), nothing else: the page's button is no way to make the listener fetch a URL.
   */
  function replayTargets(req: IncomingMessage): string[] {
    const a = req.socket.localAddress ?? '127.0.0.1';
    const local = a.startsWith('::ffff:') ? a.slice(7) : a;
    const self = `http://${local.includes(':') ? `[${local}]` : local}:${req.socket.localPort}${o.callbackPath === '*' ? '/' : o.callbackPath}`;
    return [...new Set([...(o.forwardTo ?? []).map((t) => normalUrl(t) ?? t), self])];
  }

  function page(e: StoredEvent, targets: string[]): string {
    const { check, error } = recheck(e);
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
    return layout({ title: `${e.id} · paycli listen`, brand: 'paycli listen', home: UI_PREFIX, events: events_, head, live });
  }

  /** An event, whole: from memory, or from the store when it is older or its body was cut in memory. */
  async function find(id: string): Promise<StoredEvent | undefined> {
    const kept = events.find((e) => e.id === id);
    if (kept && !cut.has(kept)) return kept;
    return (await o.store?.find(id)) ?? kept;
  }

  async function replay(req: IncomingMessage, res: ServerResponse, id: string): Promise<void> {
    const refused = actionRefusal(req);
    if (refused) return json(res, 403, { ok: false, error: refused });
    let to: string;
    try {
      to = String((await readJson(req, 64 * 1024)).to ?? '');
    } catch (err) {
      return json(res, 400, { ok: false, error: (err as Error).message });
    }
    const url = normalUrl(to);
    if (url === undefined) return json(res, 400, { ok: false, error: `"${to}" is not an http(s) URL` });
    const targets = replayTargets(req);
    if (!targets.includes(url)) return json(res, 403, { ok: false, error: `replay sends only to this listener or a --forward-to target (${targets.join(', ')}), not to ${url}` });
    const e = await find(id);
    if (!e) return json(res, 404, { ok: false, error: `no event "${id}"` });
    try {
      const r = await sendRaw(url, { headers: forwardableHeaders(e.headers), body: e.body, timeoutMs: o.replayTimeoutMs ?? 10_000 });
      const answer = r.body.slice(0, 1024);
      json(res, r.status === 200 ? 200 : 502, { ok: r.status === 200, id: e.id, to: url, answer: r.status, ms: r.ms, body: answer, message: `replayed ${e.id} → ${url}: HTTP ${r.status} in ${r.ms} ms ${answer.trim().slice(0, 120)}` });
    } catch (err) {
      json(res, 502, { ok: false, id: e.id, to: url, error: `replay to ${url} failed: ${describeSendError(err)}` });
    }
  }

  return {
    prefix: UI_PREFIX,
    handle(req, res) {
      const url = new URL(req.url ?? '/', 'http://listener');
      const path = url.pathname;
      const method = (req.method ?? 'GET').toUpperCase();
      const refused = pageRefusal(req);
      if (refused) return sendText(res, 403, `${refused}\n`);
      const m = /^\/_paycli\/events\/([^/]+)(\/replay)?$/.exec(path);
      if (m?.[2]) {
        if (method !== 'POST') {
          res.writeHead(405, { allow: 'POST' }).end();
          return;
        }
        let id: string;
        try {
          id = decodeURIComponent(m[1]!);
        } catch {
          return json(res, 400, { ok: false, error: 'malformed event id' });
        }
        void replay(req, res, id).catch((err: unknown) => json(res, 500, { ok: false, error: (err as Error).message }));
        return;
      }
      if (method !== 'GET' && method !== 'HEAD') {
        res.writeHead(405, { allow: 'GET' }).end();
        return;
      }
      if (path === UI_PREFIX || path === UI_PREFIX.slice(0, -1)) return sendHtml(res, 200, list(url.searchParams));
      if (path === events_) return hub.attach(req, res);
      if (m) {
        let id = m[1]!;
        try {
          id = decodeURIComponent(id);
        } catch {
          /* not found below */
        }
        void find(id).then(
          (e) => (e ? sendHtml(res, 200, page(e, replayTargets(req))) : sendText(res, 404, `no event "${id}"\n`)),
          (err: unknown) => sendText(res, 500, `${(err as Error).message}\n`),
        );
        return;
      }
      sendText(res, 404, 'no such page\n');
    },
    added(event) {
      keep(event);
      hub.changed();
    },
    get retainedBytes() {
      return bytes;
    },
    close() {
      hub.close();
    },
  };
}
