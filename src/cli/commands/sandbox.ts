import { join } from 'node:path';
import { NetworkError, UsageError, GatewayError } from '../../core/errors.js';
import { dataDir } from '../../core/config/paths.js';
import { parseBindHost } from '../../core/http/serve.js';
import { maskSecret } from '../../core/signing/request-signature.js';
import type { CommandEnv, Handler } from '../command-env.js';
import { describeSendError } from '../../core/http/raw-post.js';
import { rupiah, terminalWidth, wib } from '../output.js';
import { fitLineTo } from '../layout.js';
import { Option, collect, examples, type Define, type TypedCommand } from '../command-kit.js';
import type { OptionValues } from '@commander-js/extra-typings';
import { parsePort } from '../flag-values.js';
import { topCommand } from './heads.js';
import { adminCall } from '../sandbox-admin.js';
import { SHIP_HELP, sandboxDeliver, sandboxShip } from './sandbox-cod.js';
import { exportLines, readyInfo, removeReadyFile, sandboxAdminBase, sandboxEnvApiKey, sandboxExports, withSandboxEnv, writeReadyFile } from '../sandbox-service.js';
import type { Action } from '../../core/statuses.js';

interface SandboxFlags {
  port?: string;
  allowHost?: string[];
  host?: string;
  dataDir?: string;
  inMemory?: boolean;
  callbackFormat?: string;
  retrySchedule?: string;
  accounts?: string;
  faults?: string;
  settlement?: 'immediate' | 'deferred';
  sandboxUrl?: string;
  limit?: string;
  status?: string;
  all?: boolean;
  payments?: string;
  paid?: string;
  days?: string;
  yes?: boolean;
  /** False with --no-dashboard. */
  dashboard?: boolean;
  readyFile?: string;
  shell?: 'sh' | 'fish';
}

/** The log's clock: HH:MM:SS in WIB (the banner says so). */
function time(d: Date): string {
  return wib(d, 'time');
}

/** Why a request was refused, as lines under its log line (401 diagnosis, 400 field errors). */
export function whyLines(e: { auth?: { reason: string; expectedStringToSign?: string; receivedBodyHash?: string }; fieldErrors?: Record<string, unknown> }): string[] {
  const lines: string[] = [];
  if (e.auth) {
    lines.push(`401: ${e.auth.reason}`);
    if (e.auth.expectedStringToSign) lines.push(`expected string to sign: ${e.auth.expectedStringToSign}`);
    if (e.auth.receivedBodyHash) lines.push(`sha256 of the body received: ${e.auth.receivedBodyHash}`);
  }
  if (e.fieldErrors) for (const [field, msgs] of Object.entries(e.fieldErrors)) lines.push(`400: ${field}: ${Array.isArray(msgs) ? msgs.join('; ') : String(msgs)}`);
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
      const st = status === 0 ? out.c.red('no answer') : status < 300 ? out.c.green(String(status)) : status < 500 ? out.c.yellow(String(status)) : out.c.red(String(status));
      out.out(out.fitLine(`${out.c.dim(wib(String(e.time), 'time'))} `, `${String(e.method).padEnd(5)} ${String(e.path)} ${st} ${out.c.dim(`${String(e.ms)}ms`)}${e.fault ? ` ${out.c.yellow(`[${String(e.fault)}]`)}` : ''}`));
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
      signal.addEventListener('abort', () => {
        clearTimeout(timer);
        resolve();
      }, { once: true });
    });
    if (signal.aborted) break;
    const next = await adminCall(env, 'GET', `/_sandbox/requests?after=${after}`);
    print((next.json.requests ?? []) as Record<string, unknown>[]);
  }
  return signal.reason === 'SIGINT' ? 'interrupted' : 'ok';
};

