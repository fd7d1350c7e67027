import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findProjectConfig, MAX_PROJECT_CONFIG_BYTES, projectSearchDirs } from '../../src/core/config/project-file.js';
import { isSecretKey, readProjectSettings } from '../../src/core/config/resolve.js';
import { isLoopbackUrl } from '../../src/core/http/loopback.js';
import { parseSetting } from '../../src/core/config/profiles.js';
import { runCli } from '../helpers/cli.js';
import { receiver } from '../helpers/receiver.js';

// Issue 13, items 13–16: a project config is data only, found within the project, holds no secret,
// cannot redirect production requests, and cannot exhaust time or memory.

let root: string;
let home: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'paycli-trust-'));
  home = join(root, 'home');
  mkdirSync(home);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const CREDS = { PAYCLI_VA: '1179000899', PAYCLI_API_KEY: 'sk-test-ABCDEFGH12345678-wxyz' };

function repo(...parts: string[]): string {
  const dir = join(root, ...parts);
  mkdirSync(join(dir, '.git'), { recursive: true });
  return dir;
}

describe('no code configs, search bounded by the repository or home', () => {
  it('never runs a JS config; names each one it ignores on stderr and still runs', async () => {
    const dir = repo('proj');
    const sub = join(dir, 'src', 'deep');
    mkdirSync(sub, { recursive: true });
    const marker = join(root, 'executed');
    const code = `require('fs').writeFileSync(${JSON.stringify(marker)}, 'ran'); module.exports = { env: 'local' };`;
    for (const name of ['paycli.config.js', 'paycli.config.cjs', '.paycli.cjs', '.payclirc.js']) writeFileSync(join(dir, name), code);
    writeFileSync(
      join(dir, '.paycli.mjs'),
      `import { writeFileSync } from 'node:fs'; writeFileSync(${JSON.stringify(marker)}, 'ran'); export default { env: 'local' };`,
    );
    writeFileSync(join(dir, 'paycli.config.ts'), `export default { env: 'local' };`);
    const r = await runCli(['whoami', '--json'], { home, cwd: sub, env: CREDS });
    expect(r.code).toBe(0);
    expect(existsSync(marker)).toBe(false);
    expect(JSON.parse(r.stdout).env).toEqual({ value: 'sandbox', origin: 'default' });
    for (const name of ['paycli.config.js', 'paycli.config.cjs', '.paycli.cjs', '.payclirc.js', '.paycli.mjs', 'paycli.config.ts']) {
      expect(r.stderr).toContain(`${join(dir, name)} ignored: paycli never runs code configs`);
    }
    const doctor = await runCli(['doctor', '--json', '--offline'], { home, cwd: sub, env: CREDS });
    const check = (JSON.parse(doctor.stdout) as { checks: { check: string; status: string; detail: string }[] }).checks.find(
      (c) => c.check === 'project config',
    )!;
    expect(check.status).toBe('warn');
    expect(check.detail).toMatch(/^none found; 6 code configs ignored \(.*paycli\.config\.js.*\): paycli reads JSON and YAML only$/);
    expect(existsSync(marker)).toBe(false);
    // Human output: one line per ignored file.
    const human = await runCli(['whoami'], { home, cwd: sub, env: CREDS });
    expect(human.stderr.split('\n').filter((l) => l.includes('ignored: paycli never runs code configs'))).toHaveLength(6);
  });

  it('reads JSON, YAML, .payclirc and package.json configs', async () => {
    const dir = repo('p');
    for (const [name, text] of [
      ['.paycli.json', '{"env": "local"}'],
      ['.paycli.yaml', 'env: local\n'],
      ['.payclirc', 'env: local\n'],
      ['.payclirc', '{"env": "local"}'],
      ['.paycli.yml', 'env: local\n'],
      ['.payclirc.json', '{"env": "local"}'],
      ['.payclirc.yml', 'env: local\n'],
      ['package.json', '{"name": "shop", "paycli": {"env": "local"}}'],
    ] as const) {
      writeFileSync(join(dir, name), text);
      const found = await findProjectConfig(dir, home);
      expect(found.project).toMatchObject({ filepath: join(dir, name), config: { env: 'local' } });
      rmSync(join(dir, name));
    }
  });

  it('stops at the repository root: a config above it is not read', async () => {
    writeFileSync(join(root, '.paycli.json'), '{"env": "local"}');
    const dir = repo('outer', 'shop');
    const sub = join(dir, 'a', 'b');
    mkdirSync(sub, { recursive: true });
    expect((await findProjectConfig(sub, home)).project).toBeNull();
    expect(projectSearchDirs(sub, home)).toEqual([sub, join(dir, 'a'), dir]);
    const r = await runCli(['whoami', '--json'], { home, cwd: sub, env: CREDS });
    expect(JSON.parse(r.stdout).env.origin).toBe('default');
    writeFileSync(join(dir, '.paycli.yaml'), 'env: local\n');
    expect((await findProjectConfig(sub, home)).project?.filepath).toBe(join(dir, '.paycli.yaml'));
  });

  it('stops at the home directory, and outside any project reads only the working directory', async () => {
    writeFileSync(join(root, '.paycli.json'), '{"env": "local"}');
    const inHome = join(home, 'work', 'x');
    mkdirSync(inHome, { recursive: true });
    expect(projectSearchDirs(inHome, home)).toEqual([inHome, join(home, 'work'), home]);
    expect((await findProjectConfig(inHome, home)).project).toBeNull();
    writeFileSync(join(home, '.paycli.json'), '{"env": "local"}');
    expect((await findProjectConfig(inHome, home)).project?.filepath).toBe(join(home, '.paycli.json'));
    // /tmp/…/loose/dir has no repository, package.json or home above it: only the directory itself counts.
    const loose = join(root, 'loose', 'dir');
    mkdirSync(loose, { recursive: true });
    expect(projectSearchDirs(loose, home)).toEqual([loose]);
    expect((await findProjectConfig(loose, home)).project).toBeNull();
    const fake = (dir: string) => new Set(dir === '/' ? ['.paycli.json'] : []);
    expect(projectSearchDirs('/srv/app/sub', '/home/u', fake)).toEqual(['/srv/app/sub']);
  });
});

