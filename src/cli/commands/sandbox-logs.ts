import { GatewayError } from '../../core/errors.js';
import type { Handler } from '../command-env.js';
import { wib } from '../output.js';
import { adminCall } from '../sandbox-admin.js';
import type { SandboxFlags } from './sandbox-flags.js';

/** Why a request was refused, as lines under its log line (401 diagnosis, 400 field errors). */
export function whyLines(e: {
  auth?: { reason: string; expectedStringToSign?: string; receivedBodyHash?: string };
  fieldErrors?: Record<string, unknown>;
}): string[] {
  const lines: string[] = [];
  if (e.auth) {
    lines.push(`401: ${e.auth.reason}`);
    if (e.auth.expectedStringToSign) lines.push(`expected string to sign: ${e.auth.expectedStringToSign}`);
    if (e.auth.receivedBodyHash) lines.push(`sha256 of the body received: ${e.auth.receivedBodyHash}`);
  }
  if (e.fieldErrors)
    for (const [field, msgs] of Object.entries(e.fieldErrors)) lines.push(`400: ${field}: ${Array.isArray(msgs) ? msgs.join('; ') : String(msgs)}`);
  return lines;
}

/** `paycli sandbox logs [--follow] [--json]`: the running emulator's request log, from another terminal. */
export const sandboxLogs: Handler<SandboxFlags & { follow?: boolean }> = async (env) => {
  const { out, ctx } = env;
  let after = 0;
  const print = (list: Record<string, unknown>[]) => {
    for (const e of list) {
      after = Math.max(after, Number(e.seq));
      if (out.json) {
        out.data(e, false);
        continue;
      }
      const status = Number(e.status);
      const st =
        status === 0
          ? out.c.red('no answer')
          : status < 300
            ? out.c.green(String(status))
            : status < 500
              ? out.c.yellow(String(status))
              : out.c.red(String(status));
      out.out(
        out.fitLine(
          `${out.c.dim(wib(String(e.time), 'time'))} `,
          `${String(e.method).padEnd(5)} ${String(e.path)} ${st} ${out.c.dim(`${String(e.ms)}ms`)}${e.fault ? ` ${out.c.yellow(`[${String(e.fault)}]`)}` : ''}`,
        ),
      );
      for (const line of whyLines(e as Parameters<typeof whyLines>[0])) out.out(out.fitLine('         ', line));
    }
  };
  const first = await adminCall(env, 'GET', '/_sandbox/requests');
  if (first.status !== 200) throw new GatewayError(first.status, String(first.json.error ?? `the emulator answered ${first.status}`));
  print((first.json.requests ?? []) as Record<string, unknown>[]);
  if (!env.opts.follow) {
    if (!out.json && (first.json.requests as unknown[]).length === 0) out.info('no API request yet');
    return 'ok';
  }
  const signal = ctx.interrupts();
  while (!signal.aborted) {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 500);
      signal.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          resolve();
        },
        { once: true },
      );
    });
    if (signal.aborted) break;
    const next = await adminCall(env, 'GET', `/_sandbox/requests?after=${after}`);
    print((next.json.requests ?? []) as Record<string, unknown>[]);
  }
  return signal.reason === 'SIGINT' ? 'interrupted' : 'ok';
};
