import { GatewayError, NetworkError, UsageError } from '../../core/errors.js';
import { parseCaptureObject } from '../../core/callback/parse.js';
import { checkCallback } from '../../core/callback/check.js';
import { externalId, signCallbackRequest } from '../../core/callback/build.js';
import { describeSendError, sendRaw } from '../../core/http/raw-post.js';
import { forwardableHeaders } from '../../core/listener/forward.js';
import type { StoredEvent, Verdict } from '../../core/listener/event-store.js';
import type { CommandEnv, Handler } from '../command-env.js';
import { currentTableWidth, rupiah, table, visibleLength, wib } from '../output.js';
import { callbackVa, diagnosisKeys, eventStore, withStore } from '../callback-shared.js';
import { parseDuration } from '../../core/duration.js';
import { formatJakarta, parseWib } from '../../core/time.js';
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
  since?: string;
  until?: string;
}

async function findEvent(env: CommandEnv<EventsFlags>, id: string): Promise<StoredEvent> {
  const store = eventStore(env);
  const event = await withStore(() => store.find(id));
  await store.close();
  if (!event) throw new UsageError(`no event "${id}" in ${store.path}`, { hint: 'list them with `paycli events list`' });
  return event;
}

/** `events list` shows the newest this many unless --limit says otherwise. */
const LIST_DEFAULT = 50;

export const eventsList: Handler<EventsFlags> = async (env) => {
  const { opts, out } = env;
  const limit = opts.limit === undefined ? LIST_DEFAULT : Number(opts.limit);
  if (!Number.isInteger(limit) || limit <= 0) throw new UsageError(`invalid --limit "${opts.limit}": a whole number above 0`);
  const verdicts: Verdict[] | undefined = opts.valid ? ['valid', 'valid-variant'] : opts.invalid ? ['invalid', 'malformed'] : undefined;
  if (opts.valid && opts.invalid) throw new UsageError('--valid and --invalid exclude each other');
  const query = { status: opts.status, verdicts };
  const store = eventStore(env);
  // The newest `limit` matches (and one more, to know whether there are more), from the end of the
  // table: a store of any size answers alike.
  const events = await withStore(() => store.list({ ...query, limit: limit + 1 }));
  await store.close();
  if (events.length > limit) {
    events.shift();
    if (!out.json) out.info(`the newest ${limit} events shown; --limit N for more`);
  }
  if (out.json) {
    out.data(events);
    return 0;
  }
  if (events.length === 0) {
    out.info('no events: run `paycli listen` and send it a callback (or `paycli trigger`)');
    return 0;
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
  const width = currentTableWidth();
  const fits = width === undefined || table(full, fullHeader, undefined, { width: Infinity }).split('\n').every((l) => visibleLength(l) <= width);
  if (fits) out.out(table(full, fullHeader, (s) => c.bold(s)));
  else {
    // A narrow terminal: the short time, and the answer and duplicate mark after the verdict
    // (`events list --json` and `events show` have everything).
    const short = rows.map(({ e, amount, verdict }) => [esc(e.id), esc(wib(String(e.receivedAt), 'short')), esc(e.trx_id ?? '-'), esc(e.status ?? '-'), amount, `${verdict} ${esc(String(e.answer))}${e.duplicate ? ' dup' : ''}`]);
    out.out(table(short, ['ID', 'TIME (WIB)', 'TRX', 'STATUS', 'AMOUNT', 'VERDICT'], (s) => c.bold(s)));
  }
  return 0;
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
    return 0;
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
  return 0;
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
  return 0;
};

export const eventsClear: Handler<EventsFlags> = async (env) => {
  const store = eventStore(env);
  const { cleared } = await withStore(() => store.clear());
  await store.close();
  if (env.out.json) env.out.data({ cleared, store: store.path });
  else env.out.out(`cleared ${cleared} events from ${store.path}`);
  return 0;
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
  await store.close();
  if (out.json) out.data({ store: store.path, ...result });
  else out.out(`pruned ${result.removed} of ${result.before} events from ${store.path}; ${result.kept} kept`);
  return 0;
};

/**
 * A point in time for --since/--until: a duration ago (`7d`, `12h`), a day (`2026-11-20`, WIB; for
 * --until the end of that day), a WIB time (`2026-11-20 13:00[:00]`) or ISO 8601 with an offset.
 */
export function parseInstant(text: string, flag: string, now: Date, endOfDay = false): Date {
  const t = text.trim();
  const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(t);
  if (day) {
    const d = parseWib(`${t} 00:00:00`);
    if (d && formatJakarta(d).startsWith(t)) return endOfDay ? new Date(d.getTime() + 86_400_000) : d;
  } else if (/^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2})?$/.test(t)) {
    const d = parseWib(t.length === 16 ? `${t}:00` : t);
    if (d && !Number.isNaN(d.getTime())) return d;
  } else if (/^\d{4}-\d{2}-\d{2}T.*(Z|[+-]\d{2}:?\d{2})$/i.test(t)) {
    const ms = Date.parse(t);
    if (!Number.isNaN(ms)) return new Date(ms);
  } else {
    try {
      return new Date(now.getTime() - parseDuration(t, { maxMs: Number.MAX_SAFE_INTEGER }));
    } catch {
      /* said below */
    }
  }
  throw new UsageError(`invalid ${flag} "${text}"`, { hint: 'a duration ago (7d, 12h), a day (2026-11-20, WIB), a WIB time (2026-11-20 13:00) or ISO 8601 (2026-11-20T06:00:00Z)' });
}

/**
 * `events export`: every stored request received in [--since, --until) as `{headers, body}` lines,
 * oldest first, the input of `verify-callback --jsonl` (and of any tool that reads JSONL).
 */