/** `paycli sandbox`: runs the emulator until Ctrl-C. */
export const sandboxServe: Handler<SandboxFlags> = async (env) => {
  const { out, ctx } = env;
  // PAYCLI_SANDBOX_* give what no flag gave (containers configure through the environment).
  const opts = withSandboxEnv(env.opts, ctx.env, env.opts.dashboard === false);
  const { startSandbox } = await import('../../sandbox.js');
  const { parseDurationList } = await import('../../core/duration.js');
  const { readAccountsFile } = await import('../../core/sandbox/accounts.js');
  const format = opts.callbackFormat;
  if (format !== undefined && format !== 'form' && format !== 'json') throw new UsageError(`invalid --callback-format "${format}": form or json`);
  let schedule: number[] | undefined;
  try {
    schedule = opts.retrySchedule ? parseDurationList(opts.retrySchedule) : undefined;
  } catch (err) {
    throw new UsageError(`invalid --retry-schedule: ${(err as Error).message}`);
  }
  const { parseFaults } = await import('../../core/sandbox/faults.js');
  let faults: ReturnType<typeof parseFaults>;
  try {
    faults = parseFaults(opts.faults ?? '');
  } catch (err) {
    throw new UsageError(`invalid --faults: ${(err as Error).message}`, { hint: 'faults: duplicate, delay=DURATION, concurrent-duplicate=N, api-500=RATE[@PATH], api-timeout=RATE[@PATH], api-slow=DURATION[@PATH]' });
  }
  if (opts.va !== undefined && !/^\d{4,32}$/.test(opts.va)) throw new UsageError(`invalid --va "${opts.va}": digits expected`);
  const host = parseBindHost(opts.host ?? '127.0.0.1'); // before any state is opened
  const accounts = opts.accounts ? await readAccountsFile(opts.accounts) : undefined;
  const apiKey = (await env.session.flagApiKey()) ?? (await sandboxEnvApiKey(ctx.env));
  if (opts.va !== undefined && apiKey === undefined && !accounts) {
    throw new UsageError('--va needs --api-key or --api-key-file: the emulator\'s merchant must have an API key to sign with', { hint: 'or omit both to use the documented default merchant' });
  }
  const dir = opts.inMemory ? undefined : sandboxDir(env);
  const counts = { requests: 0, callbacks: 0, delivered: 0, failed: 0 };
  const sandbox = await startSandbox({
    port: parsePort(opts.port, 4010),
    host,
    dataDir: dir,
    va: opts.va,
    apiKey,
    accounts,
    callbackFormat: format as 'form' | 'json' | undefined,
    retrySchedule: schedule,
    settlement: opts.settlement,
    faults: faults.delivery,
    apiFaults: faults.api,
    dashboard: opts.dashboard !== false,
    ...(opts.allowHost ? { allowedHosts: opts.allowHost } : {}),
    onEvent: (e) => {
      if (e.type === 'startup') return; // part of the banner
      if (e.type === 'store-error') {
        if (out.json) out.data({ time: ctx.now().toISOString(), ...e }, false);
        else ctx.stderr.write(`${out.e.red('cannot store')}: ${e.message} (answered 503, nothing changed)\n`);
        return;
      }
      if (e.type === 'request') counts.requests++;
      if (e.type === 'callback') {
        counts.callbacks++;
        if (e.final === 'delivered') counts.delivered++;
        if (e.final === 'failed') counts.failed++;
      }
      if (out.json) {
        out.data({ time: ctx.now().toISOString(), ...e }, false);
        return;
      }
      const t = out.c.dim(time(ctx.now()));
      if (e.type === 'request') {
        const st = e.status < 300 ? out.c.green(String(e.status)) : e.status < 500 ? out.c.yellow(String(e.status)) : out.c.red(String(e.status));
        out.out(out.fitLine(`${t} `, `${e.method.padEnd(5)} ${e.path} ${st} ${out.c.dim(`${e.ms}ms`)}${e.fault ? ` ${out.c.yellow(`[${e.fault}]`)}` : ''}`));
        for (const line of whyLines(e)) out.out(out.fitLine('         ', out.c.dim(line)));
      } else if (e.type === 'transition') {
        out.out(out.fitLine(`${t} `, `trx ${e.trxId} ${e.from} → ${out.c.bold(e.to)} (${e.by}${e.action ? ` ${e.action}` : ''})`));
      } else {
        const verdict = e.ok ? out.c.green('delivered') : e.nextInMs !== null ? out.c.yellow(`retry in ${e.nextInMs} ms`) : out.c.red('gave up');
        out.out(out.fitLine(`${t} `, `callback trx ${e.trxId} ${e.status} → ${e.url} attempt ${e.attempt}${e.duplicate ? ' (duplicate fault)' : ''}: ${e.result}${e.ms !== undefined ? ` ${e.ms}ms` : ''} · ${verdict}`));
      }
    },
  }).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'EADDRINUSE') throw new UsageError(`port ${opts.port ?? 4010} is already in use`, { hint: 'stop the other process or pick another --port (0 for any free port)' });
    if (err.code === 'EACCES') throw new UsageError(`no permission to listen on port ${opts.port ?? 4010}`);
    throw err;
  });
  // Listen for Ctrl-C / SIGTERM before the banner says it started: a stop right after it is a clean stop.
  const signal = ctx.interrupts();
  const main = sandbox.accounts[0]!;
  const ready = readyInfo(sandbox.url, sandbox.dashboardUrl, main.va, main.apiKey);
  const banner = {
    event: 'started',
    url: sandbox.url,
    baseUrl: sandbox.apiUrl,
    dashboard: sandbox.dashboardUrl,
    va: main.va,
    apiKey: maskSecret(main.apiKey),
    accounts: sandbox.accounts.length,
    dataDir: dir ?? null,
    transactions: sandbox.state.count(),
    regions: sandbox.regions.counts,
    skippedLines: sandbox.startup.skippedLines,
    reconciled: sandbox.startup.reconciled,
    ...(sandbox.startup.migrated !== undefined ? { migrated: sandbox.startup.migrated } : {}),
  };
  const notes: string[] = [];
  if (sandbox.startup.migrated !== undefined) notes.push(`imported ${sandbox.startup.migrated} transaction${sandbox.startup.migrated === 1 ? '' : 's'} from an older version's journal.jsonl (kept as journal.jsonl.migrated)`);
  if (sandbox.startup.skippedLines > 0) notes.push(`${sandbox.startup.skippedLines} unreadable journal line${sandbox.startup.skippedLines === 1 ? '' : 's'} skipped`);
  if (sandbox.startup.reconciled > 0) notes.push(`${sandbox.startup.reconciled} callback${sandbox.startup.reconciled === 1 ? '' : 's'} queued for transitions that had none`);
  if (out.json) out.data(banner, false);
  else {
    // Fits the terminal: a long data-dir path or note wraps under its label.
    const width = ctx.stderrIsTTY ? terminalWidth(ctx.columns) : undefined;
    const line = (label: string, text: string) => fitLineTo(width, `  ${label.padEnd(11)}`, text);
    const isDefaultKey = main.apiKey === (await import('../../core/config/resolve.js')).EMULATOR_DEFAULT_API_KEY;
    ctx.stderr.write(
      [
        out.e.bold('paycli sandbox') + ` — offline iPaymu emulator`,
        line('base URL', sandbox.apiUrl),
        line('use it', useIt(ready.url)),
        // The documented default VA is public; a merchant's own VA is masked like everywhere else.
        line('VA', main.va === (await import('../../core/config/resolve.js')).EMULATOR_DEFAULT_VA ? main.va : maskSecret(main.va)),
        line('API key', `${maskSecret(main.apiKey)}${isDefaultKey ? ' (the documented default; --env local uses it)' : ''}`),
        line('state', `${dir ?? 'in memory'} (${sandbox.state.count()} transactions)`),
        ...notes.map((n) => fitLineTo(width, `  ${out.e.yellow('note')}${' '.repeat(7)}`, n)),
        line('dashboard', sandbox.dashboardUrl ?? (opts.dashboard === false ? 'off (--no-dashboard)' : 'off (served on loopback addresses only)')),
        line('admin', 'paycli sandbox list | pay | cancel | refund | settle | release | ship | deliver ID | clock'),
        line('log times', 'WIB (Asia/Jakarta); Ctrl-C to stop'),
        '',
      ].join('\n'),
    );
  }
  // The port accepts connections now: tell whoever waits (a file written whole, and a JSON line).
  if (opts.readyFile) await writeReadyFile(opts.readyFile, ready);
  if (out.json) out.data({ event: 'ready', ...ready }, false);
  await new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
  const total = sandbox.state.count();
  await sandbox.close();
  if (opts.readyFile) await removeReadyFile(opts.readyFile);
  const summary = { event: 'stopped', ...counts, transactions: total };
  if (out.json) out.data(summary, false);
  else ctx.stderr.write(`\nstopped: ${counts.requests} requests, ${counts.callbacks} callback attempts (${counts.delivered} delivered, ${counts.failed} gave up)\n`);
  return signal.reason === 'SIGINT' ? 'interrupted' : 'ok';
};

