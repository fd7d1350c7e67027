import { AuthError, UsageError } from '../errors.js';
import { BASE_URLS, ENVIRONMENTS, lineOf, type Environment, type Settings, type UserConfig } from './profiles.js';
import type { Env } from '../env.js';
import { isLoopbackUrl } from '../http/loopback.js';
import { isOfficialProduction, OFFICIAL_PRODUCTION_BASE_URL, targetsProduction } from './production.js';
import { parseSettingAt, PUBLIC_NAMES, readProjectSettings, type ProjectConfig } from './project-settings.js';

export { isProductionHostUrl, OFFICIAL_PRODUCTION_BASE_URL, targetsProduction } from './production.js';
export { isSecretKey, readProjectSettings, type ProjectConfig } from './project-settings.js';

/** The emulator's documented default merchant (used with `--env local` when nothing is configured). */
export const EMULATOR_DEFAULT_VA = '1179000899';
export const EMULATOR_DEFAULT_API_KEY = 'SANDBOX-PAYCLI-LOCAL-0000-KEY';

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
  /** Set when the selected profile holds credentials for another environment than the one in use. */
  unusedProfile?: { name: string; env: string };
}

const ENV_NAMES: Record<keyof Settings | 'profile', string> = {
  env: 'PAYCLI_ENV',
  va: 'PAYCLI_VA',
  apiKey: 'PAYCLI_API_KEY',
  baseUrl: 'PAYCLI_BASE_URL',
  timeout: 'PAYCLI_TIMEOUT',
  notifyUrl: 'PAYCLI_NOTIFY_URL',
  profile: 'PAYCLI_PROFILE',
};
/** The profile a command uses, and where that choice came from. */
export interface ProfileChoice extends Sourced<string> {
  /** What chose it: --profile, PAYCLI_PROFILE, the project config, the user config's default, or nothing (`default`). */
  source: 'flag' | 'env' | 'project' | 'user' | 'default';
}

/**
 * Which profile, and why: `--profile`, then PAYCLI_PROFILE, then the project config's `profile`,
 * then the user config's default profile, else "default". Every command asks this one function,
 * `config set`/`unset`/`init`/`profiles` included, so that what they write is what the others read.
 */
