import type { IncomingMessage, ServerResponse } from 'node:http';
import { LiveHub, pageRefusal, sendHtml, sendText } from '../dashboard/html.js';
import type { CandidateKey } from '../signing/variants.js';
import type { EventStore, StoredEvent } from './event-store.js';
import { RecentEvents } from './ui-events.js';
import { eventPage, listPage, type PageContext, UI_LIVE, UI_PREFIX } from './ui-pages.js';
import { json, replay, replayTargets, type ReplayOptions } from './ui-replay.js';

export { UI_BODY_KEEP_BYTES, UI_KEEP, UI_MEMORY_BYTES } from './ui-events.js';
export { UI_PREFIX } from './ui-pages.js';

/** What the listener needs from a UI: its requests, and every event it stored. */
export interface ListenerUi {
  prefix: string;
  handle(req: IncomingMessage, res: ServerResponse): void;
  added(event: StoredEvent): void;
  /** What the events kept for the pages hold in memory (about; bounded by UI_MEMORY_BYTES). */
  readonly retainedBytes: number;
  close(): void;
}

export interface ListenerUiOptions extends ReplayOptions {
  store: EventStore | null;
  va: string;
  otherKeys?: CandidateKey[];
}

/**
 * `paycli listen --ui`: the listener's events as pages under `/_paycli/` (the list, live, and each
 * event with its verdict, diagnosis and canonical JSON, and a replay button), served only on
 * loopback addresses. Seeded with the newest events of the store. The pages are `ui-pages.ts`, the
 * events kept for them `ui-events.ts`, the Replay button `ui-replay.ts`; this is their route table.
 */
export async function createListenerUi(o: ListenerUiOptions): Promise<ListenerUi> {
  const hub = new LiveHub();
  const events = new RecentEvents(o.store);
  await events.load();
  const pages: PageContext = { va: o.va, otherKeys: o.otherKeys ?? [], storePath: o.store ? o.store.path : undefined };
  const find = (id: string) => events.find(id);

  /** `POST /_paycli/events/ID/replay`. */
  function replayRoute(req: IncomingMessage, res: ServerResponse, method: string, rawId: string): void {
    if (method !== 'POST') {
      res.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    let id: string;
    try {
      id = decodeURIComponent(rawId);
    } catch {
      json(res, 400, { ok: false, error: 'malformed event id' });
      return;
    }
    void replay(req, res, id, o, find).catch((err: unknown) => json(res, 500, { ok: false, error: (err as Error).message }));
  }

  /** `GET /_paycli/events/ID`. */
  function eventRoute(req: IncomingMessage, res: ServerResponse, rawId: string): void {
    let id = rawId;
    try {
      id = decodeURIComponent(id);
    } catch {
      /* not found below */
    }
    void find(id).then(
      (e) => (e ? sendHtml(res, 200, eventPage(e, replayTargets(req, o), pages)) : sendText(res, 404, `no event "${id}"\n`)),
      (err: unknown) => sendText(res, 500, `${(err as Error).message}\n`),
    );
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
      if (m?.[2]) return replayRoute(req, res, method, m[1]!);
      if (method !== 'GET' && method !== 'HEAD') {
        res.writeHead(405, { allow: 'GET' }).end();
        return;
      }
      if (path === UI_PREFIX || path === UI_PREFIX.slice(0, -1)) return sendHtml(res, 200, listPage(events.all, url.searchParams, pages));
      if (path === UI_LIVE) return hub.attach(req, res);
      if (m) return eventRoute(req, res, m[1]!);
      sendText(res, 404, 'no such page\n');
    },
    added(event) {
      events.keep(event);
      hub.changed();
    },
    get retainedBytes() {
      return events.retainedBytes;
    },
    close() {
      hub.close();
    },
  };
}