describe('secret-looking keys are refused like apiKey', () => {
  it('recognises every spelling', () => {
    for (const k of [
      'apiKey',
      'APIKEY',
      'API_KEY',
      'ApiKey',
      'api-key',
      'Api.Key',
      'api key',
      'key',
      'KEY',
      'secret',
      'client_secret',
      'ipaymuKey',
      'merchant-key',
      'password',
      'token',
      'privateKey',
    ]) {
      expect(isSecretKey(k), k).toBe(true);
    }
    for (const k of ['env', 'va', 'baseUrl', 'notifyUrl', 'notify-url', 'timeout', 'profile']) expect(isSecretKey(k), k).toBe(false);
  });

  it('refuses them at top level and nested, with file and line, without echoing the value', async () => {
    const dir = repo('s');
    for (const [key, nested] of [
      ['APIKEY', false],
      ['API_KEY', false],
      ['ApiKey', false],
      ['secret', false],
      ['apiKey', true],
    ] as const) {
      const value = 'sk-leak-ABCDEFGH12345678';
      const config = nested ? { env: 'sandbox', profiles: { prod: { [key]: value } } } : { env: 'sandbox', [key]: value };
      writeFileSync(join(dir, '.paycli.json'), JSON.stringify(config, null, 2));
      const r = await runCli(['whoami'], { home, cwd: dir, env: CREDS });
      expect(r.code, key).toBe(4);
      expect(r.stderr).toContain(`${join(dir, '.paycli.json')}:${nested ? 5 : 3} holds a secret`);
      expect(r.stderr).not.toContain(value);
    }
    expect(() => readProjectSettings({ filepath: '/w/.paycli.yaml', config: { Api_Key: 'x' }, text: 'Api_Key: x\n' })).toThrow(
      /\.paycli\.yaml:1 holds a secret \("Api_Key"\)/,
    );
  });
});

