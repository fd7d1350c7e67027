import { NetworkError } from '../core/errors.js';
import { describeSendError, sendRaw } from '../core/http/raw-post.js';
import { WHOLE_ANSWER_MAX_BYTES } from '../core/http/bounded-read.js';
import type { CommandEnv } from './command-env.js';
import { sandboxAdminBase } from './sandbox-service.js';

/** One call to the emulator's admin API (`/_sandbox/…`): its status and JSON, or a NetworkError (exit 5). */
export async function adminCall(env: CommandEnv<{ sandboxUrl?: string }>, method: string, path: string, body?: Record<string, unknown>): Promise<{ status: number; json: Record<string, unknown> }> {
  const base = sandboxAdminBase(env.opts.sandboxUrl, env.ctx.env);
  let res;
  try {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    res = await sendRaw(base + path, { method, headers: { accept: 'application/json', ...(payload ? { 'content-type': 'application/json' } : {}) }, ...(payload ? { body: payload } : {}), timeoutMs: 60_000, maxAnswerBytes: WHOLE_ANSWER_MAX_BYTES, overLimit: 'fail' });
  } catch (err) {
    throw new NetworkError(`cannot reach the emulator at ${base}: ${describeSendError(err)}`, { hint: 'start it with `paycli sandbox`, or pass --sandbox-url' });
  }
  try {
    return { status: res.status, json: JSON.parse(res.body) as Record<string, unknown> };
  } catch {
    throw new NetworkError(`${base} did not answer like a paycli emulator (HTTP ${res.status})`, { hint: 'check --sandbox-url' });
  }
}
