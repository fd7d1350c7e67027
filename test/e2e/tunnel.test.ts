// `paycli listen --tunnel cloudflared|ngrok` and `paycli pay --notify-url auto` (issue 29 §3), with
// fake tunnel programs first on PATH (test/fixtures/tunnels/): each announces its public URL as the
// real program does (cloudflared on stderr, ngrok through its local API) and forwards bytes from an
// "edge" port, standing in for the gateway reaching the public URL.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { payVa } from '../helpers/argv.js';
import { runCli } from '../helpers/cli.js';
import { spawnPaycli } from '../helpers/spawn.js';
import { EMULATOR_DEFAULT_VA } from '../helpers/sandbox.js';

const ROOT = new URL('../..', import.meta.url).pathname;
const FAKES = join(ROOT, 'test/fixtures/tunnels');
const FIXTURE = readFileSync(join(ROOT, 'test/fixtures/callback-qris-sandbox.form'));
const SIGNATURE = 'c9594cc8c9f5811ecf22422eed1c8071f7837211f58956f616658a904d94f024';
let home: string;

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'paycli-tunnel-'));
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

function envFor(fakeDir: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    HOME: home,
    XDG_DATA_HOME: join(home, 'data'),
    XDG_CONFIG_HOME: join(home, 'config'),
    PATH: `${FAKES}:${process.env.PATH ?? ''}`,
    FAKE_TUNNEL_DIR: fakeDir,
    PAYCLI_API_KEY: 'SECRET-KEY-MUST-NOT-LEAK-123',
    ...extra,
  };
}

/** Collects the spawned listener's stderr and resolves the first JSON line that matches. */
function stderrJson(
  child: ReturnType<typeof spawnPaycli>['child'],
  match: (o: Record<string, unknown>) => boolean,
  ms = 30_000,
): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => reject(new Error(`no matching stderr line; got: ${buf}`)), ms);
    child.stderr!.on('data', (c: Buffer) => {
      buf += c;
      for (const line of buf.split('\n')) {
        try {
          const o = JSON.parse(line) as Record<string, unknown>;
          if (match(o)) {
            clearTimeout(timer);
            resolve(o);
            return;
          }
        } catch {
          // not JSON (yet)
        }
      }
    });
  });
}

