import { GatewayError, NetworkError, UsageError } from '../core/errors.js';
import { describeSendError, sendRaw } from '../core/http/raw-post.js';
import { WHOLE_ANSWER_MAX_BYTES } from '../core/http/bounded-read.js';
import type { CommandEnv } from './command-env.js';
import { sandboxAdminBase } from './sandbox-service.js';

/** One call to the emulator's admin API (`/_sandbox/…`): its status and JSON, or a NetworkError (exit 5). */
export async function adminCall(
  env: CommandEnv<{ sandboxUrl?: string }>,
  method: string,
  path: string,
  body?: Record<string, unknown> | number,
  timeoutMs = 60_000,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const base = sandboxAdminBase(env.opts.sandboxUrl, env.ctx.env);
  // A number in place of the body: no body, that timeout (a seed or reset can take long).
  if (typeof body === 'number') [body, timeoutMs] = [undefined, body];
  let res;
  try {
    // Parsed whole: read whole up to the bound (a longer answer is an error, not a cut JSON text).
    // Same-site for the admin API's check on POST: a CLI is no page of another site.
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const headers = { accept: 'application/json', ...(method === 'POST' ? { origin: base } : {}), ...(payload ? { 'content-type': 'application/json' } : {}) };
    res = await sendRaw(base + path, {
      method,
      headers,
      ...(payload ? { body: payload } : {}),
      timeoutMs,
      maxAnswerBytes: WHOLE_ANSWER_MAX_BYTES,
      overLimit: 'fail',
    });
  } catch (err) {
    throw new NetworkError(`cannot reach the emulator at ${base}: ${describeSendError(err)}`, {
      hint: 'start it with `paycli sandbox`, or pass --sandbox-url',
    });
  }
  try {
    return { status: res.status, json: JSON.parse(res.body) as Record<string, unknown> };
  } catch {
    throw new NetworkError(`${base} did not answer like a paycli emulator (HTTP ${res.status})`, { hint: 'check --sandbox-url' });
  }
}

/**
 * An admin action on one transaction (`POST /_sandbox/transactions/ID/ACTION`): the emulator's answer
 * when it did it; a usage error (exit 2) for an unknown transaction, a gateway error (exit 3) for any
 * other refusal, with what to do when `hints` names the status.
 */
export async function transactionAction(
  env: CommandEnv<{ sandboxUrl?: string }>,
  id: string,
  action: string,
  body?: Record<string, unknown>,
  hints: Record<number, string> = {},
): Promise<Record<string, unknown>> {
  const { status, json } = await adminCall(env, 'POST', `/_sandbox/transactions/${encodeURIComponent(id)}/${action}`, body);
  if (status === 404) throw new UsageError(String(json.error ?? `no transaction "${id}"`), { hint: 'list them with `paycli sandbox list`' });
  if (status !== 200)
    throw new GatewayError(status, String(json.error ?? `the emulator answered ${status}`), hints[status] ? { hint: hints[status] } : undefined);
  return json;
}