/** The emulator's data dir: --data-dir, or the default under the XDG data home. */
function sandboxDir(env: CommandEnv<SandboxFlags>): string {
  return env.opts.dataDir ?? join(dataDir(env.ctx.env, env.ctx.homedir), 'sandbox');
}

/** `paycli sandbox ACTION ID` (pay, expire, cancel, fail, refund, settle, release): an admin transition with its callback. */
function transitionCommand(kind: Action): Handler<SandboxFlags & { error?: boolean }> {
  return async (env, id: string) => {
    const action: Action = kind === 'fail' && env.opts.error ? 'error' : kind;
    const { status, json } = await adminCall(env, 'POST', `/_sandbox/transactions/${encodeURIComponent(id)}/${action}`);
    if (status === 404) throw new UsageError(String(json.error ?? `no transaction "${id}"`), { hint: 'list them with `paycli sandbox list`' });
    if (status !== 200) throw new GatewayError(status, String(json.error ?? `the emulator answered ${status}`));
    const t = json.transaction as Record<string, unknown>;
    if (env.out.json) env.out.data(json);
    else env.out.out(`${json.changed ? '' : 'already '}${String(t.statusLabel)}: trx ${t.id} ${t.via}/${t.channel} ${rupiah(t.amount as number)}${json.changed ? ` → callback to ${t.notifyUrl}` : ''}`);
    return 'ok';
  };
}