async function postThroughEdge(fakeDir: string): Promise<number> {
  const edge = Number(readFileSync(join(fakeDir, 'edge'), 'utf8'));
  const res = await request(`http://127.0.0.1:${edge}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-signature': SIGNATURE },
    body: FIXTURE,
  });
  await res.body.dump();
  return res.statusCode;
}

describe('listen --tunnel', () => {
  it('cloudflared: prints the trycloudflare URL, pay --notify-url auto uses it, the bytes arrive exact, and --exit-after stops the tunnel', async () => {
    const fake = mkdtempSync(join(home, 'cf-'));
    const store = join(home, 'cf-events.db');
    const env = envFor(fake);
    const listener = spawnPaycli(['--env', 'local', 'listen', '--port', '0', '--tunnel', 'cloudflared', '--json', '--exit-after', '1', '--store', store], env);
    const banner = await stderrJson(listener.child, (o) => o.event === 'listening');
    expect(banner.publicUrl).toBe('https://fair-dogs-example-quick.trycloudflare.com/');
    expect(banner.tunnel).toBe('cloudflared');
    // The state file pay reads: 0600, naming the public URL.
    const stateFile = join(home, 'data/paycli/listener.json');
    expect(statSync(stateFile).mode & 0o777).toBe(0o600);
    const pay = await runCli(
      ['--env', 'local', ...payVa({ name: 'Putu', email: 'p@mail.com' }), '--item', 'Kopi:1:50000', '--notify-url', 'auto', '--dry-run', '--json'],
      { env: { XDG_DATA_HOME: join(home, 'data'), XDG_CONFIG_HOME: join(home, 'config') } },
    );
    expect(pay.code, pay.stderr).toBe(0);
    expect(JSON.parse(JSON.parse(pay.stdout).body).notifyUrl).toBe('https://fair-dogs-example-quick.trycloudflare.com/');
    // The gateway reaches the public URL: the tunnel forwards; the listener verifies the exact bytes.
    expect(await postThroughEdge(fake)).toBe(200);
    const line = await listener.waitForJson((o) => typeof o.verdict === 'string');
    expect(line.verdict).toBe('valid');
    expect(await listener.exited).toBe(0);
    const shown = await runCli(['events', 'show', String(line.id), '--json', '--store', store], { env: { XDG_DATA_HOME: join(home, 'data') } });
    const stored = JSON.parse(shown.stdout) as { body: string; headers: Record<string, string> };
    expect(Buffer.from(stored.body, 'utf8').equals(FIXTURE)).toBe(true);
    expect(stored.headers['x-signature']).toBe(SIGNATURE);
    // The tunnel was started as a quick tunnel to the listener, stopped with it, and never saw a secret.
    const started = JSON.parse(readFileSync(join(fake, 'args.json'), 'utf8')) as { args: string[]; env: string[] };
    expect(started.args.slice(0, 3)).toEqual(['tunnel', '--no-autoupdate', '--url']);
    expect(started.args[3]).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(started.env.filter((k) => k.startsWith('PAYCLI_'))).toEqual([]);
    expect(existsSync(join(fake, 'stopped'))).toBe(true);
    expect(existsSync(stateFile)).toBe(false);
  });

  it('ngrok: the URL comes from its local API; Ctrl-C stops listener and tunnel (exit 130)', async () => {
    const fake = mkdtempSync(join(home, 'ngrok-'));
    const listener = spawnPaycli(['--env', 'local', 'listen', '--port', '0', '--tunnel', 'ngrok', '--json', '--no-persist'], envFor(fake));
    const banner = await stderrJson(listener.child, (o) => o.event === 'listening');
    expect(banner.publicUrl).toBe('https://0123-abcd-from-api.ngrok-free.app/');
    const started = JSON.parse(readFileSync(join(fake, 'args.json'), 'utf8')) as { args: string[] };
    expect(started.args).toEqual(['http', expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/), '--log', 'stdout', '--log-format', 'json']);
    expect(await postThroughEdge(fake)).toBe(200);
    await listener.waitForJson((o) => o.verdict === 'valid');
    listener.child.kill('SIGINT');
    expect(await listener.exited).toBe(130);
    expect(existsSync(join(fake, 'stopped'))).toBe(true);
  });

  it('a tunnel that fails to start: exit 5 with its own reason; the listener does not stay up', async () => {
    const fake = mkdtempSync(join(home, 'fail-'));
    for (const [kind, reason] of [
      ['cloudflared', 'failed to request quick Tunnel'],
      ['ngrok', 'authtoken'],
    ] as const) {
      const r = await runCli(['--env', 'local', 'listen', '--port', '0', '--tunnel', kind, '--no-persist'], {
        env: envFor(fake, { FAKE_TUNNEL_MODE: 'fail' }),
      });
      expect(r.code, r.stderr).toBe(5);
      expect(r.stderr).toContain(`${kind} exited`);
      expect(r.stderr).toContain(reason);
    }
  });

  it('a tunnel that dies while listening ends the listener with exit 5', async () => {
    const fake = mkdtempSync(join(home, 'die-'));
    const listener = spawnPaycli(['--env', 'local', 'listen', '--port', '0', '--tunnel', 'cloudflared', '--json', '--no-persist'], envFor(fake));
    await stderrJson(listener.child, (o) => o.event === 'listening');
    process.kill(Number(readFileSync(join(fake, 'pid'), 'utf8')), 'SIGKILL');
    expect(await listener.exited).toBe(5);
  });

  it('not installed: exit 2 with an install hint, nothing downloaded; an unknown program or --ui is a usage error', async () => {
    const env = { PATH: '/nonexistent', XDG_DATA_HOME: join(home, 'data') };
    const cf = await runCli(['--env', 'local', 'listen', '--port', '0', '--tunnel', 'cloudflared'], { env });
    expect(cf.code).toBe(2);
    expect(cf.stderr).toContain('cloudflared is not installed');
    expect(cf.stderr).toContain('brew install cloudflared');
    const ng = await runCli(['--env', 'local', 'listen', '--port', '0', '--tunnel', 'ngrok'], { env });
    expect(ng.stderr).toContain('ngrok config add-authtoken');
    expect((await runCli(['--env', 'local', 'listen', '--tunnel', 'localtunnel'], { env })).code).toBe(2);
    const ui = await runCli(['--env', 'local', 'listen', '--port', '0', '--tunnel', 'cloudflared', '--ui'], { env: { PATH: FAKES } });
    expect(ui.code).toBe(2);
    expect(ui.stderr).toContain('--ui cannot be used with --tunnel');
  });
});

describe('pay --notify-url auto', () => {
  const payArgs = [...payVa({ name: 'Putu', email: 'p@mail.com' }), '--item', 'Kopi:1:50000', '--notify-url', 'auto', '--dry-run', '--json'];
  const dataHome = () => join(home, 'auto-data');
  const state = (o: Record<string, unknown>) => {
    const dir = join(dataHome(), 'paycli');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'listener.json'), JSON.stringify(o));
  };

  it('a usage error when no listener runs, or when the one in the file has gone', async () => {
    const none = await runCli(['--env', 'local', ...payArgs], { env: { XDG_DATA_HOME: dataHome() } });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('no `paycli listen` is running');
    state({ pid: 2 ** 22 + 12345, url: 'http://127.0.0.1:8080', publicUrl: 'https://gone.trycloudflare.com', path: '/' });
    const stale = await runCli(['--env', 'local', ...payArgs], { env: { XDG_DATA_HOME: dataHome() } });
    expect(stale.code).toBe(2);
  });

  it('a listener without a tunnel serves the emulator, but not a gateway that cannot reach this machine', async () => {
    state({ pid: process.pid, url: 'http://127.0.0.1:8123', publicUrl: null, tunnel: null, path: '/cb' });
    const local = await runCli(['--env', 'local', ...payArgs], { env: { XDG_DATA_HOME: dataHome() } });
    expect(local.code, local.stderr).toBe(0);
    expect(JSON.parse(JSON.parse(local.stdout).body).notifyUrl).toBe('http://127.0.0.1:8123/cb');
    const remote = await runCli(['--env', 'sandbox', '--va', EMULATOR_DEFAULT_VA, ...payArgs], {
      env: { XDG_DATA_HOME: dataHome(), PAYCLI_API_KEY: 'SOME-SANDBOX-KEY-1234' },
    });
    expect(remote.code).toBe(2);
    expect(remote.stderr).toContain('no public URL');
    state({ pid: process.pid, url: 'http://127.0.0.1:8123', publicUrl: 'https://abc.trycloudflare.com', tunnel: 'cloudflared', path: '/cb' });
    const viaTunnel = await runCli(['--env', 'sandbox', '--va', EMULATOR_DEFAULT_VA, ...payArgs], {
      env: { XDG_DATA_HOME: dataHome(), PAYCLI_API_KEY: 'SOME-SANDBOX-KEY-1234' },
    });
    expect(viaTunnel.code, viaTunnel.stderr).toBe(0);
    expect(JSON.parse(JSON.parse(viaTunnel.stdout).body).notifyUrl).toBe('https://abc.trycloudflare.com/cb');
    // pay --redirect takes it too.
    const redirect = await runCli(
      [
        '--env',
        'local',
        'pay',
        '--redirect',
        '--item',
        'Kaos:1:75000',
        '--notify-url',
        'auto',
        '--return-url',
        'https://shop.example/thanks',
        '--dry-run',
        '--json',
      ],
      { env: { XDG_DATA_HOME: dataHome() } },
    );
    expect(redirect.code, redirect.stderr).toBe(0);
    expect(JSON.parse(JSON.parse(redirect.stdout).body).notifyUrl).toBe('https://abc.trycloudflare.com/cb');
  });
});
