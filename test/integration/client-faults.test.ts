import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { payVa } from '../helpers/argv.js';
import { runCli, tempHome } from '../helpers/cli.js';

/** A scripted loopback server: each request gets the next behaviour. */
async function scripted(behaviours: ((req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void)[]) {
  let i = 0;
  let connections = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    const b = behaviours[Math.min(i++, behaviours.length - 1)]!;
    req.resume();
    req.on('end', () => b(req, res));
  });
  server.on('connection', (s) => {
    connections++;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`,
    requests: () => i,
    connections: () => connections,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

const ok = (res: import('node:http').ServerResponse) =>
  res.writeHead(200, { 'content-type': 'application/json' }).end('{"Status":200,"Success":true,"Message":"Success","Data":[{"code":"51","name":"BALI"}]}');
const env = (base: string, timeout = '800') => ({ PAYCLI_ENV: 'local', PAYCLI_BASE_URL: base, PAYCLI_TIMEOUT: timeout });
const payArgs = [...payVa(), '--item', 'A:1:1000', '--notify-url', 'http://127.0.0.1:9/'];

let servers: { close: () => Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

describe('client faults: one clear line and the documented exit code', () => {
  const home = tempHome();

  it('honours the timeout when the server hangs (exit 5)', async () => {
    const s = await scripted([() => undefined]);
    servers.push(s);
    const r = await runCli(['areas', 'province', '--no-cache'], { env: env(s.base, '300'), home: home.home });
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/timeout/);
    expect(r.stderr.split('\n').filter(Boolean)).toHaveLength(2); // the error and its hint
  });

  it('retries GET on a reset with backoff and then succeeds', async () => {
    const s = await scripted([(_q, res) => res.socket?.destroy(), (_q, res) => res.socket?.destroy(), (_q, res) => ok(res)]);
    servers.push(s);
    const r = await runCli(['areas', 'province', '--no-cache', '--json'], { env: env(s.base), home: home.home });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([{ code: '51', name: 'BALI' }]);
    expect(s.requests()).toBe(3);
  });

  it('retries GET on 502/503 and reports the last failure', async () => {
    const s = await scripted([(_q, res) => res.writeHead(503).end('busy')]);
    servers.push(s);
    const r = await runCli(['areas', 'province', '--no-cache'], { env: env(s.base), home: home.home });
    expect(s.requests()).toBe(3);
    expect(r.code).toBe(5);
    expect(r.stderr).toContain('malformed response');
  });

  it('never retries a payment POST', async () => {
    const s = await scripted([(_q, res) => res.socket?.destroy()]);
    servers.push(s);
    const r = await runCli(payArgs, { env: env(s.base), home: home.home });
    expect(r.code).toBe(5);
    expect(s.requests()).toBe(1);
    expect(s.connections()).toBe(1);
    expect(r.stderr).toContain('reset');
  });

  it('maps a truncated JSON body, an HTML error page and a 500 envelope', async () => {
    const trunc = await scripted([(_q, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"Status":200,"Succ')]);
    const html = await scripted([(_q, res) => res.writeHead(502, { 'content-type': 'text/html' }).end('<html><body>Bad Gateway</body></html>')]);
    const five = await scripted([
      (_q, res) => res.writeHead(500, { 'content-type': 'application/json' }).end('{"Status":500,"Success":false,"Message":"internal error","Data":null}'),
    ]);
    servers.push(trunc, html, five);
    const a = await runCli(['areas', 'province', '--no-cache'], { env: env(trunc.base), home: home.home });
    expect(a.code).toBe(5);
    expect(a.stderr).toContain('possibly truncated');
    const b = await runCli(payArgs, { env: env(html.base), home: home.home });
    expect(b.code).toBe(5);
    expect(b.stderr).toContain('an HTML page');
    const c = await runCli(payArgs, { env: env(five.base), home: home.home });
    expect(c.code).toBe(3);
    expect(c.stderr).toContain('the gateway answered 500: "internal error"');
  });

  it('reports slow headers as a timeout', async () => {
    const s = await scripted([(_q, res) => setTimeout(() => ok(res), 2000)]);
    servers.push(s);
    const r = await runCli(payArgs, { env: env(s.base, '300'), home: home.home });
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/timeout/);
  });

  it('describes DNS, TLS and timeout causes in one phrase (no lookup leaves this machine)', async () => {
    const { describeNetworkError } = await import('../../src/core/http/client.js');
    const withCause = (code: string) => Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error('x'), { code }) });
    expect(describeNetworkError(withCause('ENOTFOUND'), 1000)).toBe('DNS lookup failed (host not found)');
    expect(describeNetworkError(withCause('EAI_AGAIN'), 1000)).toBe('DNS lookup failed (host not found)');
    expect(describeNetworkError(withCause('CERT_HAS_EXPIRED'), 1000)).toBe('TLS failed (CERT_HAS_EXPIRED)');
    expect(describeNetworkError(withCause('UND_ERR_CONNECT_TIMEOUT'), 1000)).toBe('could not connect within 1000 ms');
    expect(describeNetworkError(new DOMException('aborted', 'TimeoutError'), 1000)).toBe('no complete answer within 1000 ms (timeout)');
  });
});
