import { UsageError } from '../../core/errors.js';
import { eventStore, withStore } from '../store-access.js';
import type { Handler } from '../command-env.js';
import type { EventsFlags } from './events-flags.js';

/** How often `events tail` looks for new rows (a read of the table's end: cheap). */
const TAIL_POLL_MS = 100;

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
    // One listener per wait, removed when the wait ends (not one left behind every 100 ms).
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(t);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const t = setTimeout(done, TAIL_POLL_MS);
      signal.addEventListener('abort', done, { once: true });
    });
  }
  await store.close();
  return signal.reason === 'SIGINT' ? 'interrupted' : 'ok';
};
