import { GatewayError, NetworkError, UsageError } from '../../core/errors.js';
import { parseCaptureObject } from '../../core/callback/capture.js';
import { checkCallback } from '../../core/callback/check.js';
import { externalId, signCallbackRequest } from '../../core/callback/build.js';
import { describeSendError, sendRaw } from '../../core/http/raw-post.js';
import { forwardableHeaders } from '../../core/listener/forward.js';
import type { StoredEvent } from '../../core/listener/event-store.js';
import type { CommandEnv, Handler } from '../command-env.js';
import { rupiah, wib } from '../output.js';
import { visibleLength } from '../layout.js';
import { callbackVa, diagnosisKeys, eventStore, withStore } from '../callback-shared.js';
import { parseDuration } from '../../core/duration.js';
import { parseHttpUrl } from '../../core/http/serve.js';
import { escapeControl as esc } from '../../core/terminal-text.js';
import { examples, storeFlag, timeoutFlag, type Define } from '../command-kit.js';
import { topCommand } from './heads.js';

interface EventsFlags {
  store?: string;
  limit?: string;
  status?: string;
  valid?: boolean;
  invalid?: boolean;
  to?: string;
  resign?: boolean;
  keep?: string;
  olderThan?: string;
}

async function findEvent(env: CommandEnv<EventsFlags>, id: string): Promise<StoredEvent> {
  const store = eventStore(env);
  const event = await store.find(id);
  if (!event) throw new UsageError(`no event "${id}" in ${store.path}`, { hint: 'list them with `paycli events list`' });
  return event;
}

export const eventsList: Handler<EventsFlags> = async (env) => {
  const { opts, out } = env;
  const limit = opts.limit === undefined ? Infinity : Number(opts.limit);
  if (limit !== Infinity && (!Number.isInteger(limit) || limit <= 0)) throw new UsageError(`invalid --limit "${opts.limit}": a whole number above 0`);
  const wanted = (e: StoredEvent) =>
    (!opts.status || e.status === opts.status) &&
    (!opts.valid || e.verdict === 'valid' || e.verdict === 'valid-variant') &&
    (!opts.invalid || e.verdict === 'invalid' || e.verdict === 'malformed');
  // Streamed, keeping only the newest `limit` matches: `--limit 20` on a store of any size stays small.
  let events: StoredEvent[] = [];
  const store = eventStore(env);
  const unreadable = await store.scan((e) => {
    if (!wanted(e)) return;
    events.push(e);
    if (events.length > 2 * limit) events = events.slice(-limit);
  });
  if (events.length > limit) events = events.slice(-limit);
  // Lines that are not events (torn by a crash, edited by hand) are skipped, never fatal, but said.
  if (unreadable > 0) out.warn(`${unreadable} unreadable line${unreadable === 1 ? '' : 's'} skipped in ${store.path}`);
  if (out.json) {
    out.data(events);
    return 'ok';
  }
  if (events.length === 0) {
    out.info('no events: run `paycli listen` and send it a callback (or `paycli trigger`)');
    return 'ok';
  }
  const c = out.c;
  const rows = events.map((e) => {
    let amount = '';
    try {
      const f = parseCaptureObject({ headers: e.headers, body: e.body }).fields;
      amount = typeof f.amount === 'string' ? esc(rupiah(f.amount)) : '';
    } catch {
      amount = '';
    }
    const verdict = e.verdict === 'valid' ? c.green('valid') : e.verdict === 'valid-variant' ? c.yellow('valid*') : c.red(esc(String(e.verdict)));
    // A store is a file anyone may have edited, and its fields came from senders: escaped.
    return { e, amount, verdict };
  });
  const full = rows.map(({ e, amount, verdict }) => [esc(e.id), esc(wib(String(e.receivedAt))), esc(e.source ?? 'listen'), esc(e.trx_id ?? '-'), esc(e.status ?? '-'), amount, verdict, e.duplicate ? 'dup' : '', esc(String(e.answer))]);
  const fullHeader = ['ID', 'RECEIVED (WIB)', 'SOURCE', 'TRX', 'STATUS', 'AMOUNT', 'VERDICT', '', 'ANSWER'];
  const width = out.tableWidth;
  const fits = width === undefined || out.table(full, fullHeader, undefined, { width: Infinity }).split('\n').every((l) => visibleLength(l) <= width);
  if (fits) out.out(out.table(full, fullHeader, (s) => c.bold(s)));
  else {
    // A narrow terminal: the short time, and the answer and duplicate mark after the verdict
    // (`events list --json` and `events show` have everything).
    const short = rows.map(({ e, amount, verdict }) => [esc(e.id), esc(wib(String(e.receivedAt), 'short')), esc(e.trx_id ?? '-'), esc(e.status ?? '-'), amount, `${verdict} ${esc(String(e.answer))}${e.duplicate ? ' dup' : ''}`]);
    out.out(out.table(short, ['ID', 'TIME (WIB)', 'TRX', 'STATUS', 'AMOUNT', 'VERDICT'], (s) => c.bold(s)));
  }
  return 'ok';
};

