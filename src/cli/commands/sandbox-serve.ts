import { UsageError } from '../../core/errors.js';
import { parseBindHost } from '../../core/http/serve.js';
import { maskApiKey, maskSecret } from '../../core/signing/request-signature.js';
import type { CommandEnv, Handler } from '../command-env.js';
import { parsePort } from '../flag-values.js';
import { fitLineTo } from '../layout.js';
import { terminalWidth, wib } from '../output.js';
import { readyInfo, removeReadyFile, sandboxEnvApiKey, withSandboxEnv, writeReadyFile } from '../sandbox-service.js';
import { sandboxDir, type SandboxFlags } from './sandbox-flags.js';
import { whyLines } from './sandbox-logs.js';
import { invalidVa, isVaNumber } from '../../core/va.js';

/** The emulator's API key as shown: its documented default is public and shown whole, a key of your own as its fingerprint. */
function shownSandboxKey(key: string | undefined, defaultKey: string): string {
  return key === defaultKey ? key : maskApiKey(key);
}

/** The log's clock: HH:MM:SS in WIB (the banner says so). */

function time(d: Date): string {
  return wib(d, 'time');
}

/** The banner's advice: one line that aims every command at this emulator, whatever its port. */
function useIt(url: string): string {
  return url === 'http://127.0.0.1:4010' ? 'eval "$(paycli sandbox env)"  (or paycli --env local …)' : `eval "$(paycli sandbox env --sandbox-url ${url})"`;
}

type SandboxOptions = NonNullable<Parameters<typeof import('../../sandbox.js').startSandbox>[0]>;
type SandboxHandle = Awaited<ReturnType<typeof import('../../sandbox.js').startSandbox>>;
type SandboxEvent = Parameters<NonNullable<SandboxOptions['onEvent']>>[0];
interface Counts {
  requests: number;
  callbacks: number;
  delivered: number;
  failed: number;
}

/** The emulator's options from the flags (and PAYCLI_SANDBOX_*): every one checked before any state is opened. */
async function serveOptions(env: CommandEnv<SandboxFlags>, opts: SandboxFlags & { va?: string }): Promise<SandboxOptions> {
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
    throw new UsageError(`invalid --faults: ${(err as Error).message}`, {
      hint: 'faults: duplicate, delay=DURATION, concurrent-duplicate=N, api-500=RATE[@PATH], api-timeout=RATE[@PATH], api-slow=DURATION[@PATH]',
    });
  }
  if (opts.va !== undefined && !isVaNumber(opts.va)) throw invalidVa('--va');
  const host = parseBindHost(opts.host ?? '127.0.0.1'); // before any state is opened
  const accounts = opts.accounts ? await readAccountsFile(opts.accounts) : undefined;
  const apiKey = (await env.session.flagApiKey()) ?? (await sandboxEnvApiKey(env.ctx.env));
  if (opts.va !== undefined && apiKey === undefined && !accounts) {
    throw new UsageError("--va needs --api-key or --api-key-file: the emulator's merchant must have an API key to sign with", {
      hint: 'or omit both to use the documented default merchant',
    });
  }
  return {
    port: parsePort(opts.port, 4010),
    host,
    dataDir: opts.inMemory ? undefined : sandboxDir(env),
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
  };
}

/** The running emulator's log: one line (or JSON line) per request, transition and callback attempt, counted. */
function eventLog(env: CommandEnv<SandboxFlags>, counts: Counts): (e: SandboxEvent) => void {
  const { out, ctx } = env;
  return (e) => {
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
      out.out(
        out.fitLine(
          `${t} `,
          `callback trx ${e.trxId} ${e.status} → ${e.url} attempt ${e.attempt}${e.duplicate ? ' (duplicate fault)' : ''}: ${e.result}${e.ms !== undefined ? ` ${e.ms}ms` : ''} · ${verdict}`,
        ),
      );
    }
  };
}

/** What the start found in the data dir, as notes under the banner. */
function startupNotes(startup: SandboxHandle['startup']): string[] {
  const notes: string[] = [];
  if (startup.migrated !== undefined)
    notes.push(
      `imported ${startup.migrated} transaction${startup.migrated === 1 ? '' : 's'} from an older version's journal.jsonl (kept as journal.jsonl.migrated)`,
    );
  if (startup.skippedLines > 0) notes.push(`${startup.skippedLines} unreadable journal line${startup.skippedLines === 1 ? '' : 's'} skipped`);
  if (startup.reconciled > 0) notes.push(`${startup.reconciled} callback${startup.reconciled === 1 ? '' : 's'} queued for transitions that had none`);
  return notes;
}