export function selectProfile(input: {
  flag?: string;
  env: Env;
  projectProfile?: string;
  projectPath?: string;
  user: UserConfig;
  userPath: string;
}): ProfileChoice {
  const { flag, env, projectProfile, user, userPath } = input;
  if (flag) return { value: flag, origin: 'flag --profile', source: 'flag' };
  const fromEnv = env.PAYCLI_PROFILE;
  if (fromEnv !== undefined && fromEnv !== '') return { value: fromEnv, origin: 'env PAYCLI_PROFILE', source: 'env' };
  if (projectProfile) return { value: projectProfile, origin: `project config ${input.projectPath ?? ''}`.trimEnd(), source: 'project' };
  if (user.defaultProfile) return { value: user.defaultProfile, origin: `user config ${userPath}`, source: 'user' };
  return { value: 'default', origin: 'default', source: 'default' };
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

  const { profile, implicitProduction, profileSettings } = chosenProfile(input, project.settings.profile);
  const profileOrigin = `profile "${profile.value}" (${userPath})`;

  /**
   * One setting, by precedence. `belongsHere` filters sources of credentials: a value that belongs
   * to another environment is skipped (credentials belong to a profile and its environment).
   */
  function pick<K extends keyof Settings>(
    field: K,
    belongsHere?: (source: 'env' | 'project' | 'profile') => boolean,
  ): Sourced<NonNullable<Settings[K]>> | undefined {
    const flag = flags[field];
    if (flag !== undefined && flag !== '') return { value: flag as NonNullable<Settings[K]>, origin: `flag --${PUBLIC_NAMES[field]}` };
    const e = envValue(field);
    if (e !== undefined && (!belongsHere || belongsHere('env')))
      return { value: parseSettingAt(PUBLIC_NAMES[field], e, `env ${ENV_NAMES[field]}`) as NonNullable<Settings[K]>, origin: `env ${ENV_NAMES[field]}` };
    const p = (project.settings as Settings)[field];
    if (p !== undefined && (!belongsHere || belongsHere('project'))) return { value: p as NonNullable<Settings[K]>, origin: projectOrigin };
    const u = profileSettings?.[field];
    if (u !== undefined && u !== '' && (!belongsHere || belongsHere('profile'))) return { value: u as NonNullable<Settings[K]>, origin: profileOrigin };
    return undefined;
  }

  const envPicked = pick('env');
  const environment = (envPicked?.value ?? 'sandbox') as Environment;
  if (!(ENVIRONMENTS as readonly string[]).includes(environment)) {
    throw new UsageError(`invalid environment "${environment}" (from ${envPicked?.origin})`, { hint: `use one of: ${ENVIRONMENTS.join(', ')}` });
  }
  const warnings = [...project.warnings];
  if (implicitProduction)
    warnings.push(
      `profile "${profile.value}" is a production profile and not the default, so it is not used: pass --profile ${profile.value}, or make it the default with \`paycli config use ${profile.value}\``,
    );
  const baseUrl = pick('baseUrl') ?? { value: BASE_URLS[environment], origin: `default for ${environment}` };
  checkBaseUrl(baseUrl, environment, warnings);
  const timeout = pick('timeout') ?? { value: 30_000, origin: 'default' };
  // Where credentials come from must be meant for this environment: exported PAYCLI_VA/API_KEY
  // belong to PAYCLI_ENV (any environment but local when it is unset), a project config's VA to its
  // `env`, a profile's to the profile's env (sandbox when it names none). Flags always count.
  // (`--env local --va X` with PAYCLI_API_KEY exported uses both: see flagCredential.)
  // With --env local, a credential given by flag says "my own merchant": the other may then come
  // from the exported variables too.
  const envOfEnvVars = envValue('env');
  const flagCredential = Boolean(flags.va || flags.apiKey);
  const belongsHere = (source: 'env' | 'project' | 'profile'): boolean => {
    if (source === 'env') return envOfEnvVars ? envOfEnvVars === environment : environment !== 'local' || flagCredential;
    if (source === 'project') return project.settings.env ? project.settings.env === environment : environment !== 'local';
    return (profileSettings?.env ?? 'sandbox') === environment;
  };
  let va = pick('va', belongsHere);
  let apiKey = pick('apiKey', belongsHere);
  if (environment === 'local' && !va && !apiKey) {
    va = { value: EMULATOR_DEFAULT_VA, origin: 'emulator default' };
    apiKey = { value: EMULATOR_DEFAULT_API_KEY, origin: 'emulator default' };
  }
  // Where production callbacks go: a project config (a file in the working tree, perhaps a cloned
  // repository's) cannot choose it, as it cannot choose production's base URL: real buyers' data
  // and payment notices would go to whatever host the file names. A flag, PAYCLI_NOTIFY_URL and
  // the user's own profile can; the project's value is skipped, and the warning says so.
  const production = targetsProduction({ env: { value: environment }, baseUrl });
  const notifyUrl = pick('notifyUrl', (source) => source !== 'project' || !production);
  const projectNotify = project.settings.notifyUrl;
  if (production && projectNotify !== undefined && notifyUrl?.origin !== 'flag --notify-url' && notifyUrl?.origin !== `env ${ENV_NAMES.notifyUrl}`) {
    warnings.push(
      `${projectOrigin}${lineOf(input.project?.text, 'notifyUrl')} sets the notify URL to ${projectNotify}, not used: a project config cannot choose where production callbacks go (pass --notify-url, set PAYCLI_NOTIFY_URL, or set notify-url in your profile)`,
    );
  }
  const skipped = (['va', 'apiKey'] as const).filter(
    (f) => !(f === 'va' ? va : apiKey) && profileSettings?.[f] && (profileSettings.env ?? 'sandbox') !== environment,
  );
  const otherVas = otherVasOf(user, va?.value);
  return {
    profile,
    env: { value: environment, origin: envPicked?.origin ?? 'default' },
    baseUrl,
    timeout,
    va,
    apiKey,
    notifyUrl,
    warnings,
    otherVas,
    ...(skipped.length ? { unusedProfile: { name: profile.value, env: profileSettings?.env ?? 'sandbox' } } : {}),
  };
}

/**
 * The profile in use and its settings: a named one must exist; a production profile is used only
 * when named or made the default (`implicitProduction`: skipped, with a warning).
 */
