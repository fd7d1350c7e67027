import { parseCaptureObject } from '../../core/callback/capture.js';
import { UsageError } from '../../core/errors.js';
import type { Verdict } from '../../core/listener/event-store.js';
import { escapeControl as esc } from '../../core/terminal-text.js';
import { eventStore, withStore } from '../store-access.js';
import type { Handler } from '../command-env.js';
import { visibleLength } from '../layout.js';
import { rupiah, wib } from '../output.js';
import type { EventsFlags } from './events-flags.js';

/** `events list` shows the newest this many unless --limit says otherwise. */
const LIST_DEFAULT = 50;

/** `events list`: the newest stored requests, oldest first, as a table that fits the terminal. */
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
  const full = rows.map(({ e, amount, verdict }) => [
    esc(e.id),
    esc(wib(String(e.receivedAt))),
    esc(e.source ?? 'listen'),
    esc(e.trx_id ?? '-'),
    esc(e.status ?? '-'),
    amount,
    verdict,
    e.duplicate ? 'dup' : '',
    esc(String(e.answer)),
  ]);
  const fullHeader = ['ID', 'RECEIVED (WIB)', 'SOURCE', 'TRX', 'STATUS', 'AMOUNT', 'VERDICT', '', 'ANSWER'];
  const width = out.tableWidth;
  const fits =
    width === undefined ||
    out
      .table(full, fullHeader, undefined, { width: Infinity })
      .split('\n')
      .every((l) => visibleLength(l) <= width);
  if (fits) out.out(out.table(full, fullHeader, (s) => c.bold(s)));
  else {
    // A narrow terminal: the short time, and the answer and duplicate mark after the verdict
    // (`events list --json` and `events show` have everything).
    const short = rows.map(({ e, amount, verdict }) => [
      esc(e.id),
      esc(wib(String(e.receivedAt), 'short')),
      esc(e.trx_id ?? '-'),
      esc(e.status ?? '-'),
      amount,
      `${verdict} ${esc(String(e.answer))}${e.duplicate ? ' dup' : ''}`,
    ]);
    out.out(out.table(short, ['ID', 'TIME (WIB)', 'TRX', 'STATUS', 'AMOUNT', 'VERDICT'], (s) => c.bold(s)));
  }
  return 'ok';
};
