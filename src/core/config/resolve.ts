import { AuthError, UsageError } from '../errors.js';
import { BASE_URLS, ENVIRONMENTS, lineOf, parseSetting, type Environment, type Settings, type UserConfig } from './profiles.js';
import type { Env } from './paths.js';

/** The emulator's documented default merchant (used with `--env local` when nothing is configured). */
export const EMULATOR_DEFAULT_VA = '1179000899';
export const EMULATOR_DEFAULT_API_KEY = 'SANDBOX-PAYCLI-LOCAL-0000-KEY';

export interface ProjectConfig {
  filepath: string;
  config: Record<string, unknown>;
  /** The file's text, to report line numbers. */
  text?: string;
}

export interface ResolveInput {
  flags: Settings & { profile?: string };
  env: Env;
  project: ProjectConfig | null;
  user: UserConfig;
  userPath: string;
}

export interface Sourced<T> {
  value: T;
  origin: string;
}

export interface ResolvedConfig {
  profile: Sourced<string>;
  env: Sourced<Environment>;
  baseUrl: Sourced<string>;
  timeout: Sourced<number>;
  va?: Sourced<string>;
  apiKey?: Sourced<string>;
  notifyUrl?: Sourced<string>;
  /** Problems found in config files that do not stop the command (unknown keys). */
  warnings: string[];
  /** Other VAs known from profiles, for callback diagnosis (label → VA). */
  otherVas: { label: string; va: string }[];
}

const PROJECT_KEYS: Record<string, keyof Settings | 'profile'> = {
  env: 'env', va: 'va', baseUrl: 'baseUrl', 'base-url': 'baseUrl', timeout: 'timeout',
  notifyUrl: 'notifyUrl', 'notify-url': 'notifyUrl', profile: 'profile',
};
const SECRET_KEYS = ['apiKey', 'api-key', 'api_key', 'apikey', 'key'];
const ENV_NAMES: Record<keyof Settings | 'profile', string> = {
  env: 'PAYCLI_ENV', va: 'PAYCLI_VA', apiKey: 'PAYCLI_API_KEY', baseUrl: 'PAYCLI_BASE_URL',
  timeout: 'PAYCLI_TIMEOUT', notifyUrl: 'PAYCLI_NOTIFY_URL', profile: 'PAYCLI_PROFILE',
};
const PUBLIC_NAMES: Record<keyof Settings, string> = {
  env: 'env', va: 'va', apiKey: 'api-key', baseUrl: 'base-url', timeout: 'timeout', notifyUrl: 'notify-url',
};

/** Checks a project config: refuses an API key, reports unknown keys. Returns settings and warnings. */
export function readProjectSettings(project: ProjectConfig): { settings: Settings & { profile?: string }; warnings: string[] } {
  const settings: Settings & { profile?: string } = {};
  const warnings: string[] = [];
  for (const [key, value] of Object.entries(project.config)) {
    if (SECRET_KEYS.includes(key)) {
      throw new AuthError(`the project config ${project.filepath}${lineOf(project.text, key)} holds an API key ("${key}"); paycli refuses to read secrets from project files`, {
        hint: 'remove it, rotate the key if the file was committed, and use `paycli config set api-key -` or PAYCLI_API_KEY instead',
      });
    }
    const field = PROJECT_KEYS[key];
    if (!field) {
      warnings.push(`${project.filepath}${lineOf(project.text, key)}: unknown key "${key}" ignored (known: env, va, baseUrl, timeout, notifyUrl, profile)`);
      continue;
    }
    if (value === undefined || value === null) continue;
    const publicName = field === 'profile' ? 'profile' : PUBLIC_NAMES[field];
    const parsed = field === 'profile' ? String(value) : parseSettingAt(publicName, String(value), `${project.filepath}${lineOf(project.text, key)}`);
    (settings as Record<string, unknown>)[field] = parsed;
  }
  return { settings, warnings };
}

function parseSettingAt(key: string, value: string, where: string): string | number {
  try {
    return parseSetting(key, value);
  } catch (err) {
    if (err instanceof UsageError) throw new UsageError(`${where}: ${err.message}`, { hint: err.hint });
    throw err;
  }
}

/**
 * Resolves every setting with the precedence flag > environment > project config > user profile >
 * default, and records where each value came from.
 */