function chosenProfile(
  input: ResolveInput,
  projectProfile: string | undefined,
): { profile: Sourced<string>; implicitProduction: boolean; profileSettings: Settings | undefined } {
  const { flags, env, user, userPath } = input;
  const choice = selectProfile({ flag: flags.profile, env, projectProfile, projectPath: input.project?.filepath, user, userPath });
  const profile: Sourced<string> = { value: choice.value, origin: choice.origin };

  const explicitProfile = profile.origin !== 'default' && profile.origin !== `user config ${userPath}`;
  // A production profile is used only when named or made the default: a profile called "default"
  // that holds production settings is not picked up just because of its name.
  const implicitProduction = profile.origin === 'default' && user.profiles[profile.value]?.env === 'production';
  const profileSettings = implicitProduction ? undefined : user.profiles[profile.value];
  if (!profileSettings && explicitProfile) {
    const known = Object.keys(user.profiles);
    throw new AuthError(`profile "${profile.value}" (from ${profile.origin}) does not exist in ${userPath}`, {
      hint: known.length ? `known profiles: ${known.join(', ')}` : `create it with \`paycli config init --profile ${profile.value}\``,
    });
  }
  return { profile, implicitProduction, profileSettings };
}

/** The VAs of the other profiles and the emulator's default, for a callback's diagnosis. */
function otherVasOf(user: UserConfig, va: string | undefined): { label: string; va: string }[] {
  const otherVas: { label: string; va: string }[] = [];
  for (const [name, s] of Object.entries(user.profiles)) {
    if (s.va && s.va !== va) otherVas.push({ label: `the VA of profile "${name}"${s.env ? ` (${s.env})` : ''}`, va: s.va });
  }
  if (EMULATOR_DEFAULT_VA !== va) otherVas.push({ label: 'the emulator default VA', va: EMULATOR_DEFAULT_VA });
  return otherVas;
}

/**
 * Where requests may go: plain http only to a loopback address (the VA and a valid signature
 * travel with every request); production only to the official URL unless --base-url or
 * PAYCLI_BASE_URL says otherwise for this run — a project config or profile cannot redirect it —
 * and then with a warning.
 */
function checkBaseUrl(baseUrl: Sourced<string>, environment: Environment, warnings: string[]): void {
  const explicit = baseUrl.origin === 'flag --base-url' || baseUrl.origin === 'env PAYCLI_BASE_URL';
  const Err = explicit ? UsageError : AuthError;
  let url: URL;
  try {
    url = new URL(baseUrl.value);
  } catch {
    throw new Err(`invalid base URL "${baseUrl.value}" (from ${baseUrl.origin})`, { hint: 'an http(s) URL of the API root, including /api' });
  }
  if (url.protocol === 'http:' && !isLoopbackUrl(baseUrl.value)) {
    throw new Err(`refusing plain http for the base URL ${url.origin} (from ${baseUrl.origin}): the VA and signed requests would travel unencrypted`, {
      hint: 'use https, or http only on a loopback address (127.0.0.1, ::1, localhost)',
    });
  }
  if (
    environment === 'sandbox' &&
    baseUrl.origin.startsWith('project config') &&
    !isLoopbackUrl(baseUrl.value) &&
    baseUrl.value.replace(/\/+$/, '') !== BASE_URLS.sandbox
  ) {
    warnings.push(`${baseUrl.origin} sends sandbox requests (your sandbox VA and signed requests) to ${url.origin}${url.pathname}`);
  }
  if (environment !== 'production' || isOfficialProduction(baseUrl.value)) return;
  if (!explicit) {
    throw new AuthError(
      `${baseUrl.origin} sets the base URL to ${url.origin}${url.pathname}, but production requests go only to ${OFFICIAL_PRODUCTION_BASE_URL} unless you say otherwise for this run`,
      {
        hint: `remove baseUrl there; to really send production requests elsewhere (a proxy), pass --base-url or set PAYCLI_BASE_URL`,
      },
    );
  }
  warnings.push(`production requests go to ${url.origin}${url.pathname} (${baseUrl.origin}), not the official ${OFFICIAL_PRODUCTION_BASE_URL}`);
}

/** Throws the documented exit-4 error when VA or API key is missing. */
export function requireCredentials(config: ResolvedConfig): { va: string; apiKey: string } {
  const missing: string[] = [];
  if (!config.va) missing.push('VA (--va or PAYCLI_VA)');
  if (!config.apiKey) missing.push('API key (PAYCLI_API_KEY, --api-key-file or the user profile)');
  if (missing.length) {
    const other = config.unusedProfile;
    throw new AuthError(`no credentials for the ${config.env.value} environment: missing ${missing.join(' and ')}`, {
      hint: other
        ? `profile "${other.name}" holds ${other.env} credentials, not ${config.env.value} ones: use a profile whose env is ${config.env.value} (\`paycli config init --profile NAME --env ${config.env.value}\`), or drop --env`
        : 'run `paycli config init`, set PAYCLI_VA and PAYCLI_API_KEY, or use `--env local` with `paycli sandbox`',
    });
  }
  return { va: config.va!.value, apiKey: config.apiKey!.value };
}