/** The banner's advice: one line that aims every command at this emulator, whatever its port. */
function useIt(url: string): string {
  return url === 'http://127.0.0.1:4010' ? 'eval "$(paycli sandbox env)"  (or paycli --env local …)' : `eval "$(paycli sandbox env --sandbox-url ${url})"`;
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
  if (status !== 200 || json.ok !== true || typeof va !== 'string') throw new NetworkError(`${base} did not answer like a paycli emulator (HTTP ${status})`, { hint: 'check --sandbox-url' });
  const vars = sandboxExports({ url: base, va, defaultKey: json.defaultKey === true });
  if (env.out.json) env.out.data(Object.fromEntries(vars));
  else env.ctx.stdout.write(exportLines(vars, env.opts.shell ?? 'sh'));
  if (json.defaultKey !== true) env.out.info('the emulator\'s merchant has an API key of its own: set PAYCLI_API_KEY (or use --api-key-file) yourself');
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
  const { status, json } = await adminCall(env, 'POST', `/_sandbox/transactions/${encodeURIComponent(id)}/resend`, to === undefined ? undefined : { to });
  if (status === 404) throw new UsageError(String(json.error ?? `no transaction "${id}"`), { hint: 'list them with `paycli sandbox list`' });
  // As pay and expire: the emulator refused (exit 3), with what to do.
  if (status === 409) throw new GatewayError(409, String(json.error), { hint: `pay or expire it first: paycli sandbox pay ${id}` });
  if (status !== 200) throw new GatewayError(status, String(json.error ?? `the emulator answered ${status}`));
  const t = json.transaction as Record<string, unknown>;
  if (env.out.json) env.out.data(json);
  else env.out.out(`${json.queued ? 'queued' : 'sent now'}: callback ${String(json.delivery)} of trx ${t.id} (${String(t.statusLabel)}) → ${to ?? t.notifyUrl}`);
  return 'ok';
};
export const sandboxExpire = transitionCommand('expire');

