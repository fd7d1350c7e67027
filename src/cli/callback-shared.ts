import { join } from 'node:path';
import { AuthError, UsageError } from '../core/errors.js';
import { CALLBACK_STATUSES, channelsOf, METHOD_NAMES, type CallbackStatus } from '../core/payment-rules.js';
import { parseSetting } from '../core/config/profiles.js';
import { dataDir } from '../core/config/paths.js';
import { EventStore, StoreBusyError } from '../core/listener/event-store.js';
import type { CandidateKey } from '../core/signing/variants.js';
import type { CommandEnv } from './command-env.js';

/** The merchant VA (the callback secret) from --va or the resolved config. */
export async function callbackVa(env: CommandEnv): Promise<string> {
  // A flag beats every other source, so no configuration file needs reading for it.
  if (env.opts.va !== undefined) return String(parseSetting('va', env.opts.va));
  const cfg = await env.session.config();
  if (!cfg.va) {
    throw new AuthError('no merchant VA to check callbacks with (callbacks are signed with the VA)', { hint: 'pass --va, set PAYCLI_VA, or `paycli config set va …`', code: 'ERR_MISSING_VA' });
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
 * The event store: `--store FILE` or `$XDG_DATA_HOME/paycli/events.jsonl`. Writers, prune and clear
 * share its lock (see EventStore).
 */
export function eventStore(env: CommandEnv<{ store?: string }>): EventStore {
  return new EventStore(env.opts.store ?? join(dataDir(env.ctx.env, env.ctx.homedir), 'events.jsonl'), { holder: process.pid, processRuns });
}

/** Whether a process runs (signal 0 only asks; EPERM means it runs under another user). */
function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Runs a store operation; a store that stays locked is a usage error (exit 2) naming the lock. */
export async function withStore<R>(fn: () => Promise<R>): Promise<R> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof StoreBusyError) throw new UsageError(err.message, { hint: 'a paycli listen or trigger holds it only while writing; a lock left by a crash is taken over after 10 s', code: 'ERR_STORE_BUSY' });
    throw err;
  }
}

/** Checks --status, --method/--channel and --format of trigger and test-handler. */
export function checkCallbackFlags(o: { status?: string; method?: string; channel?: string; format?: string }): { status: CallbackStatus; method: string; channel: string } {
  const status = (o.status ?? 'berhasil') as CallbackStatus;
  if (!(status in CALLBACK_STATUSES)) throw new UsageError(`invalid --status "${o.status}"`, { hint: 'berhasil, pending or expired' });
  const method = o.method ?? 'va';
  if (!METHOD_NAMES.includes(method)) throw new UsageError(`unknown --method "${method}"`, { hint: `methods: ${METHOD_NAMES.join(', ')}` });
  const channel = o.channel ?? channelsOf(method)[method === 'va' ? 1 : 0]!;
  if (!channelsOf(method).includes(channel)) throw new UsageError(`channel "${channel}" is not a channel of ${method}`, { hint: `channels of ${method}: ${channelsOf(method).join(', ')}` });
  return { status, method, channel };
}
