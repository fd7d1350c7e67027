import { readFileSync } from 'node:fs';
import { AuthError, UsageError } from '../errors.js';
import { writeSecureFile } from './secure-file.js';
import { parseHttpUrl } from '../http/serve.js';
import { isLoopbackUrl } from '../http/loopback.js';
import { fsError } from '../fs-errors.js';
import { parseDuration } from '../duration.js';
import { invalidVa, isVaNumber } from '../va.js';

/** Settings a profile (and partly the project config) can hold. */
export interface Settings {
  env?: string;
  va?: string;
  apiKey?: string;
  baseUrl?: string;
  timeout?: number;
  notifyUrl?: string;
}

export interface UserConfig {
  defaultProfile?: string;
  profiles: Record<string, Settings>;
  [other: string]: unknown;
}

/** The public names of settings (`paycli config set <key>`) and their fields. */
export const SETTING_KEYS = {
  env: 'env',
  va: 'va',
  'api-key': 'apiKey',
  'base-url': 'baseUrl',
  timeout: 'timeout',
  'notify-url': 'notifyUrl',
} as const satisfies Record<string, keyof Settings>;
export type SettingKey = keyof typeof SETTING_KEYS;

export const ENVIRONMENTS = ['sandbox', 'production', 'local'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

export const BASE_URLS: Record<Environment, string> = {
  production: 'https://my.ipaymu.com/api',
  sandbox: 'https://sandbox.ipaymu.com/api',
  local: 'http://127.0.0.1:4010/api',
};

/** The longest request timeout: Node's timers fire at once beyond 2^31-1 ms (about 24.8 days). */
export const MAX_TIMEOUT_MS = 2_147_483_647;

/**
 * A request timeout: a bare number is milliseconds (`30000`), or a duration with its unit
 * (`500ms`, `30s`, `5m`, `2h`, `1d`), above 0 and at most MAX_TIMEOUT_MS.
 */
export function parseTimeoutMs(value: string): number {
  let n: number;
  try {
    n = parseDuration(String(value).trim(), { maxMs: Number.MAX_SAFE_INTEGER });
  } catch {
    n = NaN;
  }
  if (!(n > 0)) throw new UsageError(`invalid timeout "${value}": expected milliseconds (30000) or a duration (500ms, 30s, 5m, 2h), above 0`);
  if (n > MAX_TIMEOUT_MS) throw new UsageError(`invalid timeout "${value}": at most ${MAX_TIMEOUT_MS} ms (about 24.8 days)`);
  return n;
}

/** Checks and converts one setting value given as text; throws a UsageError naming the key. */
export function parseSetting(key: string, value: string): string | number {
  switch (key) {
    case 'env':
      if (!(ENVIRONMENTS as readonly string[]).includes(value))
        throw new UsageError(`invalid environment "${value}"`, { hint: `use one of: ${ENVIRONMENTS.join(', ')}` });
      return value;
    case 'timeout':
      return parseTimeoutMs(value);
    case 'base-url':
    case 'notify-url': {
      const url = parseHttpUrl(value, key);
      if (key === 'base-url' && url.protocol === 'http:' && !isLoopbackUrl(value)) {
        throw new UsageError(`refusing plain http for the base URL ${url.origin}: the VA and signed requests would travel unencrypted`, {
          hint: 'use https, or http only on a loopback address (127.0.0.1, ::1, localhost)',
        });
      }
      return key === 'base-url' ? value.replace(/\/+$/, '') : value;
    }
    case 'va':
      if (!isVaNumber(value.trim())) throw invalidVa('VA');
      return value.trim();
    case 'api-key':
      if (value.trim() === '') throw new UsageError('the API key is empty');
      return value.trim();
    default:
      throw new UsageError(`unknown setting "${key}"`, { hint: `settings: ${Object.keys(SETTING_KEYS).join(', ')}` });
  }
}

/** Reads the user config and its text (for line numbers); a missing file is an empty config. */
export async function readUserConfig(path: string): Promise<{ config: UserConfig; text?: string }> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8'); // one small file; keeps node:fs/promises off every command's start-up
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { config: { profiles: {} } };
    throw fsError(err, `the user config ${path}`, (m) => new AuthError(m, { hint: 'check XDG_CONFIG_HOME / HOME and their permissions' }));
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new AuthError(`the user config ${path} is not valid JSON: ${(err as Error).message}`, { hint: 'fix or delete it, then run `paycli config init`' });
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new AuthError(`the user config ${path} is not a JSON object`);
  const obj = parsed as Partial<UserConfig> & Record<string, unknown>;
  const profiles = obj.profiles && typeof obj.profiles === 'object' && !Array.isArray(obj.profiles) ? obj.profiles : {};
  // Keys paycli does not know are kept (and reported by userConfigWarnings), never dropped on write.
  return { config: { ...obj, defaultProfile: typeof obj.defaultProfile === 'string' ? obj.defaultProfile : undefined, profiles }, text };
}

const PROFILE_FIELDS = new Set<string>(Object.values(SETTING_KEYS));

/** The 1-based line of the first `"key":` in a JSON text, as `:N`, or '' when not found. */
export function lineOf(text: string | undefined, key: string): string {
  if (!text) return '';
  const idx = text
    .split('\n')
    .findIndex((l) => new RegExp(`(^|["'\\s])${key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/[-_]/g, '[-_]')}["']?\\s*[:=]`).test(l));
  return idx >= 0 ? `:${idx + 1}` : '';
}

/** Unknown keys of the user config, each with its file and line. */
export function userConfigWarnings(config: UserConfig, path: string, text?: string): string[] {
  const warnings: string[] = [];
  for (const key of Object.keys(config)) {
    if (key !== 'profiles' && key !== 'defaultProfile') warnings.push(`${path}${lineOf(text, key)}: unknown key "${key}" ignored`);
  }
  for (const [name, profile] of Object.entries(config.profiles)) {
    for (const key of Object.keys(profile ?? {})) {
      if (!PROFILE_FIELDS.has(key))
        warnings.push(`${path}${lineOf(text, key)}: unknown key "${key}" in profile "${name}" ignored (known: ${[...PROFILE_FIELDS].join(', ')})`);
    }
  }
  return warnings;
}

/** Writes the user config with mode 0600 in a 0700 directory. */
export async function writeUserConfig(path: string, config: UserConfig): Promise<void> {
  try {
    await writeSecureFile(path, JSON.stringify(config, null, 2) + '\n');
  } catch (err) {
    throw fsError(err, `the user config ${path}`, (m) => new AuthError(m, { hint: 'check XDG_CONFIG_HOME / HOME and their permissions' }));
  }
}