describe('a project config cannot redirect production; plain http only on loopback', () => {
  it('refuses a project baseUrl for production and sends nothing', async () => {
    const server = await receiver([200], '{"Status":200,"Success":true,"Message":"ok","Data":[]}');
    try {
      const dir = repo('evil');
      const base = server.url.replace('/callback', '/api');
      writeFileSync(join(dir, '.paycli.json'), JSON.stringify({ env: 'production', baseUrl: base }, null, 2));
      const r = await runCli(['areas', 'province', '--no-cache'], { home, cwd: dir, env: CREDS });
      expect(r.code).toBe(4);
      expect(r.stderr).toContain('production requests go only to https://my.ipaymu.com/api');
      expect(r.stderr.trim().split('\n')).toHaveLength(2); // error + hint
      expect(server.received).toHaveLength(0);
      // The same URL for the sandbox environment is the project's choice (loopback http is allowed).
      writeFileSync(join(dir, '.paycli.json'), JSON.stringify({ env: 'sandbox', baseUrl: base }, null, 2));
      const ok = await runCli(['areas', 'province', '--no-cache', '--json'], { home, cwd: dir, env: CREDS });
      expect(ok.code).toBe(0);
      writeFileSync(join(dir, '.paycli.json'), JSON.stringify({ baseUrl: 'https://collector.example/api' }, null, 2));
      const warned = await runCli(['whoami'], { home, cwd: dir, env: CREDS });
      expect(warned.stderr).toContain('sends sandbox requests (your sandbox VA and signed requests) to https://collector.example/api');
      expect(server.received).toHaveLength(1);
    } finally {
      await server.close();
    }
  });

  it('refuses a profile baseUrl for production too, and accepts --base-url or PAYCLI_BASE_URL with a warning', async () => {
    const other = 'https://proxy.example.com/api';
    const flag = await runCli(['whoami', '--json', '--env', 'production', '--base-url', other], { home, env: CREDS });
    expect(flag.code).toBe(0);
    expect(JSON.parse(flag.stdout).baseUrl).toEqual({ value: other, origin: 'flag --base-url' });
    expect(flag.stderr).toContain('production requests go to https://proxy.example.com/api (flag --base-url), not the official https://my.ipaymu.com/api');
    const env = await runCli(['whoami'], { home, env: { ...CREDS, PAYCLI_ENV: 'production', PAYCLI_BASE_URL: other } });
    expect(env.code).toBe(0);
    expect(env.stderr).toContain('warning: production requests go to https://proxy.example.com/api (env PAYCLI_BASE_URL)');
    const official = await runCli(['whoami'], { home, env: { ...CREDS, PAYCLI_ENV: 'production' } });
    expect(official.stderr).not.toContain('warning');
    mkdirSync(join(home, '.config', 'paycli'), { recursive: true });
    writeFileSync(
      join(home, '.config', 'paycli', 'config.json'),
      JSON.stringify({ defaultProfile: 'p', profiles: { p: { env: 'production', va: '1179000899', apiKey: 'k-ABCDEFGH12345678', baseUrl: other } } }),
      { mode: 0o600 },
    );
    const profile = await runCli(['whoami'], { home });
    expect(profile.code).toBe(4);
    const httpProfile = JSON.stringify({
      defaultProfile: 'p',
      profiles: { p: { env: 'sandbox', va: '1179000899', apiKey: 'k-ABCDEFGH12345678', baseUrl: 'http://gw.example.com/api' } },
    });
    writeFileSync(join(home, '.config', 'paycli', 'config.json'), httpProfile, { mode: 0o600 });
    expect((await runCli(['whoami'], { home })).stderr).toContain('refusing plain http for the base URL http://gw.example.com');
    expect(profile.stderr).toContain('sets the base URL to https://proxy.example.com/api');
  });

  it('never takes a project notifyUrl for production (by env or by the base URL host): warned and skipped', async () => {
    const dir = repo('shop');
    writeFileSync(join(dir, '.paycli.json'), JSON.stringify({ notifyUrl: 'https://collector.example/cb' }, null, 2));
    const warning = `${join(dir, '.paycli.json')}:2 sets the notify URL to https://collector.example/cb, not used: a project config cannot choose where production callbacks go`;
    const prodEnvs = [
      { ...CREDS, PAYCLI_ENV: 'production' },
      { ...CREDS, PAYCLI_BASE_URL: 'https://my.ipaymu.com/api' },
    ];
    for (const env of prodEnvs) {
      const r = await runCli(['config', 'get', 'notify-url', '--json'], { home, cwd: dir, env });
      expect(r.code, r.stderr).toBe(4);
      expect(r.stderr).toContain(warning);
      expect(r.stderr).toContain('notify-url is not set');
      // A production payment with no callback URL of its own stops before sending anything.
      const pay = await runCli(
        ['pay', '--yes', '--method', 'va', '--channel', 'bca', '--name', 'A', '--phone', '08123456789', '--email', 'a@b.co', '--item', 'A:1:10000'],
        { home, cwd: dir, env },
      );
      expect(pay.code).not.toBe(0);
      expect(pay.stderr).toContain('missing --notify-url');
      const exported = await runCli(['config', 'get', 'notify-url', '--json'], {
        home,
        cwd: dir,
        env: { ...env, PAYCLI_NOTIFY_URL: 'https://shop.example/cb' },
      });
      expect(exported.code, exported.stderr).toBe(0);
      expect(exported.stderr).not.toContain('notify URL');
      expect(JSON.parse(exported.stdout).value).toBe('https://shop.example/cb');
    }
    // The sandbox is the project's choice.
    const sandbox = await runCli(['config', 'get', 'notify-url', '--json'], { home, cwd: dir, env: CREDS });
    expect(sandbox.code, sandbox.stderr).toBe(0);
    expect(sandbox.stderr).not.toContain('notify URL');
    expect(JSON.parse(sandbox.stdout).value).toBe('https://collector.example/cb');
    // The user's own production profile may name it; it then comes before the project's.
    mkdirSync(join(home, '.config', 'paycli'), { recursive: true });
    writeFileSync(
      join(home, '.config', 'paycli', 'config.json'),
      JSON.stringify({
        defaultProfile: 'p',
        profiles: { p: { env: 'production', va: '1179000899', apiKey: 'k-ABCDEFGH12345678', notifyUrl: 'https://shop.example/cb' } },
      }),
      { mode: 0o600 },
    );
    const profile = await runCli(['config', 'get', 'notify-url', '--json', '--profile', 'p'], { home, cwd: dir });
    expect(profile.code, profile.stderr).toBe(0);
    expect(JSON.parse(profile.stdout)).toMatchObject({ value: 'https://shop.example/cb', origin: expect.stringContaining('profile "p"') });
  });

  it('refuses plain http to anything but loopback, from any source', async () => {
    expect(isLoopbackUrl('http://127.0.0.1:4010/api')).toBe(true);
    expect(isLoopbackUrl('http://127.8.9.10/api')).toBe(true);
    expect(isLoopbackUrl('http://[::1]:4010/api')).toBe(true);
    expect(isLoopbackUrl('http://localhost:4010/api')).toBe(true);
    expect(isLoopbackUrl('http://10.0.0.1/api')).toBe(false);
    expect(isLoopbackUrl('http://127.0.0.1.evil.example/api')).toBe(false);
    expect(() => parseSetting('base-url', 'http://api.example.com/api')).toThrow(/refusing plain http/);
    expect(parseSetting('notify-url', 'http://shop.example.com/cb')).toBe('http://shop.example.com/cb');
    const flag = await runCli(['whoami', '--base-url', 'http://gateway.example.com/api'], { home, env: CREDS });
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain('refusing plain http for the base URL http://gateway.example.com');
    const dir = repo('h');
    writeFileSync(join(dir, '.paycli.yaml'), 'baseUrl: http://gateway.example.com/api\n');
    const project = await runCli(['whoami'], { home, cwd: dir, env: CREDS });
    expect(project.code).toBe(2);
    expect(project.stderr).toContain(`${join(dir, '.paycli.yaml')}:1: refusing plain http`);
  });
});