/** `paycli sandbox list`: one page of transactions, newest first (`--all`: every page, by a stable cursor). */
export const sandboxList: Handler<SandboxFlags> = async (env) => {
  const limit = env.opts.limit ?? '100';
  if (!/^\d+$/.test(limit) || Number(limit) < 1 || Number(limit) > 1000) throw new UsageError(`invalid --limit "${limit}": 1 to 1000`);
  const list: Record<string, unknown>[] = [];
  let after = '';
  let total = 0;
  let more = false;
  for (;;) {
    const q = new URLSearchParams({ limit, ...(after ? { after } : {}), ...(env.opts.status ? { status: env.opts.status } : {}) });
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
    env.out.info(env.opts.status ? `no ${env.opts.status} transactions` : 'no transactions yet: create one with `paycli --env local pay …`');
    return 'ok';
  }
  const rows = list.map((t) => {
    const cbs = (t.callbacks as { state: string }[]) ?? [];
    return [String(t.id), String(t.statusLabel ?? t.status), `${t.via}/${t.channel}`, rupiah(t.amount as number), String(t.paymentNo), String(t.referenceId), cbs.map((c) => c.state).join(',') || '-'];
  });
  env.out.out(env.out.table(rows, ['ID', 'STATUS', 'METHOD', 'AMOUNT', 'PAYMENT NO', 'REFERENCE', 'CALLBACKS'], (s) => env.out.c.bold(s)));
  if (more) env.out.info(env.out.e.dim(`the newest ${list.length} of ${total}; --all for every page, --limit N for bigger pages`));
  return 'ok';
};

/** Opens a stopped emulator's data dir (refused, naming the running one, when it is in use). */
async function withDataDir<R>(env: CommandEnv<SandboxFlags>, fn: (opened: import('../../core/sandbox/datadir.js').OpenedDataDir) => Promise<R>): Promise<R> {
  const { openDataDir } = await import('../../core/sandbox/datadir.js');
  const { processLockOwner } = await import('../../sandbox.js');
  const opened = await openDataDir(sandboxDir(env), processLockOwner());
  try {
    return await fn(opened);
  } finally {
    await opened.close();
  }
}

/** `paycli sandbox seed --payments N`: bulk synthetic history, into a stopped emulator's data dir or through a running one. */
export const sandboxSeed: Handler<SandboxFlags> = async (env) => {
  const { readSeedSpec, seedLedger } = await import('../../core/sandbox/bulk.js');
  const read = readSeedSpec({ payments: env.opts.payments, paid: env.opts.paid, days: env.opts.days });
  if (!read.ok) throw new UsageError(`invalid seed: ${read.error}`);
  const started = Date.now();
  let seeded: number;
  let where: string;
  if (env.opts.sandboxUrl) {
    const q = new URLSearchParams({ payments: String(read.spec.payments), paid: String(read.spec.paid), days: String(read.spec.days) });
    const { status, json } = await adminCall(env, 'POST', `/_sandbox/seed?${q}`, 3_600_000);
    if (status !== 200) throw new GatewayError(status, String(json.error ?? `the emulator answered ${status}`));
    seeded = Number(json.seeded);
    where = sandboxAdminBase(env.opts.sandboxUrl, env.ctx.env);
  } else {
    const { DEFAULT_ACCOUNT } = await import('../../core/sandbox/accounts.js');
    ({ seeded, where } = await withDataDir(env, async ({ state, dir }) => ({
      seeded: await state.bulkLoad(() => seedLedger(state, { ...read.spec, va: env.opts.va ?? DEFAULT_ACCOUNT.va, merchantName: DEFAULT_ACCOUNT.name, now: env.ctx.now().getTime() })),
      where: dir,
    })));
  }
  const seconds = (Date.now() - started) / 1000;
  if (env.out.json) env.out.data({ seeded, where, seconds });
  else env.out.out(`seeded ${seeded} payments (${Math.round(read.spec.paid * 100)} % paid, over ${read.spec.days} days) into ${where} in ${seconds.toFixed(1)} s`);
  return 'ok';
};

