import { AuthError, UsageError } from '../core/errors.js';
import { channelsOf, METHOD_NAMES } from '../core/payment-rules.js';
import { parseStatus, STATUS_CHOICES, type StatusKey } from '../core/statuses.js';
import { parseSetting } from '../core/config/profiles.js';
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
