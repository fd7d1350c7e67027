import { parseCallbackInput, parseCaptureObject, type ParsedCallback } from '../core/callback/capture.js';
import { UsageError } from '../core/errors.js';
import type { CommandEnv } from './command-env.js';
import { readInput } from './io.js';

/**
 * The callback payload of `verify-callback` and `sign-callback`: from --data, --event (a request in
 * the event store, at --store), a FILE or stdin (`-` or none).
 */
export async function readCallbackPayload(
  env: CommandEnv<{ data?: string; event?: string; store?: string }>,
  file: string | undefined,
): Promise<ParsedCallback> {
  const { opts } = env;
  const sources = [opts.data !== undefined, opts.event !== undefined, file !== undefined].filter(Boolean).length;
  if (sources > 1) throw new UsageError('give the payload one way: FILE, --data or --event');
  if (opts.event !== undefined) {
    // Loaded only here: a payload from a file or --data never opens the store (store-access.ts).
    const { findEvent } = await import('./store-access.js');
    const event = await findEvent(env, opts.event);
    return parseCaptureObject({ headers: event.headers, body: event.body });
  }
  const text = opts.data ?? (await readInput(env.ctx, file, 'the callback payload'));
  return parseCallbackInput(text);
}
