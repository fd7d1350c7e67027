import { join } from 'node:path';
import { dataDir } from '../core/config/paths.js';
import { UsageError } from '../core/errors.js';
import { EventStore, StoreBusyError, StoreWriteError, type EventStoreOptions, type StoredEvent } from '../core/listener/event-store.js';
import type { CommandEnv } from './command-env.js';

// The event store as the commands open it. A module of its own, apart from callback-shared.ts:
// loading the store (SQLite's driver, its worker threads' sources, node:module) costs a command
// that never opens it ~0.6 ms of its start (verify-callback FILE, sign-callback, test-handler).

/**
 * The event store: `--store FILE` or `$XDG_DATA_HOME/paycli/events.db` (a SQLite database; the
 * previous release's `events.jsonl` beside it is imported on first open). The listener passes
 * `{ busyTimeoutMs: 0 }`: it retries a locked store without blocking its event loop.
 */
export function eventStore(env: CommandEnv<{ store?: string }>, options: EventStoreOptions = {}): EventStore {
  return new EventStore(env.opts.store ?? join(dataDir(env.ctx.env, env.ctx.homedir), 'events.db'), { uid: process.getuid?.(), ...options });
}

/**
 * Runs a store operation; a store that stays locked, or a write it cannot make (a full disk), is a
 * usage error (exit 2) saying why. `delivered`: what was done before the store failed (a callback
 * sent), said first, with `details` in --json.
 */
export async function withStore<R>(fn: () => Promise<R>, delivered?: string, details?: unknown): Promise<R> {
  try {
    return await fn();
  } catch (err) {
    const first = delivered ? `${delivered}, but not recorded: ` : '';
    if (err instanceof StoreBusyError)
      throw new UsageError(`${first}${err.message}`, {
        hint: 'resume or stop that process (`fg`, `kill -CONT PID`), then run this again; its lock is never taken over',
        code: 'ERR_STORE_BUSY',
        details,
      });
    // A write the store could not make (a full disk, an I/O error): nothing of it was committed.
    if (err instanceof StoreWriteError) throw new UsageError(`${first}${err.message}`, { details });
    throw err;
  }
}

/** One stored event by id (or unique prefix); a usage error naming the store when there is none, or several. */
export async function findEvent(env: CommandEnv<{ store?: string }>, id: string): Promise<StoredEvent> {
  const store = eventStore(env);
  const { event, matches } = await withStore(() => store.lookup(id));
  await store.close();
  if (matches === 2)
    throw new UsageError(`"${id}" is the start of more than one event id in ${store.path}`, { hint: 'give more of the id (`paycli events list` shows them)' });
  if (!event) throw new UsageError(`no event "${id}" in ${store.path}`, { hint: 'list them with `paycli events list`' });
  return event;
}
