import { GatewayError, NetworkError, UsageError } from '../../core/errors.js';
import type { Action } from '../../core/statuses.js';
import type { Handler } from '../command-env.js';
import { rupiah, wib } from '../output.js';
import { adminCall, transactionAction } from '../sandbox-admin.js';
import { exportLines, sandboxAdminBase, sandboxExports } from '../sandbox-service.js';
import type { SandboxFlags } from './sandbox-flags.js';

/** `paycli sandbox ACTION ID` (pay, expire, cancel, fail, refund, settle, release): an admin transition with its callback. */
function transitionCommand(kind: Action): Handler<SandboxFlags & { error?: boolean }> {
  return async (env, id: string) => {
    const action: Action = kind === 'fail' && env.opts.error ? 'error' : kind;
    const json = await transactionAction(env, id, action);
    const t = json.transaction as Record<string, unknown>;
    if (env.out.json) env.out.data(json);
    else
      env.out.out(
        `${json.changed ? '' : 'already '}${String(t.statusLabel)}: trx ${t.id} ${t.via}/${t.channel} ${rupiah(t.amount as number)}${json.changed ? ` → callback to ${t.notifyUrl}` : ''}`,
      );
    return 'ok';
  };
}

/** `paycli sandbox health`: exit 0 when the emulator answers as healthy, 5 otherwise (container health checks, scripts). */
export const sandboxHealth: Handler<SandboxFlags> = async (env) => {
  const base = sandboxAdminBase(env.opts.sandboxUrl, env.ctx.env);
  const { status, json } = await adminCall(env, 'GET', '/_sandbox/health');
  if (status !== 200 || json.ok !== true) throw new NetworkError(`the emulator at ${base} is not healthy (HTTP ${status})`, { hint: 'see its log' });
  if (env.out.json) env.out.data({ ok: true, url: base, transactions: json.transactions });
  else env.out.out(`ok: emulator at ${base} (${String(json.transactions)} transactions)`);
  return 'ok';
};

/** `paycli sandbox env`: shell exports that aim every paycli command at the running emulator. */
export const sandboxEnv: Handler<SandboxFlags> = async (env) => {
  const base = sandboxAdminBase(env.opts.sandboxUrl, env.ctx.env);
  const { status, json } = await adminCall(env, 'GET', '/_sandbox/health');
  const va = Array.isArray(json.accounts) ? json.accounts[0] : undefined;
  if (status !== 200 || json.ok !== true || typeof va !== 'string')
    throw new NetworkError(`${base} did not answer like a paycli emulator (HTTP ${status})`, { hint: 'check --sandbox-url' });
  const vars = sandboxExports({ url: base, va, defaultKey: json.defaultKey === true });
  if (env.out.json) env.out.data(Object.fromEntries(vars));
  else env.ctx.stdout.write(exportLines(vars, env.opts.shell ?? 'sh'));
  if (json.defaultKey !== true) env.out.info("the emulator's merchant has an API key of its own: set PAYCLI_API_KEY (or use --api-key-file) yourself");
  return 'ok';
};

export const sandboxPay = transitionCommand('pay');
export const sandboxCancel = transitionCommand('cancel');
export const sandboxFail = transitionCommand('fail');
export const sandboxRefund = transitionCommand('refund');
export const sandboxSettle = transitionCommand('settle');
export const sandboxRelease = transitionCommand('release');

/** `paycli sandbox resend ID [--to URL]`: sends a payment's callback again now (to another URL with --to). */
export const sandboxResend: Handler<SandboxFlags & { to?: string }> = async (env, id: string) => {
  const to = env.opts.to;
  if (to !== undefined && !/^https?:\/\/\S+$/.test(to)) throw new UsageError(`invalid --to "${to}": an http:// or https:// URL expected`);
  // As pay and expire: the emulator refused (exit 3), with what to do.
  const json = await transactionAction(env, id, 'resend', to === undefined ? undefined : { to }, { 409: `pay or expire it first: paycli sandbox pay ${id}` });
  const t = json.transaction as Record<string, unknown>;
  if (env.out.json) env.out.data(json);
  else
    env.out.out(`${json.queued ? 'queued' : 'sent now'}: callback ${String(json.delivery)} of trx ${t.id} (${String(t.statusLabel)}) → ${to ?? t.notifyUrl}`);
  return 'ok';
};
export const sandboxExpire = transitionCommand('expire');

/** `paycli sandbox clock [advance DURATION | set TIME]`: shows or moves the emulator's clock (forward only). */
export const sandboxClock: Handler<SandboxFlags> = async (env, verb?: string, value?: string) => {
  let res;
  if (verb === undefined) res = await adminCall(env, 'GET', '/_sandbox/clock');
  else if (verb === 'advance' || verb === 'set') {
    if (value === undefined)
      throw new UsageError(`clock ${verb} needs a ${verb === 'advance' ? 'duration (e.g. 25h, 30m, 7d)' : 'time (e.g. 2026-12-01T10:00+07:00)'}`);
    if (verb === 'advance') {
      const { parseDuration } = await import('../../core/duration.js');
      try {
        parseDuration(value, { maxMs: 3650 * 86_400_000 });
      } catch (err) {
        throw new UsageError((err as Error).message);
      }
    } else if (Number.isNaN(new Date(value).getTime())) throw new UsageError(`invalid time "${value}" (ISO 8601, e.g. 2026-12-01T10:00+07:00)`);
    res = await adminCall(env, 'POST', `/_sandbox/clock/${verb}`, verb === 'advance' ? { by: value } : { to: value });
  } else throw new UsageError(`unknown clock command "${verb}": advance DURATION or set TIME`);
  const { status, json } = res;
  if (status === 400) throw new UsageError(String(json.error));
  if (status !== 200)
    throw new GatewayError(
      status,
      String(json.error ?? `the emulator answered ${status}`),
      status === 409 ? { hint: 'the clock only moves forward; restart with a new --data-dir to start over' } : undefined,
    );
  const clock = json.clock as { now: string; offsetMs: number };
  if (env.out.json) env.out.data(json);
  else {
    const { formatDuration } = await import('../../core/duration.js');
    env.out.out(`${wib(new Date(clock.now))} WIB${clock.offsetMs > 0 ? ` (${formatDuration(clock.offsetMs)} ahead of real time)` : ' (real time)'}`);
  }
  return 'ok';
};
