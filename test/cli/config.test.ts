import { readFileSync, statSync, writeFileSync, chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, tempHome } from '../helpers/cli.js';
import { leaksKeyPart, shownKey } from '../helpers/key-mask.js';

let home: ReturnType<typeof tempHome>;
beforeEach(() => (home = tempHome()));
afterEach(() => home.cleanup());

const KEY = 'sk-live-ABCDEFGH12345678-wxyz';
const cfgPath = () => join(home.home, '.config', 'paycli', 'config.json');

describe('paycli config', () => {
  it('init with flags (no terminal) writes a 0600 file in a 0700 directory', async () => {
    const r = await runCli(['config', 'init', '--va', '1179000899', '--api-key', KEY, '--env', 'sandbox'], { home: home.home });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('saved profile "default"');
    expect(r.stdout).not.toContain(KEY);
    expect(statSync(cfgPath()).mode & 0o777).toBe(0o600);
    expect(statSync(join(home.home, '.config', 'paycli')).mode & 0o777).toBe(0o700);
    expect(JSON.parse(readFileSync(cfgPath(), 'utf8')).profiles.default).toMatchObject({ va: '1179000899', apiKey: KEY, env: 'sandbox' });
  });

  it('init creates named profiles, from a key file, and keeps the first as default', async () => {
    const keyFile = join(home.home, 'key.txt');
    writeFileSync(keyFile, KEY + '\n');
    expect((await runCli(['config', 'init', '--profile', 'staging', '--va', '1179000899', '--api-key-file', keyFile], { home: home.home })).code).toBe(0);
    expect(
      (
        await runCli(['config', 'init', '--profile', 'prod', '--env', 'production', '--va', '2220002220', '--api-key', 'PROD-KEY-1234567890'], {
          home: home.home,
        })
      ).code,
    ).toBe(0);
    const file = JSON.parse(readFileSync(cfgPath(), 'utf8'));
    expect(file.defaultProfile).toBe('staging');
    expect(file.profiles.staging.apiKey).toBe(KEY);
    const w = JSON.parse((await runCli(['whoami', '--json', '--profile', 'prod'], { home: home.home })).stdout);
    expect(w).toMatchObject({
      profile: { value: 'prod', origin: 'flag --profile' },
      env: { value: 'production' },
      baseUrl: { value: 'https://my.ipaymu.com/api' },
    });
    const missingFile = await runCli(['config', 'init', '--va', '1179000899', '--api-key-file', join(home.home, 'nope')], { home: home.home });
    expect(missingFile.code).toBe(2);
  });

  it('init without a terminal and without values names the missing flags (exit 4)', async () => {
    const r = await runCli(['config', 'init'], { home: home.home });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('--va and --api-key-file');
  });

  it('set, get, unset and list with origins; api-key from stdin, masked unless --reveal', async () => {
    expect((await runCli(['config', 'set', 'va', '1179000899'], { home: home.home })).code).toBe(0);
    const set = await runCli(['config', 'set', 'api-key', '-'], { home: home.home, stdin: KEY + '\n' });
    expect(set.code).toBe(0);
    expect(set.stdout).toBe(`set api-key = ${shownKey(KEY)} in profile "default"\n`);
    expect((await runCli(['config', 'get', 'api-key'], { home: home.home })).stdout).toBe(`${shownKey(KEY)}\n`);
    expect((await runCli(['config', 'get', 'api-key', '--reveal'], { home: home.home })).stdout).toBe(KEY + '\n');
    const list = await runCli(['config', 'list', '--show-origin', '--json'], { home: home.home, env: { PAYCLI_ENV: 'sandbox' } });
    const rows = JSON.parse(list.stdout) as { key: string; value: string; origin: string }[];
    expect(rows.find((r) => r.key === 'env')).toEqual({ key: 'env', value: 'sandbox', origin: 'env PAYCLI_ENV' });
    expect(rows.find((r) => r.key === 'va')?.origin).toMatch(/^profile "default"/);
    expect(list.stdout).not.toContain(KEY);
    expect((await runCli(['config', 'unset', 'va'], { home: home.home })).stdout).toContain('removed va');
    expect((await runCli(['config', 'get', 'va'], { home: home.home })).code).toBe(4);
  });

  it('rejects unknown keys and bad values with exit 2', async () => {
    expect((await runCli(['config', 'set', 'colour', 'x'], { home: home.home })).code).toBe(2);
    const r = await runCli(['config', 'set', 'env', 'staging'], { home: home.home });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('invalid environment "staging"');
  });

  it('whoami shows masked values and where they came from', async () => {
    await runCli(['config', 'init', '--va', '1179000899', '--api-key', KEY], { home: home.home });
    const r = await runCli(['whoami', '--json'], { home: home.home, env: { PAYCLI_VA: '5550001111' } });
    const w = JSON.parse(r.stdout);
    expect(w.va).toEqual({ value: '…1111', origin: 'env PAYCLI_VA' });
    expect(w.apiKey.value).toBe(shownKey(KEY));
    expect(leaksKeyPart(JSON.stringify(w), KEY)).toBe(false);
    expect(w.env).toEqual({ value: 'sandbox', origin: expect.stringMatching(/^profile "default"/) });
    expect(r.stdout).not.toContain(KEY);
  });

  it('prints the paths', async () => {
    const r = await runCli(['config', 'path', '--json'], { home: home.home, env: { XDG_DATA_HOME: '/xdg/data' } });
    expect(JSON.parse(r.stdout)).toMatchObject({ config: cfgPath(), data: '/xdg/data/paycli' });
  });

  it('refuses an API key in the project config (exit 4) and warns on unknown keys', async () => {
    writeFileSync(join(home.home, '.paycli.json'), JSON.stringify({ env: 'local', apiKey: KEY }, null, 2));
    const r = await runCli(['whoami'], { home: home.home, cwd: home.home });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('.paycli.json:3');
    expect(r.stderr).not.toContain(KEY);
    writeFileSync(join(home.home, '.paycli.json'), JSON.stringify({ env: 'local', colour: 'blue' }, null, 2));
    const w = await runCli(['whoami', '--json'], { home: home.home, cwd: home.home });
    expect(w.code).toBe(0);
    expect(JSON.parse(w.stdout).env.origin).toContain('project config');
    expect(w.stderr).toContain('unknown key \\"colour\\"');
  });

  it('warns when the user config is readable by others', async () => {
    await runCli(['config', 'init', '--va', '1179000899', '--api-key', KEY], { home: home.home });
    chmodSync(cfgPath(), 0o644);
    const r = await runCli(['whoami'], { home: home.home });
    expect(r.stderr).toContain('has mode 0644');
  });

  it('reports a broken user config clearly', async () => {
    mkdirSync(join(home.home, '.config', 'paycli'), { recursive: true });
    writeFileSync(cfgPath(), '{oops');
    const r = await runCli(['whoami'], { home: home.home });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('is not valid JSON');
  });
});
