import { randomBytes } from 'node:crypto';
import { open, rename, unlink } from 'node:fs/promises';
import { UsageError } from '../core/errors.js';
import { EMULATOR_DEFAULT_API_KEY, EMULATOR_DEFAULT_VA } from '../core/config/resolve.js';

/**
 * The emulator as a service (containers, CI): its settings from the environment, the address other
 * programs use to reach it, the ready file, and the shell exports of `paycli sandbox env`.
 */

/** The settings of `paycli sandbox` that the environment may give (a flag always wins). */
export const SANDBOX_ENV = {
  port: 'PAYCLI_SANDBOX_PORT',
  host: 'PAYCLI_SANDBOX_HOST',
  va: 'PAYCLI_SANDBOX_VA',
  dataDir: 'PAYCLI_SANDBOX_DATA_DIR',
  inMemory: 'PAYCLI_SANDBOX_IN_MEMORY',
  accounts: 'PAYCLI_SANDBOX_ACCOUNTS',
  callbackFormat: 'PAYCLI_SANDBOX_CALLBACK_FORMAT',
  retrySchedule: 'PAYCLI_SANDBOX_RETRY_SCHEDULE',
  faults: 'PAYCLI_SANDBOX_FAULTS',
  settlement: 'PAYCLI_SANDBOX_SETTLEMENT',
  readyFile: 'PAYCLI_SANDBOX_READY_FILE',
  dashboard: 'PAYCLI_SANDBOX_DASHBOARD',
  allowHost: 'PAYCLI_SANDBOX_ALLOW_HOSTS',
} as const;

/** The API key's variables: the key itself, or a file holding it (as `--api-key-file`). */
export const SANDBOX_KEY_ENV = { apiKey: 'PAYCLI_SANDBOX_API_KEY', apiKeyFile: 'PAYCLI_SANDBOX_API_KEY_FILE' } as const;

export const SANDBOX_DEFAULT_PORT = 4010;

type Env = Readonly<Record<string, string | undefined>>;

function envBool(env: Env, name: string): boolean | undefined {
  const v = env[name];
  if (v === undefined || v === '') return undefined;
  if (/^(1|true|yes|on)$/i.test(v)) return true;
  if (/^(0|false|no|off)$/i.test(v)) return false;
  throw new UsageError(`invalid ${name}="${v}": true or false`);
}

/**
 * The flags with what the environment adds: each setting a flag did not give is taken from its
 * PAYCLI_SANDBOX_* variable (an empty variable counts as unset).
 */
export function withSandboxEnv<
  O extends {
    allowHost?: string[];
    port?: string;
    host?: string;
    va?: string;
    dataDir?: string;
    inMemory?: boolean;
    accounts?: string;
    callbackFormat?: string;
    retrySchedule?: string;
    faults?: string;
    settlement?: string;
    readyFile?: string;
    dashboard?: boolean;
  },
>(opts: O, env: Env, dashboardFromFlag: boolean): O {
  const out: O = { ...opts };
  const str = (key: 'port' | 'host' | 'va' | 'dataDir' | 'accounts' | 'callbackFormat' | 'retrySchedule' | 'faults' | 'readyFile') => {
    const v = env[SANDBOX_ENV[key]];
    if (out[key] === undefined && v !== undefined && v !== '') (out as Record<string, unknown>)[key] = v;
  };
  for (const key of ['port', 'host', 'va', 'dataDir', 'accounts', 'callbackFormat', 'retrySchedule', 'faults', 'readyFile'] as const) str(key);
  const settlement = env[SANDBOX_ENV.settlement];
  if (out.settlement === undefined && settlement) {
    if (settlement !== 'immediate' && settlement !== 'deferred')
      throw new UsageError(`invalid ${SANDBOX_ENV.settlement}="${settlement}": immediate or deferred`);
    (out as Record<string, unknown>).settlement = settlement;
  }
  if (out.inMemory === undefined) {
    const v = envBool(env, SANDBOX_ENV.inMemory);
    if (v !== undefined) (out as Record<string, unknown>).inMemory = v;
  }
  const hosts = env[SANDBOX_ENV.allowHost];
  if (out.allowHost === undefined && hosts)
    (out as Record<string, unknown>).allowHost = hosts
      .split(',')
      .map((h) => h.trim())
      .filter(Boolean);
  if (!dashboardFromFlag) {
    const v = envBool(env, SANDBOX_ENV.dashboard);
    if (v !== undefined) (out as Record<string, unknown>).dashboard = v;
  }
  return out;
}

