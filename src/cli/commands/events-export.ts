import { parseDuration } from '../../core/duration.js';
import { UsageError } from '../../core/errors.js';
import { parseWib } from '../../core/time.js';
import { eventStore, withStore } from '../store-access.js';
import type { Handler } from '../command-env.js';
import type { EventsFlags } from './events-flags.js';

/**
 * A point in time for --since/--until: a duration ago (`7d`, `12h`), a day (`2026-11-20`, WIB; for
 * --until the end of that day), a WIB time (`2026-11-20 13:00[:00]`) or ISO 8601 with an offset.
 */
export function parseInstant(text: string, flag: string, now: Date, endOfDay = false): Date {
  const t = text.trim();
  const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(t);
  if (day) {
    const d = parseWib(`${t} 00:00:00`);
    if (d) return endOfDay ? new Date(d.getTime() + 86_400_000) : d; // parseWib refuses a day that does not exist
  } else if (/^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2})?$/.test(t)) {
    const d = parseWib(t.length === 16 ? `${t}:00` : t);
    if (d) return d;
  } else if (/^\d{4}-\d{2}-\d{2}T.*(Z|[+-]\d{2}:?\d{2})$/i.test(t)) {
    const ms = Date.parse(t);
    if (!Number.isNaN(ms)) return new Date(ms);
  } else {
    let ago: number | undefined;
    try {
      ago = parseDuration(t, { maxMs: Number.MAX_SAFE_INTEGER });
    } catch {
      /* said below */
    }
    if (ago !== undefined) {
      const d = new Date(now.getTime() - ago);
      if (!Number.isNaN(d.getTime())) return d;
      throw new UsageError(`invalid ${flag} "${text}": too far back`);
    }
  }
  throw new UsageError(`invalid ${flag} "${text}"`, {
    hint: 'a duration ago (7d, 12h), a day (2026-11-20, WIB), a WIB time (2026-11-20 13:00) or ISO 8601 (2026-11-20T06:00:00Z)',
  });
}

/**
 * `events export`: every stored request received in [--since, --until) as `{headers, body}` lines
 * (and `bodyBase64`, the exact bytes of a body that is not UTF-8), oldest first, the input of
 * `verify-callback --jsonl` (and of any tool that reads JSONL).
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
        // A body that is not UTF-8 also as its exact bytes (`body` cannot carry them).
        pending.push(JSON.stringify({ headers: e.headers, body: e.body, ...(e.bodyBase64 === undefined ? {} : { bodyBase64: e.bodyBase64 }) }));
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
  return 'ok';
};
