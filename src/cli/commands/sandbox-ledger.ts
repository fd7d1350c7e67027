import { GatewayError, NetworkError, UsageError } from '../../core/errors.js';
import { describeSendError } from '../../core/http/raw-post.js';
import { parseStatus, STATUS_CHOICES, statusLabel } from '../../core/statuses.js';
import type { CommandEnv, Handler } from '../command-env.js';
import { rupiah } from '../output.js';
import { adminCall } from '../sandbox-admin.js';
import { SANDBOX_ENV, sandboxAdminBase } from '../sandbox-service.js';
import { sandboxDir, type SandboxFlags, throughEmulator } from './sandbox-flags.js';
import { invalidVa, isVaNumber } from '../../core/va.js';

/** `paycli sandbox list`: one page of transactions, newest first (`--all`: every page, by a stable cursor). */
export const sandboxList: Handler<SandboxFlags> = async (env) => {
  const limit = env.opts.limit ?? '100';
  if (!/^\d+$/.test(limit) || Number(limit) < 1 || Number(limit) > 1000) throw new UsageError(`invalid --limit "${limit}": 1 to 1000`);
  // As `history --status` reads it (`paid`, `PENDING`, `-2`); the emulator is asked by the status's key.
  const only = env.opts.status === undefined ? undefined : parseStatus(env.opts.status);
  if (env.opts.status !== undefined && !only) throw new UsageError(`invalid --status "${env.opts.status}" (${STATUS_CHOICES})`);
  const list: Record<string, unknown>[] = [];
  let after = '';
  let total = 0;
  let more = false;
  for (;;) {
    const q = new URLSearchParams({ limit, ...(after ? { after } : {}), ...(only ? { status: only.key } : {}) });
    const { status, json } = await adminCall(env, 'GET', `/_sandbox/transactions?${q}`);
    if (status !== 200) throw new UsageError(String(json.error ?? `the emulator answered ${status}`));
    const page = (json.transactions ?? []) as Record<string, unknown>[];
    total = Number(json.total ?? page.length);
    if (env.out.json && env.opts.all) for (const t of page) env.out.data(t, false);
    else list.push(...page);
    after = typeof json.next === 'string' ? json.next : '';
    more = after !== '';
    if (!env.opts.all || !more) break;
  }
  if (env.out.json) {
    if (!env.opts.all) env.out.data(list);
    return 'ok';
  }
  if (list.length === 0) {
    env.out.info(only ? `no ${statusLabel(only)} transactions` : 'no transactions yet: create one with `paycli --env local pay …`');
    return 'ok';
  }
  const rows = list.map((t) => {
    const cbs = (t.callbacks as { state: string }[]) ?? [];
    return [
      String(t.id),
      String(t.statusLabel ?? t.status),
      `${t.via}/${t.channel}`,
      rupiah(t.amount as number),
      String(t.paymentNo),
      String(t.referenceId),
      cbs.map((c) => c.state).join(',') || '-',
    ];
  });
  env.out.out(env.out.table(rows, ['ID', 'STATUS', 'METHOD', 'AMOUNT', 'PAYMENT NO', 'REFERENCE', 'CALLBACKS'], (s) => env.out.c.bold(s)));
  if (more) env.out.info(env.out.e.dim(`the newest ${list.length} of ${total}; --all for every page, --limit N for bigger pages`));
  return 'ok';
};

/**
 * Opens a stopped emulator's data dir (refused, naming the running one, when it is in use). A write
 * the ledger refused (a full disk, an I/O error: nothing of it was stored) is a usage error, exit 2.
 */
async function withDataDir<R>(env: CommandEnv<SandboxFlags>, fn: (opened: import('../../core/sandbox/datadir.js').OpenedDataDir) => Promise<R>): Promise<R> {
  const { openDataDir } = await import('../../core/sandbox/datadir.js');
  const { processLockOwner } = await import('../../sandbox.js');
  const { StoreError } = await import('../../core/sandbox/state-types.js');
  try {
    const opened = await openDataDir(sandboxDir(env), processLockOwner());
    try {
      return await fn(opened);
    } finally {
      await opened.close();
    }
  } catch (err) {
    if (err instanceof StoreError)
      throw new UsageError(`${err.message}; nothing of it was stored`, {
        hint: /no space left/.test(err.message) ? 'free some space on that disk, then run it again' : 'check the disk, then run it again',
      });
    throw err;
  }
}