export const eventsExport: Handler<EventsFlags> = async (env) => {
  const { opts, ctx } = env;
  const now = ctx.now();
  const since = opts.since === undefined ? undefined : parseInstant(opts.since, '--since', now);
  const until = opts.until === undefined ? undefined : parseInstant(opts.until, '--until', now, true);
  if (since && until && since >= until) throw new UsageError(`--since ${opts.since} is not before --until ${opts.until}`);
  const store = eventStore(env);
  let pending: string[] = [];
  let count = 0;
  await withStore(() =>
    store.scan(
      (e) => {
        count++;
        pending.push(JSON.stringify({ headers: e.headers, body: e.body }));
        if (pending.length >= 1000) {
          ctx.stdout.write(pending.join('\n') + '\n');
          pending = [];
        }
      },
      { since: since?.toISOString() ?? (until ? '' : undefined), until: until?.toISOString() },
    ),
  );
  await store.close();
  if (pending.length > 0) ctx.stdout.write(pending.join('\n') + '\n');
  env.out.info(`exported ${count} event${count === 1 ? '' : 's'} from ${store.path}`);
  return 0;
};

/**
 * `events tail`: prints every event stored from now on as one JSON line (the shape of `events list
 * --json`), as it arrives, until interrupted. `--limit N` prints the newest N stored ones first.
 */
export const eventsTail: Handler<EventsFlags> = async (env) => {
  const { opts, ctx } = env;
  const first = opts.limit === undefined ? 0 : Number(opts.limit);
  if (!Number.isInteger(first) || first < 0) throw new UsageError(`invalid --limit "${opts.limit}": a whole number, 0 or more`);
  const store = eventStore(env);
  const signal = ctx.interrupts();
  let last = await withStore(() => store.lastSeq());
  if (first > 0) {
    const older = await store.list({ limit: first, upToSeq: last });
    if (older.length > 0) ctx.stdout.write(older.map((e) => JSON.stringify(e)).join('\n') + '\n');
  }
  env.out.info(`following ${store.path}; Ctrl-C to stop`);
  while (!signal.aborted) {
    const batch = await store.after(last);
    if (batch.length > 0) {
      last = batch.at(-1)!.seq;
      ctx.stdout.write(batch.map(({ seq: _seq, ...e }) => JSON.stringify(e)).join('\n') + '\n');
      if (batch.length === 1000) continue; // more waiting
    }
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, TAIL_POLL_MS);
      signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
    });
  }
  await store.close();
  return signal.reason === 'SIGINT' ? 130 : 0;
};

/** How often `events tail` looks for new rows (a read of the table's end: cheap). */
const TAIL_POLL_MS = 100;

// ── Definition  ─────────────────────────────────────────────────────────────────────────────────

const defineEvents: Define = (program, bind) => {
  const events = topCommand(program, 'events');
  examples(events, ['paycli events list', 'paycli events show evt_lx2k9a', 'paycli events replay evt_lx2k9a --to http://127.0.0.1:3000/callback', 'paycli events prune --older-than 7d', 'paycli events tail | jq .verdict']);
  bind(examples(
    storeFlag(events.command('list').description('list the newest stored requests, oldest first').option('--limit <n>', 'how many of the newest (default 50)').option('--status <status>', 'only this callback status').option('--valid', 'only valid ones').option('--invalid', 'only invalid or malformed ones')),
    ['paycli events list', 'paycli events list --invalid --limit 20 --json'],
  ), eventsList);
  bind(examples(storeFlag(events.command('show <id>').description('headers, body, canonical JSON and verdict of one request (id or unique prefix)')), ['paycli events show evt_lx2k9a', 'paycli events show evt_lx2k --json']), eventsShow);
  bind(examples(
    timeoutFlag(storeFlag(events.command('replay <id>').description('send a stored request again, byte for byte').option('--to <url>', 'where to send it').option('--resign', 're-sign with the configured VA'))),
    ['paycli events replay evt_lx2k9a --to http://127.0.0.1:3000/callback', 'paycli events replay evt_lx2k9a --to http://127.0.0.1:3000/callback --resign --va 1179000899'],
  ), eventsReplay);
  bind(examples(storeFlag(events.command('clear').description('delete every stored event')), ['paycli events clear', 'paycli events clear --store ./events.db']), eventsClear);
  bind(examples(
    storeFlag(events.command('prune').description('drop old events: those older than --older-than, and all but the newest --keep').option('--keep <n>', 'keep only the newest N events').option('--older-than <duration>', 'drop events received longer ago than this (e.g. 7d, 12h)')),
    ['paycli events prune --older-than 7d', 'paycli events prune --keep 1000 --json'],
  ), eventsPrune);
  bind(examples(
    storeFlag(events.command('export').description('write stored requests as {headers, body} JSON lines (what verify-callback --jsonl reads)').option('--since <when>', 'received at or after: a duration ago (7d), a day (2026-11-20, WIB) or a time').option('--until <when>', 'received before (a day: up to its end)')),
    ['paycli events export > captures.jsonl && paycli verify-callback --jsonl captures.jsonl', 'paycli events export --since 2026-11-20 --until 2026-11-21'],
  ), eventsExport);
  bind(examples(
    storeFlag(events.command('tail').description('print each new stored request as a JSON line until Ctrl-C').option('--limit <n>', 'print the newest N stored ones first (default 0)')),
    ['paycli events tail | jq -c "{id, trx_id, verdict}"', 'paycli events tail --limit 10'],
  ), eventsTail);
};

export const commands = { events: defineEvents };
