import { parseDuration } from '../../core/duration.js';
import { UsageError } from '../../core/errors.js';
import { eventStore, withStore } from '../store-access.js';
import type { Handler } from '../command-env.js';
import type { EventsFlags } from './events-flags.js';

/** `events clear`: deletes every stored event. */
export const eventsClear: Handler<EventsFlags> = async (env) => {
  const store = eventStore(env);
  const { cleared } = await withStore(() => store.clear());
  await store.close();
  if (env.out.json) env.out.data({ cleared, store: store.path });
  else env.out.out(`cleared ${cleared} events from ${store.path}`);
  return 'ok';
};

/** `events prune`: drops events older than --older-than and beyond the newest --keep, in place. */
export const eventsPrune: Handler<EventsFlags> = async (env) => {
  const { opts, out, ctx } = env;
  if (opts.keep === undefined && opts.olderThan === undefined) {
    throw new UsageError('events prune needs --keep N, --older-than DURATION, or both', {
      hint: 'e.g. `paycli events prune --older-than 7d` or `paycli events prune --keep 1000`',
    });
  }
  const keepNewest = opts.keep === undefined ? undefined : Number(opts.keep);
  if (keepNewest !== undefined && (!Number.isInteger(keepNewest) || keepNewest < 0))
    throw new UsageError(`invalid --keep "${opts.keep}": a whole number, 0 or more`);
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
  return 'ok';
};