/** `paycli sandbox export`: the ledger as JSONL on stdout. */
export const sandboxExport: Handler<SandboxFlags> = async (env) => {
  if (env.opts.sandboxUrl) {
    // Streamed as it comes (an export has no size bound to read it whole under).
    const base = sandboxAdminBase(env.opts.sandboxUrl, env.ctx.env);
    let res: Response;
    try {
      res = await fetch(`${base}/_sandbox/export`, { headers: { accept: 'application/x-ndjson' }, signal: env.ctx.interrupts() });
    } catch (err) {
      throw new NetworkError(`cannot reach the emulator at ${base}: ${describeSendError((err as { cause?: unknown }).cause ?? err)}`, { hint: 'start it with `paycli sandbox`, or check --sandbox-url' });
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
  const r = await withDataDir(env, ({ state }) => state.bulkLoad(() => importLedger(state, file)));
  if (env.out.json) env.out.data(r);
  else {
    const { formatDuration } = await import('../../core/duration.js');
    env.out.out(`imported ${r.payments} transactions and ${r.sessions} redirect sessions into ${sandboxDir(env)}${r.skipped ? ` (${r.skipped} unreadable lines skipped)` : ''}; the clock ${r.clockOffsetMs > 0 ? `is ${formatDuration(r.clockOffsetMs)} ahead of real time` : 'is real time'}`);
  }
  return 'ok';
};

/** `paycli sandbox reset --yes [--keep-clock]`: empties the ledger and sets the clock back to real time (accounts stay; ids go on from where they were). */
export const sandboxReset: Handler<SandboxFlags & { keepClock?: boolean }> = async (env) => {
  if (!env.opts.yes) throw new UsageError('`sandbox reset` deletes every transaction and callback of the emulator; add --yes to do it', { hint: 'keep a copy first with `paycli sandbox export > ledger.jsonl`' });
  let r: { removed: number; offsetMs: number };
  let where: string;
  if (env.opts.sandboxUrl) {
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
  else env.out.out(`removed ${r.removed} transactions from ${where}; the clock ${r.offsetMs > 0 ? `stays ${formatDuration(r.offsetMs)} ahead of real time` : 'is real time'}`);
  return 'ok';
};

/** `paycli sandbox clock [advance DURATION | set TIME]`: shows or moves the emulator's clock (forward only). */
export const sandboxClock: Handler<SandboxFlags> = async (env, verb?: string, value?: string) => {
  let res;
  if (verb === undefined) res = await adminCall(env, 'GET', '/_sandbox/clock');
  else if (verb === 'advance' || verb === 'set') {
    if (value === undefined) throw new UsageError(`clock ${verb} needs a ${verb === 'advance' ? 'duration (e.g. 25h, 30m, 7d)' : 'time (e.g. 2026-12-01T10:00+07:00)'}`);
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
  if (status !== 200) throw new GatewayError(status, String(json.error ?? `the emulator answered ${status}`), status === 409 ? { hint: 'the clock only moves forward; restart with a new --data-dir to start over' } : undefined);
  const clock = json.clock as { now: string; offsetMs: number };
  if (env.out.json) env.out.data(json);
  else {
    const { formatDuration } = await import('../../core/duration.js');
    env.out.out(`${wib(new Date(clock.now))} WIB${clock.offsetMs > 0 ? ` (${formatDuration(clock.offsetMs)} ahead of real time)` : ' (real time)'}`);
  }
  return 'ok';
};

// ── Definition ──────────────────────────────────────────────────────────────────────────────────

const defineSandbox: Define = (program, bind) => {
  const sandbox = topCommand(program, 'sandbox')
    .option('--port <port>', 'port to listen on, 0 for any free port (PAYCLI_SANDBOX_PORT; default 4010)')
    .option('--host <host>', 'address to bind (PAYCLI_SANDBOX_HOST; default 127.0.0.1)')
    .option('--allow-host <name>', 'also answer requests whose Host is this name, e.g. a Compose service name (repeatable; PAYCLI_SANDBOX_ALLOW_HOSTS, comma-separated)', collect)
    .option('--data-dir <dir>', 'where state and the callback outbox live (default $XDG_DATA_HOME/paycli/sandbox)')
    .option('--in-memory', 'keep state in memory only (nothing on disk)')
    .option('--accounts <file>', 'JSON array of merchants: {va, apiKey, active, name, callbackFormat}')
    .addOption(new Option('--callback-format <format>', 'callback body format').choices(['form', 'json']))
    .option('--retry-schedule <list>', 'delays between callback attempts (default 500ms,1s,2s,5s,10s,30s,1m,5m)')
    .option('--faults <list>', 'duplicate, delay=2s, concurrent-duplicate=N, api-500=RATE[@PATH], api-timeout=RATE[@PATH], api-slow=DURATION[@PATH]')
    .option('--no-dashboard', 'do not serve the dashboard (by default at / on the loopback address)')
    .addOption(new Option('--settlement <mode>', 'paid callbacks settle immediately (settled, code 1) or deferred (unsettle, code 6)').choices(['immediate', 'deferred']))
    .option('--ready-file <path>', 'once the port accepts connections, write {url, baseUrl, dashboardUrl, va, apiKey} there as JSON, atomically (PAYCLI_SANDBOX_READY_FILE)');
  sandbox.addHelpText(
    'after',
    [
      '',
      'Environment (for containers; a flag wins): PAYCLI_SANDBOX_PORT, _HOST,',
      '_ALLOW_HOSTS, _VA, _API_KEY or _API_KEY_FILE, _DATA_DIR, _IN_MEMORY, _ACCOUNTS,',
      '_CALLBACK_FORMAT, _RETRY_SCHEDULE, _FAULTS, _SETTLEMENT, _DASHBOARD,',
      '_READY_FILE.',
      '',
    ].join('\n'),
  );
  examples(sandbox, ['paycli sandbox', 'paycli sandbox --port 0 --in-memory --json', 'paycli sandbox --va 1234567890 --api-key-file key.txt --callback-format json', 'paycli sandbox --retry-schedule 100ms,1s --faults duplicate', 'paycli sandbox --host 0.0.0.0 --ready-file /tmp/paycli-ready.json']);
  bind(sandbox, sandboxServe);
  const sandboxUrl = <A extends unknown[], O extends OptionValues>(cmd: TypedCommand<A, O>) => cmd.option('--sandbox-url <url>', 'the running emulator (PAYCLI_SANDBOX_URL)');
  bind(examples(sandboxUrl(sandbox.command('pay <id>').description('simulate the buyer paying (transaction id or payment number); sends the callback')), ['paycli sandbox pay 100001', 'paycli sandbox pay 8868000000100001 --json']), sandboxPay);
  bind(examples(sandboxUrl(sandbox.command('expire <id>').description('let a pending payment expire; sends the callback')), ['paycli sandbox expire 100001', 'paycli sandbox expire 100002 --sandbox-url http://127.0.0.1:5000']), sandboxExpire);
  bind(examples(sandboxUrl(sandbox.command('cancel <id>').description('cancel a pending payment (batal, 2); sends the callback')), ['paycli sandbox cancel 100001', 'paycli sandbox cancel 8868000000100001 --json']), sandboxCancel);
  bind(examples(sandboxUrl(sandbox.command('fail <id>').description('make a pending payment fail (gagal, 5; --error: 4); sends the callback').option('--error', 'end in error (4) instead of failed (5)')), ['paycli sandbox fail 100001', 'paycli sandbox fail 100001 --error']), sandboxFail);
  bind(examples(sandboxUrl(sandbox.command('refund <id>').description('refund a paid payment (3): the money leaves the balance; sends the callback')), ['paycli sandbox refund 100001', 'paycli sandbox refund 100001 --sandbox-url http://127.0.0.1:4020']), sandboxRefund);
  bind(examples(sandboxUrl(sandbox.command('settle <id>').description('settle a paid-unsettled payment now (6 → 1); sends the callback')), ['paycli sandbox settle 100001', 'paycli sandbox settle 100001 --json']), sandboxSettle);
  bind(examples(sandboxUrl(sandbox.command('release <id>').description('release an escrow payment (7 → paid); sends the callback')), ['paycli sandbox release 100001', 'paycli sandbox release 100001 --json']), sandboxRelease);
  bind(examples(sandboxUrl(sandbox.command('resend <id>').description('send a payment\'s callback again now (--to: to another URL)').option('--to <url>', 'send it to this URL instead of the notify URL')), ['paycli sandbox resend 100001', 'paycli sandbox resend 100001 --to http://127.0.0.1:9000/callback', 'paycli sandbox resend 8868000000100001 --json']), sandboxResend);
  bind(examples(sandboxUrl(sandbox.command('logs').description('show the running emulator\'s API request log (why a request was refused)').option('--follow', 'keep printing new requests until Ctrl-C')), ['paycli sandbox logs', 'paycli sandbox logs --follow', 'paycli sandbox logs --json | jq -c \'select(.status == 401) | .auth\'']), sandboxLogs);
  bind(examples(sandboxUrl(sandbox.command('clock [verb] [value]').description('show the emulator\'s clock, or move it: advance DURATION | set TIME (forward only)')), ['paycli sandbox clock', 'paycli sandbox clock advance 25h', 'paycli sandbox clock set 2026-12-01T10:00+07:00']), sandboxClock);
  bind(examples(sandboxUrl(sandbox.command('health').description('exit 0 when the emulator answers, 5 otherwise (for container health checks and scripts)')), ['paycli sandbox health', 'paycli sandbox health --sandbox-url http://127.0.0.1:4020']), sandboxHealth);
  bind(
    examples(sandboxUrl(sandbox.command('env').description('print shell exports (PAYCLI_ENV, PAYCLI_BASE_URL, PAYCLI_VA, the public key) that aim every command at the running emulator')).addOption(new Option('--shell <shell>', 'syntax of the exports').choices(['sh', 'fish'])), [
      'paycli sandbox env',
      'paycli sandbox env --sandbox-url http://127.0.0.1:4020 --json',
      'eval "$(paycli sandbox env)"',
      'paycli sandbox env --shell fish | source',
    ]),
    sandboxEnv,
  );
  for (const kind of ['ship', 'deliver'] as const) bind(examples(sandboxUrl(sandbox.command(`${kind} <id>`).description(SHIP_HELP[kind].description)), SHIP_HELP[kind].examples), kind === 'ship' ? sandboxShip : sandboxDeliver);
  bind(
    examples(
      sandboxUrl(sandbox.command('list').description('list the emulator\'s transactions and their callbacks, newest first'))
        .option('--limit <n>', 'transactions per page (1-1000)', '100')
        .option('--status <status>', 'only this status: pending, berhasil, expired')
        .option('--all', 'follow every page (NDJSON with --json)'),
      ['paycli sandbox list', 'paycli sandbox list --status pending --all --json'],
    ),
    sandboxList,
  );
  const dataDirFlag = <A extends unknown[], O extends OptionValues>(cmd: TypedCommand<A, O>) => cmd.option('--data-dir <dir>', 'the stopped emulator\'s data dir (default $XDG_DATA_HOME/paycli/sandbox)');
  bind(
    examples(
      dataDirFlag(sandboxUrl(sandbox.command('seed').description('add synthetic history: payments over the last days, a share paid with delivered callbacks')))
        .requiredOption('--payments <n>', 'how many payments')
        .option('--paid <share>', 'share of them paid (0-1)', '0.7')
        .option('--days <n>', 'spread over the last N days', '90'),
      ['paycli sandbox seed --payments 100000', 'paycli sandbox seed --payments 5000 --paid 0.5 --days 30 --sandbox-url http://127.0.0.1:4010'],
    ),
    sandboxSeed,
  );
  bind(examples(dataDirFlag(sandboxUrl(sandbox.command('export').description('write the ledger as JSONL (one payment with its callbacks per line)'))), ['paycli sandbox export > ledger.jsonl', 'paycli sandbox export --sandbox-url http://127.0.0.1:4010 | jq -c .txn.id']), sandboxExport);
  bind(examples(dataDirFlag(sandbox.command('import <file>').description('load a ledger export (or an older journal.jsonl) into a stopped emulator\'s empty ledger')), ['paycli sandbox import ledger.jsonl', 'paycli sandbox import ledger.jsonl --data-dir ./sandbox-data']), sandboxImport);
  bind(
    examples(dataDirFlag(sandboxUrl(sandbox.command('reset').description('empty the ledger (every transaction and callback; accounts stay) and set the clock back to real time'))).option('--yes', 'really delete them').option('--keep-clock', 'leave the clock where it is'), ['paycli sandbox reset --yes', 'paycli sandbox reset --yes --keep-clock --sandbox-url http://127.0.0.1:4010']),
    sandboxReset,
  );
};

export const commands = { sandbox: defineSandbox };
