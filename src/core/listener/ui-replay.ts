import type { IncomingMessage, ServerResponse } from 'node:http';
import { actionRefusal } from '../dashboard/html.js';
import { readBody } from '../http/read-body.js';
import { describeSendError, sendRaw } from '../http/raw-post.js';
import type { StoredEvent } from './event-store.js';
import { forwardableHeaders } from './forward.js';
import { bodyBytes } from './stored-event.js';

/** Where a replay may go and how long it may take. */
export interface ReplayOptions {
  /** The path callbacks arrive on (the listener itself is a replay target). */
  callbackPath: string;
  /** The --forward-to targets: with the listener itself, the only targets Replay sends to. */
  forwardTo?: string[];
  replayTimeoutMs?: number;
}

export function json(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store' });
  res.end(body);
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

/**
 * Where Replay may send: the --forward-to targets and this listener itself (on the address the
 * request reached), nothing else: the page's button is no way to make the listener fetch a URL.
 */
export function replayTargets(req: IncomingMessage, o: ReplayOptions): string[] {
  const a = req.socket.localAddress ?? '127.0.0.1';
  const local = a.startsWith('::ffff:') ? a.slice(7) : a;
  const self = `http://${local.includes(':') ? `[${local}]` : local}:${req.socket.localPort}${o.callbackPath === '*' ? '/' : o.callbackPath}`;
  return [...new Set([...(o.forwardTo ?? []).map((t) => normalUrl(t) ?? t), self])];
}

/** The Replay button: the event's exact bytes and headers, sent again to one of the allowed targets. */
export async function replay(
  req: IncomingMessage,
  res: ServerResponse,
  id: string,
  o: ReplayOptions,
  find: (id: string) => Promise<StoredEvent | undefined>,
): Promise<void> {
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
  const targets = replayTargets(req, o);
  if (!targets.includes(url))
    return json(res, 403, { ok: false, error: `replay sends only to this listener or a --forward-to target (${targets.join(', ')}), not to ${url}` });
  const e = await find(id);
  if (!e) return json(res, 404, { ok: false, error: `no event "${id}"` });
  try {
    const r = await sendRaw(url, { headers: forwardableHeaders(e.headers), body: bodyBytes(e), timeoutMs: o.replayTimeoutMs ?? 10_000 });
    const answer = r.body.slice(0, 1024);
    json(res, r.status === 200 ? 200 : 502, {
      ok: r.status === 200,
      id: e.id,
      to: url,
      answer: r.status,
      ms: r.ms,
      body: answer,
      message: `replayed ${e.id} → ${url}: HTTP ${r.status} in ${r.ms} ms ${answer.trim().slice(0, 120)}`,
    });
  } catch (err) {
    json(res, 502, { ok: false, id: e.id, to: url, error: `replay to ${url} failed: ${describeSendError(err)}` });
  }
}
