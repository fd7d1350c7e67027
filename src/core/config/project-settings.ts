import { UsageError, AuthError } from '../errors.js';
import { lineOf, parseSetting, type Settings } from './profiles.js';

export interface ProjectConfig {
  filepath: string;
  config: Record<string, unknown>;
  /** The file's text, to report line numbers. */
  text?: string;
}

const PROJECT_KEYS: Record<string, keyof Settings | 'profile'> = {
  env: 'env',
  va: 'va',
  baseUrl: 'baseUrl',
  'base-url': 'baseUrl',
  timeout: 'timeout',
  notifyUrl: 'notifyUrl',
  'notify-url': 'notifyUrl',
  profile: 'profile',
};
/**
 * Whether a config key names a secret: any spelling of "API key" (apiKey, API_KEY, api-key, ApiKey,
 * APIKEY…), a bare `key` or anything ending in "key" (merchantKey, ipaymu_key), and secret,
 * password, token, credential or private-key names, in any case and with any separator.
 */
export function isSecretKey(key: string): boolean {
  const norm = key.toLowerCase().replace(/[^a-z0-9]/g, '');
  return norm.endsWith('key') || norm.endsWith('keys') || /apikey|secret|passw|token|credential|privatekey|signature/.test(norm);
}

/** The first secret-looking key in a (possibly nested) config value, as a dotted path. */
function findSecretKey(value: unknown, path: string[] = [], depth = 0): string[] | undefined {
  if (depth > 32 || value === null || typeof value !== 'object') return undefined;
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (!Array.isArray(value) && isSecretKey(k)) return [...path, k];
    const inner = findSecretKey(v, [...path, k], depth + 1);
    if (inner) return inner;
  }
  return undefined;
}

/** A setting's name on the command line and in messages. */
export const PUBLIC_NAMES: Record<keyof Settings, string> = {
  env: 'env',
  va: 'va',
  apiKey: 'api-key',
  baseUrl: 'base-url',
  timeout: 'timeout',
  notifyUrl: 'notify-url',
};

/** Checks a project config: refuses an API key, reports unknown keys. Returns settings and warnings. */
export function readProjectSettings(project: ProjectConfig): { settings: Settings & { profile?: string }; warnings: string[] } {
  const settings: Settings & { profile?: string } = {};
  const warnings: string[] = [];
  const secret = findSecretKey(project.config);
  if (secret) {
    const key = secret[secret.length - 1]!;
    throw new AuthError(
      `the project config ${project.filepath}${lineOf(project.text, key)} holds a secret ("${secret.join('.')}"); paycli refuses to read secrets from project files`,
      {
        hint: 'remove it, rotate the key if the file was committed, and use `paycli config set api-key -` or PAYCLI_API_KEY instead',
      },
    );
  }
  for (const [key, value] of Object.entries(project.config)) {
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

export function parseSettingAt(key: string, value: string, where: string): string | number {
  try {
    return parseSetting(key, value);
  } catch (err) {
    if (err instanceof UsageError) throw new UsageError(`${where}: ${err.message}`, { hint: err.hint });
    throw err;
  }
}