export const eventsShow: Handler<EventsFlags> = async (env, id: string) => {
  const event = await findEvent(env, id);
  const { out } = env;
  let canonical: string | null = null;
  let check: ReturnType<typeof checkCallback> | null = null;
  try {
    const parsed = parseCaptureObject({ headers: event.headers, body: event.body });
    const cfg = await env.session.config();
    if (cfg.va) {
      check = checkCallback(parsed.fields, parsed.headerSignature ?? '', cfg.va.value, { diagnose: true, otherKeys: await diagnosisKeys(env) });
      canonical = check.canonical;
    }
  } catch {
    canonical = null;
  }
  if (out.json) {
    out.data({ ...event, canonical, recheck: check ? { verdict: check.verdict, reason: check.reason } : null });
    return 'ok';
  }
  const c = out.c;
  // Headers, body and fields came from the sender: control characters escaped (the body keeps its lines).
  out.out(
    [
      `${c.bold(esc(event.id))}  ${esc(wib(String(event.receivedAt)))} WIB  ${esc(event.method)} ${esc(event.path)}  → ${esc(String(event.answer))}`,
      `verdict: ${esc(String(event.verdict))}${event.variant ? ` (${esc(event.variant)})` : ''}${event.reason ? ` — ${esc(event.reason)}` : ''}${event.duplicate ? ' · duplicate' : ''}`,
      '',
      ...Object.entries(event.headers).map(([k, v]) => `${esc(k)}: ${esc(String(v))}`),
      '',
      esc(event.body, { multiline: true }),
      ...(canonical ? ['', c.dim('canonical JSON:'), esc(canonical)] : []),
    ].join('\n'),
  );
  return 'ok';
};

export const eventsReplay: Handler<EventsFlags> = async (env, id: string) => {
  const { opts, out, ctx } = env;
  if (!opts.to) throw new UsageError('events replay needs --to URL');
  const to = opts.to;
  parseHttpUrl(to, '--to');
  const event = await findEvent(env, id);
  let headers = forwardableHeaders(event.headers);
  let body = event.body;
  if (opts.resign) {
    const parsed = parseCaptureObject({ headers: event.headers, body: event.body });
    const va = await callbackVa(env);
    const now = ctx.now();
    const signed = signCallbackRequest(Object.fromEntries(Object.entries(parsed.fields).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)])), va, parsed.format, now, externalId(now, 1));
    headers = { ...headers, 'x-signature': signed.signature, 'x-timestamp': signed.headers['X-Timestamp']!, 'x-external-id': signed.headers['X-External-ID']! };
    body = event.body; // the same bytes, re-signed with this VA
  }
  let res;
  try {
    res = await sendRaw(to, { headers, body, timeoutMs: (await env.session.config()).timeout.value });
  } catch (err) {
    throw new NetworkError(`replay to ${to} failed: ${describeSendError(err)}`);
  }
  const result = { id: event.id, to, resigned: Boolean(opts.resign), answer: res.status, ms: res.ms, body: res.body };
  if (res.status !== 200) throw new GatewayError(res.status, `replay of ${event.id} to ${to} answered HTTP ${res.status}: ${res.body.trim().slice(0, 200)}`, { details: result });
  if (out.json) out.data(result);
  else out.out(`replayed ${event.id} → ${to}: ${out.c.green(String(res.status))} ${res.ms}ms ${res.body.trim().slice(0, 200)}`);
  return 'ok';
};