/** The warning of a load that is committed but still in the ledger's log only (bulkLoad's `onUncopied`). */
function uncopied(env: CommandEnv<SandboxFlags>, what: string, dir: string): (err: Error) => void {
  return (err) =>
    env.out.warn(
      `${what} is stored, in ${dir}/ledger.db-wal only: ${err.message.replace(/^cannot write the emulator ledger \S+: /, '')}; SQLite copies it into ledger.db once there is room`,
    );
}

/**
 * The merchant seeded history on a stopped data dir is for: --va, else the merchant of the data
 * dir's newest transaction (the one it was last used with), else PAYCLI_SANDBOX_VA, else the default.
 */
function seedMerchant(env: CommandEnv<SandboxFlags>, newest: string | undefined, fallback: string): string {
  const va = env.opts.va ?? newest ?? (env.ctx.env[SANDBOX_ENV.va] || fallback);
  if (!isVaNumber(va)) throw invalidVa(env.opts.va !== undefined ? '--va' : SANDBOX_ENV.va);
  return va;
}

/** `paycli sandbox seed --payments N`: bulk synthetic history, into a stopped emulator's data dir or through a running one. */
export const sandboxSeed: Handler<SandboxFlags> = async (env) => {
  const { readSeedSpec, seedLedger, paidCount } = await import('../../core/sandbox/bulk.js');
  const read = readSeedSpec({ payments: env.opts.payments, paid: env.opts.paid, days: env.opts.days });
  if (!read.ok) throw new UsageError(`invalid seed: ${read.error}`);
  const started = Date.now();
  let seeded: number;
  let where: string;
  if (throughEmulator(env)) {
    const q = new URLSearchParams({ payments: String(read.spec.payments), paid: String(read.spec.paid), days: String(read.spec.days) });
    const { status, json } = await adminCall(env, 'POST', `/_sandbox/seed?${q}`, 3_600_000);
    if (status !== 200) throw new GatewayError(status, String(json.error ?? `the emulator answered ${status}`));
    seeded = Number(json.seeded);
    where = sandboxAdminBase(env.opts.sandboxUrl, env.ctx.env);
  } else {
    const { DEFAULT_ACCOUNT } = await import('../../core/sandbox/accounts.js');
    const { CLOCK_SETTING } = await import('../../core/sandbox/clock.js');
    if (env.opts.va !== undefined) seedMerchant(env, undefined, DEFAULT_ACCOUNT.va); // a bad --va before the data dir is opened
    ({ seeded, where } = await withDataDir(env, async ({ state, dir }) => {
      const va = seedMerchant(env, state.newestMerchant(), DEFAULT_ACCOUNT.va);
      // The emulator's clock, as a running one seeds: real time plus the offset `sandbox clock` stored.
      const offset = Number(state.setting(CLOCK_SETTING) ?? 0);
      const now = env.ctx.now().getTime() + (Number.isSafeInteger(offset) && offset > 0 ? offset : 0);
      const spec = { ...read.spec, va, merchantName: DEFAULT_ACCOUNT.name, now };
      // One transaction: all of it or (a full disk) nothing.
      const n = await state.bulkLoad(() => seedLedger(state, spec, { batch: read.spec.payments }), uncopied(env, 'the seed', dir));
      return { seeded: n, where: dir };
    }));
  }
  const seconds = (Date.now() - started) / 1000;
  const paid = paidCount({ ...read.spec, payments: seeded });
  if (env.out.json) env.out.data({ seeded, paid, where, seconds });
  else env.out.out(`seeded ${seeded} payments (${paid} paid, over ${read.spec.days} days) into ${where} in ${seconds.toFixed(1)} s`);
  return 'ok';
};

