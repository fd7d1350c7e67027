import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { closeOnConnectProxy, openTunnel } from '../helpers/proxy.js';
import { localEnv, sandboxAndHome } from '../helpers/sandbox.js';

// Issue 15 item 3: doctor reaches the gateway through the same transport as the real commands, so
// behind a proxy it cannot disagree with them.

interface Check {
  check: string;
  status: string;
  detail: string;
}

/** A CONNECT proxy that tunnels (open) or refuses every tunnel with 403 (closed). */
async function connectProxy(mode: 'open' | 'closed'): Promise<{ url: string; tunnels: string[]; close: () => Promise<void> }> {
  const tunnels: string[] = [];
  const proxy: Server = createServer((_req, res) => void res.writeHead(405).end());
  proxy.on('connect', (req, socket, head) => {
    tunnels.push(req.url!);
    if (mode === 'closed') return void socket.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n');
    openTunnel(req, socket, head);
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    tunnels,
    close: () => new Promise<void>((r) => (proxy.closeAllConnections(), proxy.close(() => r()))),
  };
}

const fx = sandboxAndHome();

async function doctor(env: Record<string, string>): Promise<{ code: number; checks: Check[] }> {
  const r = await runCli(['doctor', '--json'], { env, home: fx.home.home });
  return { code: r.code, checks: (JSON.parse(r.stdout) as { checks: Check[] }).checks };
}
const find = (checks: Check[], name: string) => checks.find((c) => c.check === name)!;

describe('doctor behind a CONNECT proxy', () => {
  it('goes through the proxy like areas does, and its signed request is accepted', async () => {
    const proxy = await connectProxy('open');
    try {
      const env = localEnv(fx.sb, { HTTP_PROXY: proxy.url });
      const areas = await runCli(['areas', 'province', '--no-cache'], { env, home: fx.home.home });
      expect(areas.code, areas.stderr).toBe(0);
      const afterAreas = proxy.tunnels.length;
      expect(afterAreas).toBe(1);
      const d = await doctor(env);
      expect(find(d.checks, 'base URL')).toMatchObject({ status: 'ok', detail: expect.stringContaining('answered HTTP 401') });
      expect(find(d.checks, 'signed request')).toMatchObject({ status: 'ok', detail: 'GET areas/province accepted with VA …0899' });
      expect(proxy.tunnels.length).toBeGreaterThan(afterAreas);
      expect(new Set(proxy.tunnels)).toEqual(new Set([new URL(fx.sb.apiUrl).host]));
    } finally {
      await proxy.close();
    }
  });

  it('fails where areas fails when the proxy refuses, and passes with NO_PROXY as areas does', async () => {
    const proxy = await connectProxy('closed');
    try {
      const env = localEnv(fx.sb, { HTTP_PROXY: proxy.url });
      const areas = await runCli(['areas', 'province', '--no-cache'], { env, home: fx.home.home });
      expect(areas.code).toBe(5);
      const d = await doctor(env);
      expect(d.code).toBe(4);
      expect(find(d.checks, 'base URL').status).toBe('fail');
      expect(proxy.tunnels.length).toBeGreaterThanOrEqual(2);
      const bypass = { ...env, NO_PROXY: '127.0.0.1' };
      expect((await runCli(['areas', 'province', '--no-cache'], { env: bypass, home: fx.home.home })).code).toBe(0);
      expect(find((await doctor(bypass)).checks, 'signed request').status).toBe('ok');
    } finally {
      await proxy.close();
    }
  });

  it('ends, the base URL check failed, behind a proxy that closes every CONNECT (nodejs/undici#3897)', async () => {
    const proxy = await closeOnConnectProxy();
    try {
      const d = await doctor(localEnv(fx.sb, { HTTP_PROXY: proxy.url, HTTPS_PROXY: proxy.url }));
      expect(d.code).toBe(4);
      expect(find(d.checks, 'base URL')).toMatchObject({ status: 'fail', detail: expect.stringContaining('timeout') });
      expect(proxy.connects()).toBeGreaterThan(0);
    } finally {
      await proxy.close();
    }
  }, 60_000);

  it('reports a refused signature as a failed check', async () => {
    const d = await doctor(localEnv(fx.sb, { PAYCLI_VA: '1179000899', PAYCLI_API_KEY: 'WRONG-KEY-1234567890' }));
    expect(d.code).toBe(4);
    expect(find(d.checks, 'signed request')).toMatchObject({ status: 'fail', detail: expect.stringContaining('401') });
  });
});
