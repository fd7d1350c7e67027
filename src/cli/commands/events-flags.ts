import { UsageError } from '../../core/errors.js';
import type { StoredEvent } from '../../core/listener/event-store.js';
import { eventStore, withStore } from '../callback-shared.js';
import type { CommandEnv } from '../command-env.js';

/** Every flag of the `events` subcommands. */
export interface EventsFlags {
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

/** One stored event by id (or unique prefix); a usage error naming the store when there is none. */
export async function findEvent(env: CommandEnv<EventsFlags>, id: string): Promise<StoredEvent> {
  const store = eventStore(env);
  const event = await withStore(() => store.find(id));
  await store.close();
  if (!event) throw new UsageError(`no event "${id}" in ${store.path}`, { hint: 'list them with `paycli events list`' });
  return event;
}