/**
 * The emulator's address as another program on this machine reaches it: a wildcard bind
 * (0.0.0.0, ::) is reached on loopback.
 */
export function reachableOrigin(origin: string): string {
  const u = new URL(origin);
  if (u.hostname === '0.0.0.0') u.hostname = '127.0.0.1';
  else if (u.hostname === '[::]') u.hostname = '[::1]';
  return u.origin;
}

/** Where admin commands (`sandbox list|pay|…|health|env`) find the emulator: --sandbox-url, PAYCLI_SANDBOX_URL, else loopback on PAYCLI_SANDBOX_PORT or 4010. */
export function sandboxAdminBase(flag: string | undefined, env: Env): string {
  const port = env[SANDBOX_ENV.port] || String(SANDBOX_DEFAULT_PORT);
  const raw = flag ?? (env.PAYCLI_SANDBOX_URL || `http://127.0.0.1:${port}`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`invalid --sandbox-url "${raw}": an http:// URL such as http://127.0.0.1:4010`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`invalid --sandbox-url "${raw}": an http:// URL such as http://127.0.0.1:4010`);
  return raw.replace(/\/+$/, '').replace(/\/api$/, '');
}

/** What a running emulator tells programs that use it: the ready file, `sandbox env`, the action's outputs. */
export interface SandboxReady {
  url: string;
  baseUrl: string;
  dashboardUrl: string | null;
  va: string;
  /** The documented default key, which is public; null when the merchant has a key of its own (a secret, never written). */
  apiKey: string | null;
}

export function readyInfo(origin: string, dashboardUrl: string | null, va: string, apiKey: string | undefined): SandboxReady {
  const url = reachableOrigin(origin);
  return { url, baseUrl: `${url}/api`, dashboardUrl, va, apiKey: apiKey === EMULATOR_DEFAULT_API_KEY ? apiKey : null };
}

/**
 * Writes the ready file atomically (a temporary file beside it, synced, renamed over it): a reader
 * that sees the file sees all of it. Mode 0600: the VA of a merchant of your own is confidential.
 */
export async function writeReadyFile(path: string, info: SandboxReady): Promise<void> {
  const tmp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    const fh = await open(tmp, 'wx', 0o600);
    try {
      await fh.writeFile(`${JSON.stringify({ event: 'ready', ...info }, null, 2)}\n`);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, path);
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    throw new UsageError(`cannot write --ready-file ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

/** Removes the ready file when the emulator stops (it would otherwise announce an emulator that is gone). */
export async function removeReadyFile(path: string): Promise<void> {
  await unlink(path).catch(() => undefined);
}

/** A value quoted for POSIX shells (single quotes; a quote inside as '\''). */
export function shellQuote(value: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * The variables that aim every paycli command at a running emulator: the environment `local` at its
 * base URL, its merchant's VA, the public default key when the emulator uses it, and the admin URL.
 */
export function sandboxExports(info: { url: string; va: string; defaultKey: boolean }): [string, string][] {
  const vars: [string, string][] = [
    ['PAYCLI_ENV', 'local'],
    ['PAYCLI_BASE_URL', `${info.url}/api`],
    ['PAYCLI_SANDBOX_URL', info.url],
    ['PAYCLI_VA', info.va],
  ];
  if (info.defaultKey) vars.push(['PAYCLI_API_KEY', EMULATOR_DEFAULT_API_KEY]);
  return vars;
}

/** Shell lines that set the variables: POSIX `export` or fish's `set -gx`. */
export function exportLines(vars: [string, string][], shell: 'sh' | 'fish'): string {
  return vars.map(([k, v]) => (shell === 'fish' ? `set -gx ${k} ${shellQuote(v)}` : `export ${k}=${shellQuote(v)}`)).join('\n') + '\n';
}

export { EMULATOR_DEFAULT_VA };

/** The merchant's API key from PAYCLI_SANDBOX_API_KEY_FILE or PAYCLI_SANDBOX_API_KEY (flags are read first, by the caller). */
export async function sandboxEnvApiKey(env: Env): Promise<string | undefined> {
  const file = env[SANDBOX_KEY_ENV.apiKeyFile];
  if (file) {
    const { readFile } = await import('node:fs/promises');
    let key: string;
    try {
      key = (await readFile(file, 'utf8')).trim();
    } catch (err) {
      throw new UsageError(`cannot read ${SANDBOX_KEY_ENV.apiKeyFile} ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
    if (!key) throw new UsageError(`${SANDBOX_KEY_ENV.apiKeyFile} ${file} is empty`);
    return key;
  }
  return env[SANDBOX_KEY_ENV.apiKey] || undefined;
}
