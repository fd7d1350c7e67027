import { describe, expect, it } from 'vitest';
import {
  EMULATOR_DEFAULT_API_KEY,
  EMULATOR_DEFAULT_VA,
  isProductionHostUrl,
  readProjectSettings,
  requireCredentials,
  resolveConfig,
  targetsProduction,
  type ResolveInput,
} from '../../src/core/config/resolve.js';
import { cacheDir, configDir, dataDir, userConfigPath } from '../../src/core/config/paths.js';
import { OFFICIAL_PRODUCTION_BASE_URL, PRODUCTION_HOST } from '../../src/core/config/production.js';
import { parseSetting } from '../../src/core/config/profiles.js';
import { AuthError, UsageError } from '../../src/core/errors.js';

const base = (over: Partial<ResolveInput> = {}): ResolveInput => ({
  flags: {},
  env: {},
  project: null,
  user: {
    defaultProfile: 'default',
    profiles: {
      default: { env: 'sandbox', va: '1111111111', apiKey: 'profile-key-123456', notifyUrl: 'https://p.example/cb' },
      prod: { env: 'production', va: '2222222222', apiKey: 'prod-key-12345678' },
    },
  },
  userPath: '/home/u/.config/paycli/config.json',
  ...over,
});

describe('configuration precedence: flag > env > project > profile > default', () => {
  it('takes the profile when nothing else is given', () => {
    const c = resolveConfig(base());
    expect(c.va).toEqual({ value: '1111111111', origin: 'profile "default" (/home/u/.config/paycli/config.json)' });
    expect(c.env.value).toBe('sandbox');
    expect(c.baseUrl).toEqual({ value: 'https://sandbox.ipaymu.com/api', origin: 'default for sandbox' });
    expect(c.timeout.value).toBe(30000);
  });

  it('project config beats the profile, env beats the project, flags beat env', () => {
    const project = { filepath: '/w/.paycli.json', config: { va: '3333333333', notifyUrl: 'https://proj.example/cb' } };
    expect(resolveConfig(base({ project })).va?.origin).toBe('project config /w/.paycli.json');
    expect(resolveConfig(base({ project, env: { PAYCLI_VA: '4444444444' } })).va).toEqual({ value: '4444444444', origin: 'env PAYCLI_VA' });
    expect(resolveConfig(base({ project, env: { PAYCLI_VA: '4444444444' }, flags: { va: '5555555555' } })).va).toEqual({
      value: '5555555555',
      origin: 'flag --va',
    });
    expect(resolveConfig(base({ project })).notifyUrl?.value).toBe('https://proj.example/cb');
  });

  it('selects profiles by flag, env and project, and refuses unknown ones', () => {
    expect(resolveConfig(base({ flags: { profile: 'prod' } })).va?.value).toBe('2222222222');
    expect(resolveConfig(base({ env: { PAYCLI_PROFILE: 'prod' } })).env.value).toBe('production');
    expect(resolveConfig(base({ env: { PAYCLI_PROFILE: 'prod' } })).baseUrl.value).toBe('https://my.ipaymu.com/api');
    expect(() => resolveConfig(base({ flags: { profile: 'nope' } }))).toThrow(AuthError);
  });

  it('uses the emulator defaults for --env local with no credentials anywhere', () => {
    const c = resolveConfig({ ...base(), user: { profiles: {} }, flags: { env: 'local' } });
    expect(c.va?.value).toBe(EMULATOR_DEFAULT_VA);
    expect(c.apiKey?.value).toBe(EMULATOR_DEFAULT_API_KEY);
    expect(c.baseUrl.value).toBe('http://127.0.0.1:4010/api');
  });

  it('requires credentials for sandbox and production with exit-4 errors', () => {
    const c = resolveConfig({ ...base(), user: { profiles: {} } });
    expect(() => requireCredentials(c)).toThrow(/missing VA .* and API key/);
    try {
      requireCredentials(c);
    } catch (err) {
      expect((err as AuthError).kind).toBe('auth');
      expect((err as AuthError).hint).toMatch(/config init/);
    }
  });

  it('validates values from the environment', () => {
    expect(() => resolveConfig(base({ env: { PAYCLI_ENV: 'staging' } }))).toThrow(/invalid environment "staging"/);
    expect(() => resolveConfig(base({ env: { PAYCLI_TIMEOUT: 'soon' } }))).toThrow(/env PAYCLI_TIMEOUT: invalid timeout/);
    expect(resolveConfig(base({ env: { PAYCLI_TIMEOUT: '5s' } })).timeout.value).toBe(5000);
    expect(parseSetting('timeout', '2m')).toBe(120_000);
    expect(() => parseSetting('timeout', '30d')).toThrow(/at most 2147483647 ms/);
    expect(resolveConfig(base({ env: { PAYCLI_TIMEOUT: '5000' } })).timeout).toEqual({ value: 5000, origin: 'env PAYCLI_TIMEOUT' });
  });

  it('knows the other VAs for callback diagnosis', () => {
    const labels = resolveConfig(base()).otherVas.map((o) => o.label);
    expect(labels).toContain('the VA of profile "prod" (production)');
  });
});

