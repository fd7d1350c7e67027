import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatorHandle } from '../../src/core/sandbox/server.js';
import { payVa } from '../helpers/argv.js';
import { runCli, tempHome, testContext } from '../helpers/cli.js';
import { run } from '../../src/cli/run.js';
import { receiver } from '../helpers/receiver.js';
import { sandbox } from '../helpers/sandbox.js';
import { leaksKeyPart, shownKey } from '../helpers/key-mask.js';

const SECRET = 'SECRET-API-KEY-7Qx9Vb2Lm4-zzzz';
const VA = '7770007770';
let sb: EmulatorHandle;
let home: ReturnType<typeof tempHome>;
beforeAll(async () => {
  sb = await sandbox({ va: VA, apiKey: SECRET });
  home = tempHome();
});
afterAll(async () => {
  await sb.close();
  home.cleanup();
});

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...filesUnder(p));
    else out.push(p);
  }
  return out;
}

describe('the API key appears in no output, log, store or error', () => {
  it('across every command, including --debug, --dry-run, --curl and error paths', async () => {
    const env = { PAYCLI_ENV: 'local', PAYCLI_BASE_URL: sb.apiUrl, PAYCLI_VA: VA, PAYCLI_API_KEY: SECRET, XDG_DATA_HOME: join(home.home, 'data') };
    const rx = await receiver([200, 500]);
    const pay = [...payVa(), '--item', 'A:1:1000', '--notify-url', rx.url];
    const runs: string[][] = [
      ['areas', 'province'],
      ['areas', 'city', '51', '--json'],
      ['areas', 'province', '--dry-run'],
      ['areas', 'province', '--curl'],
      ['areas', 'province', '--debug', '--no-cache'],
      pay,
      [...pay, '--json', '--debug'],
      [...pay, '--dry-run'],
      [...pay, '--curl'],
      [...pay.slice(0, -2), '--notify-url', 'not a url', '--debug'],
      ['sign', 'request', '--method', 'GET', '--path', 'areas/province'],
      ['sign', 'request', '--method', 'GET', '--path', 'areas/province', '--json'],
      ['whoami'],
      ['whoami', '--json'],
      ['config', 'list', '--show-origin'],
      ['config', 'get', 'api-key'],
      ['config', 'init', '--va', VA, '--api-key', SECRET],
      ['config', 'list', '--json'],
      ['trigger', '--to', rx.url],
      ['trigger', '--to', rx.url, '--debug'],
      ['test-handler', rx.url, '--json'],
      ['events', 'list', '--json'],
      ['areas', 'province', '--api-key', 'WRONG-KEY-00000000000', '--no-cache', '--debug'],
      ['verify-callback', '--data', 'a=1', '--signature', 'b'.repeat(64), '--json'],
      ['doctor', '--json'],
    ];
    for (const argv of runs) {
      const r = await runCli(argv, { env, home: home.home });
      expect(r.stdout + r.stderr, argv.join(' ')).not.toContain(SECRET);
      // Nor a part of it: a mask shows a fingerprint, not the first and last characters.
      expect(leaksKeyPart(r.stdout + r.stderr, SECRET, 4), argv.join(' ')).toBe(false);
    }
    // Files paycli wrote (events, cache) hold no key; only the user config does, with mode 0600.
    for (const f of filesUnder(home.home)) {
      const text = readFileSync(f, 'utf8');
      if (f.endsWith(join('paycli', 'config.json'))) {
        expect(statSync(f).mode & 0o777).toBe(0o600);
        continue;
      }
      expect(text, f).not.toContain(SECRET);
    }
    // The one sanctioned way to see it.
    expect((await runCli(['config', 'get', 'api-key', '--reveal'], { env: { XDG_DATA_HOME: env.XDG_DATA_HOME }, home: home.home })).stdout).toBe(SECRET + '\n');
    await rx.close();
  });

  it('the emulator logs no key', async () => {
    const controller = new AbortController();
    const { ctx, out, err } = testContext({ home: home.home, signal: controller.signal });
    const done = run(['sandbox', '--port', '0', '--in-memory', '--va', VA, '--api-key', SECRET, '--json'], ctx);
    for (let i = 0; i < 200 && !out().includes('"started"'); i++) await new Promise((r) => setTimeout(r, 10));
    const started = JSON.parse(out().split('\n')[0]!);
    await runCli(['areas', 'province', '--no-cache'], { env: { PAYCLI_BASE_URL: started.baseUrl, PAYCLI_VA: VA, PAYCLI_API_KEY: SECRET }, home: home.home });
    controller.abort('SIGTERM');
    expect(await done).toBe(0);
    expect(started.apiKey).toBe(shownKey(SECRET));
    expect(out() + err()).not.toContain(SECRET);
    expect(out()).toContain('"path":"/api/areas/province"');
  });
});

