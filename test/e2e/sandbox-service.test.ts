// The emulator as a service (issue 29 §1): `sandbox health`, `--ready-file` and its `ready` line,
// `sandbox env`, the PAYCLI_SANDBOX_* settings (a flag wins), and the banner's advice.
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { runCli } from '../helpers/cli.js';
import { EMULATOR_DEFAULT_API_KEY, EMULATOR_DEFAULT_VA, sandbox } from '../helpers/sandbox.js';
import { BIN, spawnPaycli } from '../helpers/spawn.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'paycli-service-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('paycli sandbox --ready-file', () => {
  it('appears only once the port accepts connections, whole, 0600, and goes when the emulator stops', async () => {
    const file = join(dir, 'ready.json');
    // Settings from the environment, as a container gives them.
    const sb = spawnPaycli(['sandbox', '--json'], { HOME: dir, PAYCLI_SANDBOX_PORT: '0', PAYCLI_SANDBOX_IN_MEMORY: 'true', PAYCLI_SANDBOX_READY_FILE: file });
    try {
      while (!existsSync(file)) {
        expect(sb.child.exitCode, sb.lines.join('\n')).toBeNull();
        await sleep(5);
      }
      // The moment it exists it is complete and its address answers.
      const ready = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
      const health = await request(`${ready.url}/_sandbox/health`);
      expect(health.statusCode).toBe(200);
      await health.body.dump();
      expect(ready).toMatchObject({ event: 'ready', va: EMULATOR_DEFAULT_VA, apiKey: EMULATOR_DEFAULT_API_KEY });
      expect(ready.baseUrl).toBe(`${ready.url}/api`);
      expect(ready.dashboardUrl).toBe(`${ready.url}/`);
      expect(ready.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
      // --json: a `ready` line after `started`, with the same facts.
      const line = await sb.waitForJson((o) => o.event === 'ready');
      expect(line).toEqual(ready);
      const started = sb.lines.findIndex((l) => l.includes('"event":"started"'));
      expect(started).toBeGreaterThanOrEqual(0);
      expect(started).toBeLessThan(sb.lines.findIndex((l) => l.includes('"event":"ready"')));
    } finally {
      sb.child.kill('SIGTERM');
      await sb.exited;
    }
    expect(existsSync(file)).toBe(false);
  });

  it('a merchant key of its own is never written (apiKey null), and a 0.0.0.0 bind is announced on loopback', async () => {
    const file = join(dir, 'ready-own.json');
    const keyFile = join(dir, 'key.txt');
    writeFileSync(keyFile, 'OWN-SECRET-KEY-123456789\n');
    const sb = spawnPaycli(['sandbox', '--json', '--in-memory', '--port', '0', '--host', '0.0.0.0', '--va', '1234567890', '--ready-file', file], {
      HOME: dir,
      PAYCLI_SANDBOX_API_KEY_FILE: keyFile,
    });
    try {
      const line = await sb.waitForJson((o) => o.event === 'ready', 20_000);
      expect(line.apiKey).toBeNull();
      expect(line.va).toBe('1234567890');
      expect(String(line.url)).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const text = readFileSync(file, 'utf8');
      expect(text).not.toContain('OWN-SECRET');
      expect(sb.lines.join('\n')).not.toContain('OWN-SECRET');
    } finally {
      sb.child.kill('SIGTERM');
      await sb.exited;
    }
  });

  it('an unwritable ready file is one line, exit 2', async () => {
    const r = await runCli(['sandbox', '--in-memory', '--port', '0', '--ready-file', join(dir, 'no/such/dir/ready.json')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('cannot write --ready-file');
  });
});

describe('PAYCLI_SANDBOX_* settings', () => {
  it('the environment is read, and a flag wins over it', async () => {
    const bad = await runCli(['sandbox', '--in-memory'], { env: { PAYCLI_SANDBOX_HOST: '256.1.1.1', PAYCLI_SANDBOX_PORT: '0' } });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('256.1.1.1');
    const port = await runCli(['sandbox', '--in-memory'], { env: { PAYCLI_SANDBOX_PORT: '99999' } });
    expect(port.code).toBe(2);
    expect(port.stderr).toContain('99999');
    // The flag wins: the bad variables are never looked at.
    const sb = spawnPaycli(['sandbox', '--json', '--in-memory', '--port', '0', '--host', '127.0.0.1', '--callback-format', 'json'], {
      HOME: dir,
      PAYCLI_SANDBOX_HOST: '256.1.1.1',
      PAYCLI_SANDBOX_PORT: '99999',
      PAYCLI_SANDBOX_CALLBACK_FORMAT: 'xml',
    });
    try {
      const ready = await sb.waitForJson((o) => o.event === 'ready', 20_000);
      expect(String(ready.url)).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    } finally {
      sb.child.kill('SIGTERM');
      await sb.exited;
    }
    // A Compose service name as Host: refused unless allowed (flag or PAYCLI_SANDBOX_ALLOW_HOSTS).
    for (const [args, env, status] of [
      [[], {}, 403],
      [['--allow-host', 'paycli'], {}, 200],
      [[], { PAYCLI_SANDBOX_ALLOW_HOSTS: 'shop, paycli' }, 200],
    ] as const) {
      const p = spawnPaycli(['sandbox', '--json', '--in-memory', '--port', '0', ...args], { HOME: dir, ...env });
      try {
        const ready = await p.waitForJson((o) => o.event === 'ready', 20_000);
        const res = await request(`${String(ready.url)}/_sandbox/health`, { headers: { host: `paycli:${new URL(String(ready.url)).port}` } });
        await res.body.dump();
        expect(res.statusCode, JSON.stringify(args) + JSON.stringify(env)).toBe(status);
      } finally {
        p.child.kill('SIGTERM');
        await p.exited;
      }
    }
    const boolBad = await runCli(['sandbox', '--port', '0'], { env: { PAYCLI_SANDBOX_IN_MEMORY: 'maybe' } });
    expect(boolBad.code).toBe(2);
    expect(boolBad.stderr).toContain('PAYCLI_SANDBOX_IN_MEMORY');
  });
});

describe('paycli sandbox health', () => {
  it('exit 0 when the emulator answers, 5 when nothing listens or something else answers', async () => {
    const sb = await sandbox();
    try {
      const ok = await runCli(['sandbox', 'health', '--sandbox-url', sb.url]);
      expect(ok.code).toBe(0);
      expect(ok.stdout).toContain(`ok: emulator at ${sb.url}`);
      const json = await runCli(['sandbox', 'health', '--json'], { env: { PAYCLI_SANDBOX_URL: sb.url } });
      expect(JSON.parse(json.stdout)).toMatchObject({ ok: true, url: sb.url });
      // PAYCLI_SANDBOX_PORT (the container's setting) is where it looks by default.
      const byPort = await runCli(['sandbox', 'health'], { env: { PAYCLI_SANDBOX_PORT: String(sb.port) } });
      expect(byPort.code).toBe(0);
    } finally {
      await sb.close();
    }
    const gone = await runCli(['sandbox', 'health', '--sandbox-url', sb.url]);
    expect(gone.code).toBe(5);
    expect(gone.stderr).toContain('cannot reach the emulator');
    const other = createServer((_req, res) => res.writeHead(503, { 'content-type': 'application/json' }).end('{"ok":false}'));
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', () => r()));
    try {
      const port = (other.address() as { port: number }).port;
      const r = await runCli(['sandbox', 'health', '--sandbox-url', `http://127.0.0.1:${port}`]);
      expect(r.code).toBe(5);
      expect(r.stderr).toContain('not healthy');
    } finally {
      other.close();
    }
    expect((await runCli(['sandbox', 'health', '--sandbox-url', 'ftp://x'])).code).toBe(2);
  });
});

describe('paycli sandbox env', () => {
  it('prints exports that aim every command at an emulator on any port (eval in a real shell)', async () => {
    const sb = await sandbox();
    try {
      const r = await runCli(['sandbox', 'env', '--sandbox-url', sb.url]);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(
        `export PAYCLI_ENV=local\nexport PAYCLI_BASE_URL=${sb.apiUrl}\nexport PAYCLI_SANDBOX_URL=${sb.url}\nexport PAYCLI_VA=${EMULATOR_DEFAULT_VA}\nexport PAYCLI_API_KEY=${EMULATOR_DEFAULT_API_KEY}\n`,
      );
      const fish = await runCli(['sandbox', 'env', '--sandbox-url', sb.url, '--shell', 'fish']);
      expect(fish.stdout).toContain(`set -gx PAYCLI_BASE_URL ${sb.apiUrl}\n`);
      const json = JSON.parse((await runCli(['sandbox', 'env', '--sandbox-url', sb.url, '--json'])).stdout);
      expect(json).toMatchObject({ PAYCLI_BASE_URL: sb.apiUrl, PAYCLI_VA: EMULATOR_DEFAULT_VA });
      // What a user types: eval, then plain commands (an API call and an admin command) reach it.
      const script = `set -e; eval "$("${process.execPath}" "${BIN}" sandbox env --sandbox-url ${sb.url})"; "${process.execPath}" "${BIN}" areas province --json | head -c 200; echo; "${process.execPath}" "${BIN}" sandbox list --json`;
      // Asynchronously: the emulator answers from this process.
      const sh = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
        execFile('bash', ['-c', script], { env: { PATH: process.env.PATH ?? '', HOME: dir }, encoding: 'utf8', timeout: 60_000 }, (err, stdout, stderr) =>
          resolve({ status: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
        );
      });
      expect(sh.status, sh.stderr).toBe(0);
      expect(sh.stdout).toContain('"BALI"');
      expect(sh.stdout).toContain('[]');
    } finally {
      await sb.close();
    }
  });

  it('an emulator whose merchant has a key of its own: no key exported, a note on stderr', async () => {
    const sb = await sandbox({ va: '1234567890', apiKey: 'OWN-SECRET-KEY-123456789' });
    try {
      const r = await runCli(['sandbox', 'env', '--sandbox-url', sb.url]);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('export PAYCLI_VA=1234567890\n');
      expect(r.stdout).not.toContain('PAYCLI_API_KEY');
      expect(r.stdout + r.stderr).not.toContain('OWN-SECRET');
      expect(r.stderr).toContain('set PAYCLI_API_KEY');
    } finally {
      await sb.close();
    }
  });

  it('the banner of an emulator on another port advises `sandbox env` with its URL', async () => {
    const human = spawnSync(process.execPath, [BIN, 'sandbox', '--in-memory', '--port', '0', '--help'], { encoding: 'utf8' });
    expect(human.stdout).toContain('PAYCLI_SANDBOX_PORT');
    const banner = await new Promise<string>((resolve) => {
      const p = spawnPaycli(['sandbox', '--in-memory', '--port', '0'], { HOME: dir });
      let err = '';
      p.child.stderr!.on('data', (c: Buffer) => {
        err += c;
        if (err.includes('log times')) {
          p.child.kill('SIGTERM');
          void p.exited.then(() => resolve(err));
        }
      });
    });
    expect(banner).toMatch(/use it +eval "\$\(paycli sandbox env --sandbox-url http:\/\/127\.0\.0\.1:\d+\)"/);
  });
});
