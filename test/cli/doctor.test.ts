import { chmodSync, writeFileSync, mkdirSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatorHandle } from '../../src/core/sandbox/server.js';
import { runCli, tempHome } from '../helpers/cli.js';
import { localEnv, sandbox } from '../helpers/sandbox.js';
import { shownKey } from '../helpers/key-mask.js';

let sb: EmulatorHandle;
beforeAll(async () => (sb = await sandbox()));
afterAll(() => sb.close());

type Check = { check: string; status: string; detail: string };
async function doctor(home: string, env: Record<string, string>, cwd?: string) {
  const r = await runCli(['doctor', '--json'], { env, home, cwd });
  return { code: r.code, checks: (JSON.parse(r.stdout) as { checks: Check[] }).checks, stderr: r.stderr };
}
const find = (checks: Check[], name: string) => checks.find((c) => c.check === name)!;

describe('paycli doctor', () => {
  it('passes on a good local setup and reports where things come from', async () => {
    const h = tempHome();
    await runCli(['config', 'init', '--env', 'local', '--va', '1179000899', '--api-key', 'SANDBOX-PAYCLI-LOCAL-0000-KEY'], { home: h.home });
    const { code, checks } = await doctor(h.home, localEnv(sb));
    expect(find(checks, 'Node.js').status).toBe('ok');
    expect(find(checks, 'SQLite')).toMatchObject({ status: 'ok', detail: expect.stringMatching(/^better-sqlite3 12\.\d+\.\d+, SQLite 3\./) });
    expect(find(checks, 'user config')).toMatchObject({ status: 'ok', detail: expect.stringContaining('mode 0600') });
    expect(find(checks, 'VA').detail).toBe('…0899 from profile "default" (' + join(h.home, '.config/paycli/config.json') + ')');
    expect(find(checks, 'API key').detail).toBe(
      `${shownKey('SANDBOX-PAYCLI-LOCAL-0000-KEY')} from profile "default" (${join(h.home, '.config/paycli/config.json')})`,
    );
    expect(find(checks, 'base URL')).toMatchObject({ status: 'ok', detail: expect.stringContaining('answered HTTP 401') });
    expect(find(checks, 'clock offset').status).toBe('ok');
    expect(code).toBe(0);
    h.cleanup();
  });

  it('fails on a 0644 config, an unreachable base URL and missing credentials (exit 4)', async () => {
    const h = tempHome();
    await runCli(['config', 'init', '--va', '1179000899', '--api-key', 'SOME-KEY-1234567890'], { home: h.home });
    chmodSync(join(h.home, '.config/paycli/config.json'), 0o644);
    const r = await doctor(h.home, { PAYCLI_ENV: 'local', PAYCLI_BASE_URL: 'http://127.0.0.1:9/api' });
    expect(r.code).toBe(4);
    expect(find(r.checks, 'user config')).toMatchObject({ status: 'fail', detail: expect.stringContaining('mode 0644') });
    expect(find(r.checks, 'base URL')).toMatchObject({ status: 'fail', detail: expect.stringContaining('connection refused') });
    const empty = tempHome();
    const none = await doctor(empty.home, { PAYCLI_BASE_URL: sb.apiUrl });
    expect(find(none.checks, 'VA').status).toBe('fail');
    expect(find(none.checks, 'user config').status).toBe('warn');
    h.cleanup();
    empty.cleanup();
  });

  it('finds the API key in a git-tracked file and reports proxies and busy ports', async () => {
    const h = tempHome();
    const repo = join(h.home, 'shop');
    mkdirSync(repo);
    writeFileSync(join(repo, 'settings.php'), "<?php $key = 'LEAKED-KEY-1234567890';\n");
    execFileSync('git', ['init', '-q'], { cwd: repo });
    execFileSync('git', ['add', '.'], { cwd: repo });
    const busy = createServer();
    await new Promise<void>((r) => busy.listen(8080, '127.0.0.1', r)).catch(() => undefined);
    const r = await doctor(
      h.home,
      {
        PAYCLI_ENV: 'local',
        PAYCLI_BASE_URL: sb.apiUrl,
        PAYCLI_VA: '1179000899',
        PAYCLI_API_KEY: 'LEAKED-KEY-1234567890',
        HTTPS_PROXY: 'http://user:pw@proxy.example:3128',
        NO_PROXY: 'localhost',
      },
      repo,
    );
    expect(find(r.checks, 'API key in git')).toMatchObject({ status: 'fail', detail: expect.stringContaining('settings.php') });
    expect(find(r.checks, 'proxy').detail).toContain('HTTPS_PROXY=http://proxy.example:3128/');
    expect(find(r.checks, 'proxy').detail).not.toContain('pw');
    expect(find(r.checks, 'listen port').status).toBe('warn');
    expect(JSON.stringify(r.checks)).not.toContain('LEAKED-KEY-1234567890');
    busy.close();
    h.cleanup();
  });
});
