// Edges of `paycli listen` found by a review: a --path with a query (a notify URL with a secret), a
// --forward-to that is the listener itself, a forward target's answer in bytes, the VA given the API
// key, `sign-callback --curl` with control characters, and a sender's huge field on the terminal.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signCallbackRequest } from '../../src/core/callback/build.js';
import { sampleCallbackFields } from '../../src/core/callback/sample.js';
import { startListener } from '../../src/core/listener/server.js';
import { run } from '../../src/cli/run.js';
import { runCli, tempHome, testContext } from '../helpers/cli.js';

const VA = '1179000899';
let home: ReturnType<typeof tempHome>;
beforeAll(() => (home = tempHome()));
afterAll(() => home.cleanup());

let trx = 930000;
const signed = () =>
  signCallbackRequest(
    sampleCallbackFields({ status: 'berhasil', method: 'va', channel: 'bca', now: new Date(), url: 'http://127.0.0.1/cb', trxId: trx++ }),
    VA,
    'form',
    new Date(),
    String(trx),
  );

async function post(url: string, body: string | Buffer, headers: Record<string, string>) {
  const res = await request(url, { method: 'POST', headers, body });
  return { status: res.statusCode, bytes: Buffer.from(await res.body.arrayBuffer()) };
}

async function freePort(): Promise<number> {
  const s: Server = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

describe('listen --path with a query', () => {
  it('takes callbacks on exactly that URL (query included), 404 without the query; a #fragment is refused', async () => {
    const l = await startListener({ port: 0, va: VA, path: '/ipaymu?token=s3cret' });
    try {
      const origin = new URL(l.url).origin;
      expect(l.url).toBe(`${origin}/ipaymu?token=s3cret`);
      const cb = signed();
      expect((await post(l.url, cb.body, cb.headers)).status).toBe(200);
      expect((await post(`${origin}/ipaymu`, cb.body, cb.headers)).status).toBe(404);
      expect((await post(`${origin}/ipaymu?token=guess`, cb.body, cb.headers)).status).toBe(404);
    } finally {
      await l.close();
    }
    const r = await runCli(['listen', '--port', '0', '--no-persist', '--path', '/ipaymu#x', '--va', VA], { home: home.home });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('a #fragment is never sent');
  });
});

describe('listen --forward-to itself', () => {
  it('is refused at start (exit 2), before a callback could loop', async () => {
    const port = await freePort();
    for (const target of [`http://localhost:${port}/`, `http://127.0.0.1:${port}/`, `http://[::1]:${port}/`]) {
      const r = await runCli(['listen', '--port', String(port), '--no-persist', '--forward-to', target, '--va', VA], { home: home.home });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`--forward-to ${target} is this listener itself`);
    }
    // Another path of the same port is no loop (the listener answers it 404).
    const other = await startListener({ port, va: VA, forwardTo: [`http://127.0.0.1:${port}/app`] });
    await other.close();
  });
});

describe('listen --forward-to: the answer mirrored', () => {
  it('byte for byte, whatever the bytes', async () => {
    const answer = Buffer.from([0xff, 0xfe, 0x00, 0x80]);
    const app = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(answer));
    });
    await new Promise<void>((r) => app.listen(0, '127.0.0.1', r));
    const l = await startListener({ port: 0, va: VA, forwardTo: [`http://127.0.0.1:${(app.address() as AddressInfo).port}/`] });
    try {
      const cb = signed();
      const r = await post(l.url, cb.body, cb.headers);
      expect(r.status).toBe(200);
      expect(r.bytes.equals(answer)).toBe(true);
    } finally {
      await l.close();
      await new Promise((r) => app.close(r));
    }
  });
});

describe('a VA that is not digits', () => {
  it('is refused without being echoed (it is often the API key)', async () => {
    const key = 'SANDBOX-SECRETKEY-ZZQQ-1234';
    const r = await runCli(['verify-callback', '--data', 'trx_id=5', '--signature', '00', '--va', key, '--json'], {
      home: home.home,
      env: { PAYCLI_API_KEY: key },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('invalid VA');
    expect(r.stderr + r.stdout).not.toContain(key);
  });

  it('is refused without being echoed by the emulator, its seed and --account', async () => {
    const key = 'SANDBOX-SECRETKEY-ZZQQ-5678';
    for (const [args, what] of [
      [['sandbox', '--port', '0', '--in-memory', '--va', key], '--va'],
      [['sandbox', 'seed', '--payments', '1', '--data-dir', join(home.home, 'seed-va'), '--va', key], '--va'],
      [['balance', '--env', 'local', '--account', key], '--account'],
    ] as const) {
      const r = await runCli([...args], { home: home.home });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toContain(`invalid ${what}: expected a virtual account number`);
      expect(r.stderr + r.stdout).not.toContain(key);
    }
  });
});

describe('sign-callback --curl', () => {
  it('prints a command that posts the bytes it signed, control characters included', async () => {
    const l = await startListener({ port: 0, va: VA });
    try {
      const file = join(home.home, 'ctl.form');
      writeFileSync(file, 'trx_id=9&status=berhasil&buyer_name=a\x01b\x1bc');
      const r = await runCli(['sign-callback', file, '--curl', '--to', l.url, '--va', VA], { home: home.home });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain("$'trx_id=9&status=berhasil&buyer_name=a\\x01b\\x1bc'");
      // Not execFileSync: the listener answering it runs in this process.
      const { stdout } = await promisify(execFile)('bash', ['-c', r.stdout], { encoding: 'utf8' });
      expect(stdout).toBe('{"status":"OK"}');
    } finally {
      await l.close();
    }
  });
});

describe("a sender's huge field on the terminal", () => {
  it('is cut short in the human line (a 500 000-digit trx_id is not one line of that length)', async () => {
    const { ctx, out, err } = testContext({ env: { PAYCLI_VA: VA, COLUMNS: '80' }, home: home.home });
    const done = run(['listen', '--port', '0', '--exit-after', '1', '--no-persist'], ctx);
    let url = '';
    for (let i = 0; i < 300 && !url; i++) {
      await new Promise((r) => setTimeout(r, 10));
      url = /http:\/\/127\.0\.0\.1:\d+\//.exec(out() + err())?.[0] ?? '';
    }
    const body = JSON.stringify({ trx_id: '1'.repeat(500_000), status: 'berhasil' });
    expect((await post(url, body, { 'content-type': 'application/json', 'x-signature': '00' })).status).toBe(400);
    await done;
    const longest = Math.max(
      ...out()
        .split('\n')
        .map((l) => l.length),
    );
    expect(longest).toBeLessThan(400);
  });
});