/** `paycli sandbox export`: the ledger as JSONL on stdout. */
export const sandboxExport: Handler<SandboxFlags> = async (env) => {
  if (throughEmulator(env)) {
    // Streamed as it comes (an export has no size bound to read it whole under).
    const base = sandboxAdminBase(env.opts.sandboxUrl, env.ctx.env);
    let res: Response;
    try {
      res = await fetch(`${base}/_sandbox/export`, { headers: { accept: 'application/x-ndjson' }, signal: env.ctx.interrupts() });
    } catch (err) {
      throw new NetworkError(`cannot reach the emulator at ${base}: ${describeSendError((err as { cause?: unknown }).cause ?? err)}`, {
        hint: 'start it with `paycli sandbox`, or check --sandbox-url',
      });
    }
    if (res.status !== 200 || !res.body) throw new GatewayError(res.status, `the emulator answered ${res.status} to the export`);
    const decoder = new TextDecoder();
    for await (const chunk of res.body) env.ctx.stdout.write(decoder.decode(chunk, { stream: true }));
    env.ctx.stdout.write(decoder.decode());
    return 'ok';
  }
  const { ledgerLines } = await import('../../core/sandbox/ledger-jsonl.js');
  await withDataDir(env, async ({ state }) => {
    let chunk = '';
    for (const line of ledgerLines(state)) {
      chunk += line;
      if (chunk.length >= 1 << 20) {
        env.ctx.stdout.write(chunk);
        chunk = '';
        await new Promise((r) => setImmediate(r));
      }
    }
    if (chunk) env.ctx.stdout.write(chunk);
  });
  return 'ok';
};

/** `paycli sandbox import FILE`: a ledger export (or an older journal) into a stopped emulator's empty ledger. */
export const sandboxImport: Handler<SandboxFlags> = async (env, file: string) => {
  const { importLedger } = await import('../../core/sandbox/ledger-jsonl.js');
  const r = await withDataDir(env, ({ state, dir }) => state.bulkLoad(() => importLedger(state, file), uncopied(env, 'the import', dir)));
  if (env.out.json) env.out.data(r);
  else {
    const { formatDuration } = await import('../../core/duration.js');
    env.out.out(
      `imported ${r.payments} transactions and ${r.sessions} redirect sessions into ${sandboxDir(env)}${r.skipped ? ` (${r.skipped} unreadable lines skipped)` : ''}; the clock ${r.clockOffsetMs > 0 ? `is ${formatDuration(r.clockOffsetMs)} ahead of real time` : 'is real time'}`,
    );
  }
  return 'ok';
};

/** `paycli sandbox reset --yes [--keep-clock]`: empties the ledger and sets the clock back to real time (accounts stay; ids go on from where they were). */
export const sandboxReset: Handler<SandboxFlags & { keepClock?: boolean }> = async (env) => {
  if (!env.opts.yes)
    throw new UsageError('`sandbox reset` deletes every transaction and callback of the emulator; add --yes to do it', {
      hint: 'keep a copy first with `paycli sandbox export > ledger.jsonl`',
    });
  let r: { removed: number; offsetMs: number };
  let where: string;
  if (throughEmulator(env)) {
    const { status, json } = await adminCall(env, 'POST', `/_sandbox/reset${env.opts.keepClock ? '?keep-clock=1' : ''}`, 600_000);
    if (status !== 200) throw new GatewayError(status, String(json.error ?? `the emulator answered ${status}`));
    r = { removed: Number(json.removed), offsetMs: Number(json.offsetMs ?? 0) };
    where = sandboxAdminBase(env.opts.sandboxUrl, env.ctx.env);
  } else {
    const { resetSandbox } = await import('../../core/sandbox/clock.js');
    ({ r, where } = await withDataDir(env, async ({ state, dir }) => ({ r: await resetSandbox(state, undefined, env.opts.keepClock === true), where: dir })));
  }
  const { formatDuration } = await import('../../core/duration.js');
  if (env.out.json) env.out.data({ ...r, where });
  else
    env.out.out(
      `removed ${r.removed} transactions from ${where}; the clock ${r.offsetMs > 0 ? `stays ${formatDuration(r.offsetMs)} ahead of real time` : 'is real time'}`,
    );
  return 'ok';
};
