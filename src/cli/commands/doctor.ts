import { spawn, type ChildProcess } from 'node:child_process';
import { childEnv } from '../child-env.js';
import { createServer } from 'node:net';
import { dirname } from 'node:path';
import { modeOf } from '../../core/config/secure-file.js';
import { findProjectConfig } from '../../core/config/project-file.js';
import { maskApiKey, maskSecret } from '../../core/signing/request-signature.js';
import { redactUrl } from '../../core/http/client.js';
import { EMULATOR_DEFAULT_API_KEY, type ResolvedConfig } from '../../core/config/resolve.js';
import type { CommandEnv, Handler } from '../command-env.js';
import { PaycliError } from '../../core/errors.js';
import { joinUrl } from '../../core/api/signed-request.js';
import { checkRegionsData } from '../../core/http/envelope.js';
import { VERSION } from '../version.js';
import { examples, type Define } from '../command-kit.js';
import { topCommand } from './heads.js';

/** How long doctor waits for each network check. */
const CHECK_TIMEOUT_MS = 5000;

type Status = 'ok' | 'warn' | 'fail' | 'skip';
interface Check {
  check: string;
  status: Status;
  detail: string;
}

function portFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, host, () => s.close(() => resolve(true)));
  });
}

function nodeCheck(version: string): Check {
  const [maj, min] = version.replace(/^v/, '').split('.').map(Number) as [number, number];
  const ok = maj > 20 || (maj === 20 && min >= 19);
  return { check: 'Node.js', status: ok ? 'ok' : 'fail', detail: `${version}${ok ? '' : ' (paycli needs >= 20.19)'}` };
}

/** The SQLite driver both stores use: it loads on this Node, and its native build survives the garbage collector. */
async function sqliteCheck(): Promise<Check> {
  const { probeSqliteDriver } = await import('../sqlite-probe.js');
  const probe = await probeSqliteDriver();
  return { check: 'SQLite', status: probe.status === 'ok' ? 'ok' : 'fail', detail: probe.detail };
}

async function fileChecks(env: CommandEnv): Promise<Check[]> {
  const path = env.session.userPath;
  const mode = await modeOf(path);
  if (mode === undefined) return [{ check: 'user config', status: 'warn', detail: `${path} does not exist (run \`paycli config init\`)` }];
  const dirMode = await modeOf(dirname(path));
  const checks: Check[] = [
    {
      check: 'user config',
      status: (mode & 0o077) === 0 ? 'ok' : 'fail',
      detail: `${path} mode ${mode.toString(8).padStart(4, '0')}${(mode & 0o077) === 0 ? '' : ' — holds secrets: chmod 600 it'}`,
    },
  ];
  if (dirMode !== undefined)
    checks.push({
      check: 'config directory',
      status: (dirMode & 0o077) === 0 ? 'ok' : 'warn',
      detail: `${dirname(path)} mode ${dirMode.toString(8).padStart(4, '0')}${(dirMode & 0o077) === 0 ? '' : ' — chmod 700 it'}`,
    });
  return checks;
}

/**
 * What git runs with in a repository that is not paycli's: the repository's config must not run a
 * program (core.fsmonitor is a command git runs on index refresh; a pager, a textconv filter), and
 * nothing git or such a program starts sees the key: no PAYCLI_* variable, no variable holding it.
 */
export const GIT_SAFE_ARGS = ['--no-pager', '-c', 'core.fsmonitor=false', '-c', 'core.pager=cat', '-c', 'diff.external=', 'grep', '--no-textconv'];

/** The environment for git: the run's, without PAYCLI_* variables, pager/diff programs or any value holding the key. */
export function gitEnv(env: NodeJS.ProcessEnv, secret: string): NodeJS.ProcessEnv {
  return childEnv(env, [secret], /^(GIT_EXTERNAL_DIFF|GIT_PAGER|PAGER)$/);
}

/**
 * Runs `git grep` for a fixed string given on its standard input (`-f -`), never on its command
 * line: a process's argv is readable by every local user (ps, /proc/PID/cmdline).
 */
