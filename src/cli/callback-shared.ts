import { join } from 'node:path';
import { AuthError, UsageError } from '../core/errors.js';
import { channelsOf, METHOD_NAMES } from '../core/payment-rules.js';
import { parseStatus, STATUS_CHOICES, type StatusKey } from '../core/statuses.js';
import { parseSetting } from '../core/config/profiles.js';
import { dataDir } from '../core/config/paths.js';
import { EventStore, StoreBusyError, StoreWriteError, type EventStoreOptions, type StoredEvent } from '../core/listener/event-store.js';
import type { CandidateKey } from '../core/signing/variants.js';
import type { CommandEnv } from './command-env.js';

/** The merchant VA (the callback secret) from --va or the resolved config. */
export async function callbackVa(env: CommandEnv): Promise<string> {
  // A flag beats every other source, so no configuration file needs reading for it.
  if (env.opts.va !== undefined) return String(parseSetting('va', env.opts.va));
  const cfg = await env.session.config();
  if (!cfg.va) {
    throw new AuthError('no merchant VA to check callbacks with (callbacks are signed with the VA)', {
      hint: 'pass --va, set PAYCLI_VA, or `paycli config set va …`',
      code: 'ERR_MISSING_VA',
    });
  }
  return cfg.va.value;
}

/** Other secrets a signer may have used by mistake: the API key and VAs of other profiles. */
export async function diagnosisKeys(env: CommandEnv): Promise<CandidateKey[]> {
  const cfg = await env.session.config();
  const keys: CandidateKey[] = [];
  if (cfg.apiKey) keys.push({ kind: 'api-key', label: 'the API key', key: cfg.apiKey.value });
  for (const o of cfg.otherVas) keys.push({ kind: 'other-va', label: o.label, key: o.va });
  return keys;
}

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

/** Checks --status, --method/--channel and --format of trigger and test-handler. */
export function checkCallbackFlags(o: { status?: string; method?: string; channel?: string; format?: string }): {
  status: StatusKey;
  method: string;
  channel: string;
} {
  const info = parseStatus(o.status ?? 'berhasil');
  if (!info) throw new UsageError(`invalid --status "${o.status}"`, { hint: STATUS_CHOICES });
  const status = info.key;
  const method = o.method ?? 'va';
  if (!METHOD_NAMES.includes(method)) throw new UsageError(`unknown --method "${method}"`, { hint: `methods: ${METHOD_NAMES.join(', ')}` });
  const channel = o.channel ?? channelsOf(method)[method === 'va' ? 1 : 0]!;
  if (!channelsOf(method).includes(channel))
    throw new UsageError(`channel "${channel}" is not a channel of ${method}`, { hint: `channels of ${method}: ${channelsOf(method).join(', ')}` });
  return { status, method, channel };
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