describe('paycli sandbox pay / expire / list', () => {
  it('acts on a running emulator by id or payment number', async () => {
    const rx = await receiver([200]);
    const env = { PAYCLI_ENV: 'local', PAYCLI_BASE_URL: sb.apiUrl, PAYCLI_VA: VA, PAYCLI_API_KEY: SECRET };
    const base = ['--name', 'A', '--phone', '08123456789', '--email', 'a@b.co', '--item', 'A:1:10000', '--notify-url', rx.url, '--json'];
    const a = JSON.parse((await runCli(['pay', '--method', 'va', '--channel', 'bni', ...base], { env, home: home.home })).stdout);
    const b = JSON.parse((await runCli(['pay', '--method', 'cstore', '--channel', 'indomaret', ...base], { env, home: home.home })).stdout);
    const admin = ['--sandbox-url', sb.url];
    const paid = await runCli(['sandbox', 'pay', a.PaymentNo, ...admin], { home: home.home });
    expect(paid.code).toBe(0);
    expect(paid.stdout).toContain(`berhasil (paid): trx ${a.TransactionId}`);
    expect((await runCli(['sandbox', 'pay', String(a.TransactionId), ...admin], { home: home.home })).stdout).toContain('already berhasil (paid)');
    const expired = await runCli(['sandbox', 'expire', String(b.TransactionId), ...admin, '--json'], { home: home.home });
    expect(JSON.parse(expired.stdout).transaction.status).toBe('expired');
    const conflict = await runCli(['sandbox', 'pay', String(b.TransactionId), ...admin], { home: home.home });
    expect(conflict.code).toBe(3);
    expect(conflict.stderr).toContain('has expired and cannot be paid');
    const unknown = await runCli(['sandbox', 'pay', '4242', ...admin], { home: home.home });
    expect(unknown.code).toBe(2);
    const list = await runCli(['sandbox', 'list', ...admin], { home: home.home });
    // One vocabulary (the gateway's word and its gloss), as history and the dashboard say it.
    expect(list.stdout).toMatch(new RegExp(`${a.TransactionId}\\s+berhasil \\(paid\\)\\s+va/bni`));
    expect(list.stdout).toMatch(new RegExp(`${b.TransactionId}\\s+expired\\s+cstore/indomaret`));
    const down = await runCli(['sandbox', 'list', '--sandbox-url', 'http://127.0.0.1:9'], { home: home.home });
    expect(down.code).toBe(5);
    expect(down.stderr).toContain('paycli sandbox');
    await rx.waitFor(2);
    await rx.close();
  });

  it('refuses a port in use and bad flags', async () => {
    expect((await runCli(['sandbox', '--port', String(sb.port)], { home: home.home })).stderr).toContain('already in use');
    expect((await runCli(['sandbox', '--port', '70000'], { home: home.home })).code).toBe(2);
    expect((await runCli(['sandbox', '--retry-schedule', '1s,soon'], { home: home.home })).stderr).toContain('invalid --retry-schedule');
    expect((await runCli(['sandbox', '--faults', 'chaos'], { home: home.home })).code).toBe(2);
    const noKey = await runCli(['sandbox', '--port', '0', '--va', '1234567890'], { home: home.home });
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain('--va needs --api-key');
  });
});