export const eventsClear: Handler<EventsFlags> = async (env) => {
  const store = eventStore(env);
  const { cleared, unreadable } = await withStore(() => store.clear());
  if (env.out.json) env.out.data({ cleared, unreadable, store: store.path });
  else env.out.out(`cleared ${cleared} events from ${store.path}${unreadable ? ` (and ${unreadable} unreadable line${unreadable === 1 ? '' : 's'})` : ''}`);
  return 'ok';
};

/** `events prune`: drops events older than --older-than and beyond the newest --keep, in place. */
export const eventsPrune: Handler<EventsFlags> = async (env) => {
  const { opts, out, ctx } = env;
  if (opts.keep === undefined && opts.olderThan === undefined) {
    throw new UsageError('events prune needs --keep N, --older-than DURATION, or both', { hint: 'e.g. `paycli events prune --older-than 7d` or `paycli events prune --keep 1000`' });
  }
  const keepNewest = opts.keep === undefined ? undefined : Number(opts.keep);
  if (keepNewest !== undefined && (!Number.isInteger(keepNewest) || keepNewest < 0)) throw new UsageError(`invalid --keep "${opts.keep}": a whole number, 0 or more`);
  let notBefore: Date | undefined;
  if (opts.olderThan !== undefined) {
    try {
      notBefore = new Date(ctx.now().getTime() - parseDuration(opts.olderThan, { maxMs: 100 * 365 * 86_400_000 }));
    } catch (err) {
      throw new UsageError(`invalid --older-than: ${(err as Error).message}`);
    }
  }
  const store = eventStore(env);
  const result = await withStore(() => store.prune({ keepNewest, notBefore }));
  if (out.json) out.data({ store: store.path, ...result });
  else out.out(`pruned ${result.removed} of ${result.before} events from ${store.path}; ${result.kept} kept${result.unreadable ? ` (${result.unreadable} unreadable line${result.unreadable === 1 ? '' : 's'} moved to ${result.unreadablePath})` : ''}`);
  return 'ok';
};

// ── Definition  ─────────────────────────────────────────────────────────────────────────────────

const defineEvents: Define = (program, bind) => {
  const events = topCommand(program, 'events');
  examples(events, ['paycli events list', 'paycli events show evt_lx2k9a', 'paycli events replay evt_lx2k9a --to http://127.0.0.1:3000/callback', 'paycli events prune --older-than 7d']);
  bind(examples(
    storeFlag(events.command('list').description('list stored requests, oldest first').option('--limit <n>', 'only the newest N').option('--status <status>', 'only this callback status').option('--valid', 'only valid ones').option('--invalid', 'only invalid or malformed ones')),
    ['paycli events list', 'paycli events list --invalid --limit 20 --json'],
  ), eventsList);
  bind(examples(storeFlag(events.command('show <id>').description('headers, body, canonical JSON and verdict of one request (id or unique prefix)')), ['paycli events show evt_lx2k9a', 'paycli events show evt_lx2k --json']), eventsShow);
  bind(examples(
    timeoutFlag(storeFlag(events.command('replay <id>').description('send a stored request again, byte for byte').option('--to <url>', 'where to send it').option('--resign', 're-sign with the configured VA'))),
    ['paycli events replay evt_lx2k9a --to http://127.0.0.1:3000/callback', 'paycli events replay evt_lx2k9a --to http://127.0.0.1:3000/callback --resign --va 1179000899'],
  ), eventsReplay);
  bind(examples(storeFlag(events.command('clear').description('delete every stored event')), ['paycli events clear', 'paycli events clear --store ./events.jsonl']), eventsClear);
  bind(examples(
    storeFlag(events.command('prune').description('drop old events: those older than --older-than, and all but the newest --keep').option('--keep <n>', 'keep only the newest N events').option('--older-than <duration>', 'drop events received longer ago than this (e.g. 7d, 12h)')),
    ['paycli events prune --older-than 7d', 'paycli events prune --keep 1000 --json'],
  ), eventsPrune);
};

export const commands = { events: defineEvents };