describe('size and YAML alias limits', () => {
  it('refuses a config over the size limit with one line', async () => {
    const dir = repo('big');
    writeFileSync(join(dir, '.paycli.json'), JSON.stringify({ env: 'sandbox', pad: 'x'.repeat(MAX_PROJECT_CONFIG_BYTES) }));
    const r = await runCli(['whoami'], { home, cwd: dir, env: CREDS });
    expect(r.code).toBe(4);
    expect(r.stderr.split('\n')[0]).toMatch(/\.paycli\.json is \d+ bytes; paycli reads project configs up to 64 KiB$/);
  });

  it('refuses a YAML alias bomb before expanding it, with a short message', async () => {
    const dir = repo('bomb');
    let text = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n';
    let prev = 'a';
    for (const n of ['b', 'c', 'd', 'e', 'f', 'g', 'h', 'i']) {
      text += `${n}: &${n} [${Array(9).fill(`*${prev}`).join(',')}]\n`;
      prev = n;
    }
    writeFileSync(join(dir, '.paycli.yaml'), text);
    // 9^9 strings once expanded; the alias count is refused first (the message says which limit).
    const r = await runCli(['whoami'], { home, cwd: dir, env: CREDS });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('uses YAML aliases beyond the limit of 20');
    expect(r.stderr.length).toBeLessThan(400);
  });

  it('refuses YAML tags that are not plain data and bounds parser messages', async () => {
    const dir = repo('tag');
    writeFileSync(join(dir, '.paycli.yaml'), 'env: !!js/function "function () { return 1 }"\n');
    const tag = await runCli(['whoami'], { home, cwd: dir, env: CREDS });
    expect(tag.code).toBe(4);
    expect(tag.stderr).toContain('is not valid YAML');
    writeFileSync(join(dir, '.paycli.yaml'), `env: [${'x'.repeat(60_000)}\n`);
    const broken = await runCli(['whoami'], { home, cwd: dir, env: CREDS });
    expect(broken.code).toBe(4);
    expect(broken.stderr.length).toBeLessThan(600);
  });
});