/** The banner: where the emulator is and how to use it (stderr; one JSON line with --json). */
async function printBanner(
  env: CommandEnv<SandboxFlags>,
  sandbox: SandboxHandle,
  dir: string | undefined,
  dashboardFlag: boolean | undefined,
  readyUrl: string,
): Promise<void> {
  const { out, ctx } = env;
  const main = sandbox.accounts[0]!;
  const defaults = await import('../../core/config/resolve.js');
  const apiKey = shownSandboxKey(main.apiKey, defaults.EMULATOR_DEFAULT_API_KEY);
  if (out.json) {
    out.data(
      {
        event: 'started',
        url: sandbox.url,
        baseUrl: sandbox.apiUrl,
        dashboard: sandbox.dashboardUrl,
        va: main.va,
        apiKey,
        accounts: sandbox.accounts.length,
        dataDir: dir ?? null,
        transactions: sandbox.state.count(),
        regions: sandbox.regions.counts,
        skippedLines: sandbox.startup.skippedLines,
        reconciled: sandbox.startup.reconciled,
        ...(sandbox.startup.migrated !== undefined ? { migrated: sandbox.startup.migrated } : {}),
      },
      false,
    );
    return;
  }
  // Fits the terminal: a long data-dir path or note wraps under its label.
  const width = ctx.stderrIsTTY ? terminalWidth(ctx.columns) : undefined;
  const line = (label: string, text: string) => fitLineTo(width, `  ${label.padEnd(11)}`, text);
  ctx.stderr.write(
    [
      out.e.bold('paycli sandbox') + ` — offline iPaymu emulator`,
      line('base URL', sandbox.apiUrl),
      line('use it', useIt(readyUrl)),
      // The documented default VA is public; a merchant's own VA is masked like everywhere else.
      line('VA', main.va === defaults.EMULATOR_DEFAULT_VA ? main.va : maskSecret(main.va)),
      line('API key', `${apiKey}${main.apiKey === defaults.EMULATOR_DEFAULT_API_KEY ? ' (public default; --env local uses it)' : ''}`),
      line('state', `${dir ?? 'in memory'} (${sandbox.state.count()} transactions)`),
      ...startupNotes(sandbox.startup).map((n) => fitLineTo(width, `  ${out.e.yellow('note')}${' '.repeat(7)}`, n)),
      line('dashboard', sandbox.dashboardUrl ?? (dashboardFlag === false ? 'off (--no-dashboard)' : 'off (served on loopback addresses only)')),
      line('admin', 'paycli sandbox list | pay | cancel | refund | settle | release | ship | deliver ID | clock'),
      line('log times', 'WIB (Asia/Jakarta); Ctrl-C to stop'),
      '',
    ].join('\n'),
  );
}

/** `paycli sandbox`: runs the emulator until Ctrl-C. */
export const sandboxServe: Handler<SandboxFlags> = async (env) => {
  const { out, ctx } = env;
  // PAYCLI_SANDBOX_* give what no flag gave (containers configure through the environment).
  const opts = withSandboxEnv(env.opts, ctx.env, env.opts.dashboard === false);
  const { startSandbox } = await import('../../sandbox.js');
  const options = await serveOptions(env, opts);
  const counts: Counts = { requests: 0, callbacks: 0, delivered: 0, failed: 0 };
  const sandbox = await startSandbox({ ...options, onEvent: eventLog(env, counts) }).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'EADDRINUSE')
      throw new UsageError(`port ${opts.port ?? 4010} is already in use`, { hint: 'stop the other process or pick another --port (0 for any free port)' });
    if (err.code === 'EACCES') throw new UsageError(`no permission to listen on port ${opts.port ?? 4010}`);
    throw err;
  });
  // Listen for Ctrl-C / SIGTERM before the banner says it started: a stop right after it is a clean stop.
  const signal = ctx.interrupts();
  const main = sandbox.accounts[0]!;
  const ready = readyInfo(sandbox.url, sandbox.dashboardUrl, main.va, main.apiKey);
  await printBanner(env, sandbox, options.dataDir, opts.dashboard, ready.url);
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
  else
    ctx.stderr.write(
      `\nstopped: ${counts.requests} requests, ${counts.callbacks} callback attempts (${counts.delivered} delivered, ${counts.failed} gave up)\n`,
    );
  return signal.reason === 'SIGINT' ? 'interrupted' : 'ok';
};