export function resolveConfig(input: ResolveInput): ResolvedConfig {
  const { flags, env, user, userPath } = input;
  const project = input.project ? readProjectSettings(input.project) : { settings: {}, warnings: [] };
  const projectOrigin = input.project ? `project config ${input.project.filepath}` : '';

  const envValue = (field: keyof Settings | 'profile'): string | undefined => {
    const v = env[ENV_NAMES[field]];
    return v === undefined || v === '' ? undefined : v;
  };

  let profile: Sourced<string>;
  if (flags.profile) profile = { value: flags.profile, origin: 'flag --profile' };
  else if (envValue('profile')) profile = { value: envValue('profile')!, origin: 'env PAYCLI_PROFILE' };
  else if (project.settings.profile) profile = { value: project.settings.profile, origin: projectOrigin };
  else if (user.defaultProfile) profile = { value: user.defaultProfile, origin: `user config ${userPath}` };
  else profile = { value: 'default', origin: 'default' };

  const explicitProfile = profile.origin !== 'default' && profile.origin !== `user config ${userPath}`;
  const profileSettings = user.profiles[profile.value];
  if (!profileSettings && explicitProfile) {
    const known = Object.keys(user.profiles);
    throw new AuthError(`profile "${profile.value}" (from ${profile.origin}) does not exist in ${userPath}`, {
      hint: known.length ? `known profiles: ${known.join(', ')}` : `create it with \`paycli config init --profile ${profile.value}\``,
    });
  }
  const profileOrigin = `profile "${profile.value}" (${userPath})`;

  function pick<K extends keyof Settings>(field: K): Sourced<NonNullable<Settings[K]>> | undefined {
    const flag = flags[field];
    if (flag !== undefined && flag !== '') return { value: flag as NonNullable<Settings[K]>, origin: `flag --${PUBLIC_NAMES[field]}` };
    const e = envValue(field);
    if (e !== undefined) return { value: parseSettingAt(PUBLIC_NAMES[field], e, `env ${ENV_NAMES[field]}`) as NonNullable<Settings[K]>, origin: `env ${ENV_NAMES[field]}` };
    const p = (project.settings as Settings)[field];
    if (p !== undefined) return { value: p as NonNullable<Settings[K]>, origin: projectOrigin };
    const u = profileSettings?.[field];
    if (u !== undefined && u !== '') return { value: u as NonNullable<Settings[K]>, origin: profileOrigin };
    return undefined;
  }

  const envPicked = pick('env');
  const environment = (envPicked?.value ?? 'sandbox') as Environment;
  if (!(ENVIRONMENTS as readonly string[]).includes(environment)) {
    throw new UsageError(`invalid environment "${environment}" (from ${envPicked?.origin})`, { hint: `use one of: ${ENVIRONMENTS.join(', ')}` });
  }
  const baseUrl = pick('baseUrl') ?? { value: BASE_URLS[environment], origin: `default for ${environment}` };
  const timeout = pick('timeout') ?? { value: 30_000, origin: 'default' };
  let va = pick('va');
  let apiKey = pick('apiKey');
  if (environment === 'local' && !va && !apiKey) {
    va = { value: EMULATOR_DEFAULT_VA, origin: 'emulator default' };
    apiKey = { value: EMULATOR_DEFAULT_API_KEY, origin: 'emulator default' };
  }
  const otherVas: { label: string; va: string }[] = [];
  for (const [name, s] of Object.entries(user.profiles)) {
    if (s.va && s.va !== va?.value) otherVas.push({ label: `the VA of profile "${name}"${s.env ? ` (${s.env})` : ''}`, va: s.va });
  }
  if (EMULATOR_DEFAULT_VA !== va?.value) otherVas.push({ label: 'the emulator default VA', va: EMULATOR_DEFAULT_VA });
  return {
    profile,
    env: { value: environment, origin: envPicked?.origin ?? 'default' },
    baseUrl,
    timeout,
    va,
    apiKey,
    notifyUrl: pick('notifyUrl'),
    warnings: project.warnings,
    otherVas,
  };
}

/** Throws the documented exit-4 error when VA or API key is missing. */
export function requireCredentials(config: ResolvedConfig): { va: string; apiKey: string } {
  const missing: string[] = [];
  if (!config.va) missing.push('VA (--va or PAYCLI_VA)');
  if (!config.apiKey) missing.push('API key (PAYCLI_API_KEY, --api-key-file or the user profile)');
  if (missing.length) {
    throw new AuthError(`no credentials for the ${config.env.value} environment: missing ${missing.join(' and ')}`, {
      hint: 'run `paycli config init`, set PAYCLI_VA and PAYCLI_API_KEY, or use `--env local` with `paycli sandbox`',
    });
  }
  return { va: config.va!.value, apiKey: config.apiKey!.value };
}