function gitGrep(cwd: string, secret: string, env: NodeJS.ProcessEnv): Promise<{ code: number | string; stdout: string }> {
  return new Promise((resolve) => {
    let child: ChildProcess;
    try {
      child = spawn('git', [...GIT_SAFE_ARGS, '-l', '-F', '-f', '-'], { cwd, env: gitEnv(env, secret), stdio: ['pipe', 'pipe', 'ignore'], timeout: 10_000 });
    } catch (err) {
      resolve({ code: (err as NodeJS.ErrnoException).code ?? 'ERROR', stdout: '' });
      return;
    }
    let stdout = '';
    child.stdout!.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stdin!.on('error', () => undefined); // git may exit before reading (not a repository)
    child.stdin!.end(secret + '\n');
    child.once('error', (err: NodeJS.ErrnoException) => resolve({ code: err.code ?? 'ERROR', stdout }));
    child.once('close', (code) => resolve({ code: code ?? 'SIGNAL', stdout }));
  });
}

async function gitCheck(env: CommandEnv, apiKey: string | undefined): Promise<Check> {
  if (!apiKey) return { check: 'API key in git', status: 'skip', detail: 'no API key configured' };
  // The emulator's default key is published (README, `paycli sandbox`'s banner) and opens nothing
  // but a local emulator: finding it in a repository is no leak and nothing to rotate.
  if (apiKey === EMULATOR_DEFAULT_API_KEY)
    return { check: 'API key in git', status: 'ok', detail: "the emulator's published default key: not a secret, not looked for" };
  const { code, stdout } = await gitGrep(env.ctx.cwd, apiKey, { ...process.env, ...env.ctx.env } as NodeJS.ProcessEnv);
  if (code === 0) {
    const files = stdout.trim().split('\n').filter(Boolean);
    return { check: 'API key in git', status: 'fail', detail: `found in tracked files: ${files.join(', ')} — remove it and rotate the key` };
  }
  if (code === 1) return { check: 'API key in git', status: 'ok', detail: 'not in any tracked file' };
  return { check: 'API key in git', status: 'skip', detail: code === 'ENOENT' ? 'git not installed' : 'not a git repository' };
}

/**
 * Reaches the base URL through the same transport as every API command (createHttpClient: the same
 * proxy rules from HTTPS_PROXY/HTTP_PROXY/NO_PROXY), unsigned, then — with credentials — sends one
 * signed lookup through the core API client, so doctor and the real commands cannot disagree.
 */
async function networkChecks(env: CommandEnv, cfg: ResolvedConfig): Promise<Check[]> {
  const { createHttpClient, describeNetworkError } = await import('../../core/http/client.js');
  const { ApiClient } = await import('../../core/api/client.js');
  const { ctx } = env;
  const url = cfg.baseUrl.value;
  const http = await createHttpClient({
    timeoutMs: CHECK_TIMEOUT_MS,
    userAgent: `paycli/${VERSION} doctor`,
    env: ctx.env,
    dispatcher: ctx.dispatcher,
    getRetries: 0,
  });
  const checks: Check[] = [];
  try {
    const started = Date.now();
    let res;
    try {
      res = await http.send({ method: 'GET', url: joinUrl(url, 'areas/province'), headers: { accept: 'application/json' }, signal: ctx.interrupts() });
    } catch (err) {
      if (err instanceof PaycliError && err.kind === 'interrupted') throw err;
      const cause = err instanceof PaycliError && err.cause !== undefined ? err.cause : err;
      return [{ check: 'base URL', status: 'fail', detail: `${redactUrl(url)}: ${describeNetworkError(cause, CHECK_TIMEOUT_MS)}` }];
    }
    const ms = Date.now() - started;
    checks.push({
      check: 'base URL',
      status: 'ok',
      detail: `${redactUrl(url)} answered HTTP ${res.status} in ${ms} ms${url.startsWith('https:') ? ' (TLS ok)' : ''}`,
    });
    const date = res.headers.date;
    if (typeof date === 'string') {
      const offset = Math.round((Date.parse(date) - (started + ms / 2)) / 1000);
      checks.push({
        check: 'clock offset',
        status: Math.abs(offset) <= 60 ? 'ok' : 'warn',
        detail: `${offset >= 0 ? '+' : ''}${offset} s against the server's Date header`,
      });
    } else checks.push({ check: 'clock offset', status: 'skip', detail: 'the server sent no Date header' });
    if (!cfg.va || !cfg.apiKey) {
      checks.push({ check: 'signed request', status: 'skip', detail: 'no credentials to sign with' });
      return checks;
    }
    const credentials = { va: cfg.va.value, apiKey: cfg.apiKey.value };
    const api = new ApiClient({ baseUrl: url, credentials: () => credentials, http, now: () => ctx.now(), signal: () => ctx.interrupts() });
    try {
      await api.call('GET', 'areas/province', undefined, { checkData: checkRegionsData });
      checks.push({ check: 'signed request', status: 'ok', detail: `GET areas/province accepted with VA ${maskSecret(credentials.va)}` });
    } catch (err) {
      if (!(err instanceof PaycliError) || err.kind === 'interrupted') throw err;
      checks.push({ check: 'signed request', status: 'fail', detail: err.message });
    }
    return checks;
  } finally {
    await http.close();
  }
}