describe('project config', () => {
  it('refuses an API key under any of its names, with file and line', () => {
    for (const key of ['apiKey', 'api-key', 'api_key']) {
      const text = `{\n  "env": "sandbox",\n  "${key}": "secret"\n}`;
      expect(() => readProjectSettings({ filepath: '/w/.paycli.json', config: { env: 'sandbox', [key]: 'secret' }, text })).toThrow(AuthError);
      expect(() => readProjectSettings({ filepath: '/w/.paycli.json', config: { [key]: 'secret' }, text })).toThrow(/\/w\/\.paycli\.json:3/);
    }
  });

  it('reports unknown keys with file and line and accepts kebab-case names', () => {
    const text = 'env: local\nnotify-url: http://127.0.0.1:8080/\ncolour: blue\n';
    const r = readProjectSettings({ filepath: '/w/.paycli.yaml', config: { env: 'local', 'notify-url': 'http://127.0.0.1:8080/', colour: 'blue' }, text });
    expect(r.settings).toEqual({ env: 'local', notifyUrl: 'http://127.0.0.1:8080/' });
    expect(r.warnings).toEqual(['/w/.paycli.yaml:3: unknown key "colour" ignored (known: env, va, baseUrl, timeout, notifyUrl, profile)']);
  });

  it('rejects invalid values naming the file', () => {
    expect(() => readProjectSettings({ filepath: '/w/.paycli.json', config: { env: 'moon' } })).toThrow(UsageError);
  });
});

describe('settings and paths', () => {
  it('parses and checks setting values', () => {
    expect(parseSetting('base-url', 'http://127.0.0.1:4010/api/')).toBe('http://127.0.0.1:4010/api');
    expect(() => parseSetting('base-url', 'ftp://x')).toThrow(/http/);
    expect(() => parseSetting('va', '12ab')).toThrow(/digits/);
    expect(() => parseSetting('colour', 'x')).toThrow(/unknown setting/);
    expect(parseSetting('timeout', '2500')).toBe(2500);
  });

  it('decides production by where requests go (targetsProduction)', () => {
    const at = (env: 'sandbox' | 'production' | 'local', url: string) =>
      targetsProduction({ env: { value: env, origin: 'x' }, baseUrl: { value: url, origin: 'x' } });
    expect(at('production', 'https://proxy.example/api')).toBe(true);
    for (const url of ['https://my.ipaymu.com/api', 'https://MY.IPAYMU.COM./api', 'https://my.ipaymu.com:8443/other', 'http://my.ipaymu.com/api'])
      expect(at('sandbox', url), url).toBe(true);
    for (const url of [
      'https://sandbox.ipaymu.com/api',
      'https://my.ipaymu.com.evil.example/api',
      'https://evil.example/my.ipaymu.com/api',
      'https://x.my.ipaymu.com/api',
      'http://127.0.0.1:4010/api',
      'not a url',
    ])
      expect(at('local', url), url).toBe(false);
    expect(isProductionHostUrl('https://user:pw@my.ipaymu.com/api')).toBe(true);
  });

  it("names production's host as its official base URL has it (written out, not parsed at load)", () => {
    expect(PRODUCTION_HOST).toBe(new URL(OFFICIAL_PRODUCTION_BASE_URL).hostname);
  });

  it('follows XDG with home fallbacks', () => {
    expect(configDir({}, '/h')).toBe('/h/.config/paycli');
    expect(cacheDir({ XDG_CACHE_HOME: '/c' }, '/h')).toBe('/c/paycli');
    expect(dataDir({}, '/h')).toBe('/h/.local/share/paycli');
    expect(userConfigPath({ XDG_CONFIG_HOME: 'relative' }, '/h')).toBe('/h/.config/paycli/config.json');
  });
});
