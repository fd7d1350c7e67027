import { createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashRequestBody } from '../../src/core/signing/request-signature.js';
import { hmacHex } from '../../src/core/signing/callback-signature.js';
import { payVa } from '../helpers/argv.js';
import { runCli, tempHome } from '../helpers/cli.js';
import { closeOnConnectProxy, openTunnel } from '../helpers/proxy.js';
import { BIN } from '../helpers/spawn.js';

const VA = '0000001234567890';
const KEY = 'YOUR_API_KEY';
let home: ReturnType<typeof tempHome>;
beforeAll(() => (home = tempHome()));
afterAll(() => home.cleanup());

async function recorder() {
  const seen: { method: string; url: string; headers: IncomingMessage['headers']; body: string }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      const data = req.url!.includes('payment')
        ? {
            TransactionId: 1,
            ReferenceId: 'R',
            Via: 'va',
            Channel: 'bca',
            PaymentNo: '8868000000000001',
            PaymentName: 'BCA',
            Total: 1000,
            Fee: 0,
            Expired: '2030-01-01 00:00:00',
            Note: null,
            Url: 'http://x/pay/1',
          }
        : [];
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ Status: 200, Success: true, Message: 'Success', Data: data }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { seen, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((r) => server.close(r)) };
}

describe('what paycli puts on the wire', () => {
  it('signs GET and POST with the exact method, path, headers and body bytes', async () => {
    const rec = await recorder();
    const env = { PAYCLI_BASE_URL: `${rec.url}/api`, PAYCLI_VA: VA, PAYCLI_API_KEY: KEY };
    expect((await runCli(['areas', 'district', '5171', '--no-cache'], { env, home: home.home })).code).toBe(0);
    const pay = await runCli([...payVa({ name: 'Ñyoman' }), '--item', 'Kopi/Teh:1:1000', '--notify-url', 'https://shop.example/cb', '--reference-id', 'R-9'], {
      env,
      home: home.home,
    });
    expect(pay.code, pay.stderr).toBe(0);
    const [get, post] = rec.seen;
    expect(get).toMatchObject({ method: 'GET', url: '/api/areas/district/5171', body: '' });
    expect(get!.headers).toMatchObject({ va: VA, 'content-type': 'application/json', accept: 'application/json' });
    expect(get!.headers['user-agent']).toMatch(/^paycli\/\d+\.\d+\.\d+$/);
    expect(get!.headers.timestamp).toMatch(/^\d{14}$/);
    expect(get!.headers.signature).toBe(hmacHex(KEY, `GET:${VA}:${hashRequestBody('')}:${KEY}`));
    expect(post).toMatchObject({ method: 'POST', url: '/api/v2/payment/direct' });
    expect(post!.body).toBe(
      '{"name":"\\u00d1yoman","phone":"08123456789","email":"a@b.co","amount":1000,"notifyUrl":"https://shop.example/cb","referenceId":"R-9","paymentMethod":"va","paymentChannel":"bca","product":["Kopi/Teh"],"qty":[1],"price":[1000]}',
    );
    expect(post!.headers.signature).toBe(hmacHex(KEY, `POST:${VA}:${hashRequestBody(post!.body)}:${KEY}`));
    expect(post!.headers.signature).not.toBe(KEY);
    await rec.close();
  });

  it('goes through HTTP_PROXY, and around it for NO_PROXY hosts', async () => {
    const rec = await recorder();
    const proxied: string[] = [];
    // A minimal forward proxy: absolute-form request line in, the same request out.
    const proxy = createServer((req, res) => {
      proxied.push(req.url!);
      const target = new URL(req.url!);
      const up = httpRequest(
        { host: target.hostname, port: target.port, path: target.pathname + target.search, method: req.method, headers: req.headers },
        (r) => {
          res.writeHead(r.statusCode!, r.headers);
          r.pipe(res);
        },
      );
      req.pipe(up);
    });
    // undici tunnels through the proxy with CONNECT.
    proxy.on('connect', (req, socket, head) => {
      proxied.push(`CONNECT ${req.url}`);
      openTunnel(req, socket, head);
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    const env = { PAYCLI_BASE_URL: `${rec.url}/api`, PAYCLI_VA: VA, PAYCLI_API_KEY: KEY, HTTP_PROXY: proxyUrl };
    expect((await runCli(['areas', 'province', '--no-cache'], { env, home: home.home })).code).toBe(0);
    expect(proxied).toHaveLength(1);
    expect(proxied[0]).toMatch(new RegExp(`^(CONNECT ${rec.url.replace('http://', '')}|${rec.url}/api/areas/province)$`));
    expect((await runCli(['areas', 'province', '--no-cache'], { env: { ...env, NO_PROXY: '127.0.0.1' }, home: home.home })).code).toBe(0);
    expect(proxied).toHaveLength(1);
    expect(rec.seen).toHaveLength(2);
    proxy.closeAllConnections();
    await new Promise((r) => proxy.close(r));
    await rec.close();
  });
});

describe('lazy loading', () => {
  it('--help and --version import neither undici, @inquirer/prompts nor ora', async () => {
    const hook = `data:text/javascript,${encodeURIComponent(`
      export async function resolve(specifier, context, next) {
        const r = await next(specifier, context);
        if (/node_modules\\/(undici|@inquirer|ora)\\//.test(r.url)) process.stderr.write('LOADED ' + r.url + '\\n');
        return r;
      }`)}`;
    const register = `data:text/javascript,${encodeURIComponent(`import { register } from 'node:module'; register(${JSON.stringify(hook)});`)}`;
    const exec = promisify(execFile);
    for (const args of [['--help'], ['--version'], ['areas', '--help'], ['pay', '--help']]) {
      const { stderr, stdout } = await exec(process.execPath, ['--import', register, BIN, ...args], { env: { PATH: process.env.PATH, HOME: home.home } });
      expect(stdout.length).toBeGreaterThan(0);
      expect(stderr, args.join(' ')).not.toContain('LOADED');
    }
    // An API call uses node:http; the undici package only when a proxy needs it —
    // and the hook does see it then.
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const direct = await exec(
      process.execPath,
      ['--import', register, BIN, 'areas', 'province', '--no-cache', '--base-url', `http://127.0.0.1:${port}/api`, '--env', 'local'],
      { env: { PATH: process.env.PATH, HOME: home.home } },
    ).catch((e) => e);
    expect(direct.stderr).toContain('connection refused');
    expect(direct.stderr).not.toContain('LOADED');
    const proxied = await exec(
      process.execPath,
      ['--import', register, BIN, 'areas', 'province', '--no-cache', '--base-url', `http://127.0.0.1:${port}/api`, '--env', 'local'],
      { env: { PATH: process.env.PATH, HOME: home.home, HTTP_PROXY: `http://127.0.0.1:${port}` } },
    ).catch((e) => e);
    expect(proxied.stderr).toMatch(/LOADED .*undici/);
    // node:http reaches every port, even those on the Fetch standard's block list (here 9): still no package.
    const blocked = await exec(
      process.execPath,
      ['--import', register, BIN, 'areas', 'province', '--no-cache', '--base-url', 'http://127.0.0.1:9/api', '--env', 'local'],
      { env: { PATH: process.env.PATH, HOME: home.home } },
    ).catch((e) => e);
    expect(blocked.stderr).toContain('connection refused');
    expect(blocked.stderr).not.toContain('LOADED');
  });
});

describe('a proxy that closes the connection during CONNECT (nodejs/undici#3897)', () => {
  // undici's proxy agent re-queues the request after such a close and reconnects without end,
  // whatever the request's signal says: --timeout and Ctrl-C must still end the command.
  const env = (proxyUrl: string) => ({ PAYCLI_VA: VA, PAYCLI_API_KEY: KEY, HTTPS_PROXY: proxyUrl, HTTP_PROXY: proxyUrl });

  it('--timeout ends the request (exit 5) and the reconnecting stops', async () => {
    const proxy = await closeOnConnectProxy();
    const r = await runCli(['areas', 'province', '--no-cache', '--env', 'local', '--base-url', 'https://127.0.0.1:9/api', '--timeout', '1s'], {
      env: env(proxy.url),
      home: home.home,
    });
    expect(r.code, r.stderr).toBe(5);
    expect(r.stderr).toMatch(/timeout/);
    expect(r.stderr).toContain('hint: raise --timeout, or check the proxy (HTTPS_PROXY, HTTP_PROXY, NO_PROXY)');
    expect(proxy.connects()).toBeGreaterThan(0);
    await proxy.close();
  }, 60_000);

  it('--timeout ends a payment POST too (no retry, exit 5)', async () => {
    const proxy = await closeOnConnectProxy();
    const r = await runCli(
      [
        ...payVa({ name: 'Budi' }),
        '--item',
        'Kopi:1:10000',
        '--notify-url',
        'https://shop.example/cb',
        '--env',
        'local',
        '--base-url',
        'https://127.0.0.1:9/api',
        '--timeout',
        '1s',
      ],
      { env: env(proxy.url), home: home.home },
    );
    expect(r.code, r.stderr).toBe(5);
    await proxy.close();
  }, 60_000);

  it('Ctrl-C ends the request at once (exit 130) under a long --timeout', async () => {
    const proxy = await closeOnConnectProxy();
    const ctrlC = new AbortController();
    void proxy.firstConnect().then(() => ctrlC.abort());
    const r = await runCli(['areas', 'province', '--no-cache', '--env', 'local', '--base-url', 'https://127.0.0.1:9/api', '--timeout', '1h'], {
      env: env(proxy.url),
      home: home.home,
      signal: ctrlC.signal,
    });
    expect(r.code, r.stderr).toBe(130);
    await proxy.close();
  }, 60_000);
});