/** `paycli doctor`: checks the setup and says what to fix. Exit 4 when a check fails. */
export const doctorCommand: Handler<{ offline?: boolean }> = async (env) => {
  const { ctx, out, session, opts } = env;
  const checks: Check[] = [nodeCheck(process.version), await sqliteCheck()];
  let cfg: ResolvedConfig | undefined;
  try {
    cfg = await session.config();
    checks.push({ check: 'environment', status: 'ok', detail: `${cfg.env.value} (${cfg.env.origin}), base URL ${redactUrl(cfg.baseUrl.value)}` });
    const { project, notes } = await findProjectConfig(ctx.cwd, ctx.homedir);
    checks.push({
      check: 'project config',
      status: notes.length ? 'warn' : 'ok',
      detail: `${project ? `${project.filepath}, no secret in it` : 'none found'}${notes.length ? `; ${notes.length} code config${notes.length === 1 ? '' : 's'} ignored (${notes.map((n) => n.split(' ignored:')[0]).join(', ')}): paycli reads JSON and YAML only` : ''}`,
    });
  } catch (err) {
    checks.push({ check: 'configuration', status: 'fail', detail: (err as Error).message });
  }
  checks.push(...(await fileChecks(env)));
  if (cfg) {
    checks.push({
      check: 'VA',
      status: cfg.va ? 'ok' : 'fail',
      detail: cfg.va ? `${maskSecret(cfg.va.value)} from ${cfg.va.origin}` : 'not set (--va, PAYCLI_VA or `paycli config set va …`)',
    });
    checks.push({
      check: 'API key',
      status: cfg.apiKey ? 'ok' : 'fail',
      detail: cfg.apiKey ? `${maskApiKey(cfg.apiKey.value)} from ${cfg.apiKey.origin}` : 'not set (PAYCLI_API_KEY or `paycli config set api-key -`)',
    });
    checks.push(await gitCheck(env, cfg.apiKey?.value));
    if (opts.offline) checks.push({ check: 'base URL', status: 'skip', detail: '--offline' });
    else checks.push(...(await networkChecks(env, cfg)));
  }
  const proxies = ['HTTPS_PROXY', 'HTTP_PROXY', 'NO_PROXY'].map((k) => [k, ctx.env[k] ?? ctx.env[k.toLowerCase()]] as const).filter(([, v]) => v);
  checks.push({
    check: 'proxy',
    status: 'ok',
    detail: proxies.length ? proxies.map(([k, v]) => `${k}=${k === 'NO_PROXY' ? v : redactUrl(v!)}`).join(' ') : 'none',
  });
  for (const [name, port] of [
    ['listen port', 8080],
    ['emulator port', 4010],
  ] as const) {
    const free = await portFree(port);
    checks.push({ check: name, status: free ? 'ok' : 'warn', detail: free ? `${port} is free` : `${port} is in use (another paycli listen/sandbox?)` });
  }
  const failed = checks.filter((c) => c.status === 'fail').length;
  if (out.json) out.data({ ok: failed === 0, checks });
  else {
    const c = out.c;
    const mark: Record<Status, string> = { ok: c.green('✓'), warn: c.yellow('!'), fail: c.red('✗'), skip: c.dim('-') };
    out.out(out.table(checks.map((k) => [mark[k.status], k.check, k.detail])));
    out.out(failed ? c.red(`\n${failed} check${failed === 1 ? '' : 's'} failed`) : c.green('\nall checks passed'));
  }
  return failed ? 'auth' : 'ok';
};

// ── Definition ──────────────────────────────────────────────────────────────────────────────────

export const commands: Record<'doctor', Define> = {
  doctor: (program, bind) =>
    bind(
      examples(topCommand(program, 'doctor').option('--offline', 'skip the network checks'), ['paycli doctor', 'paycli --env local doctor --json']),
      doctorCommand,
    ),
};
