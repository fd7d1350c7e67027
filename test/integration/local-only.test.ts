import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { signCallbackRequest } from '../../src/core/callback/build.js';
import { sampleCallbackFields } from '../../src/core/callback/sample.js';
import { hostRefusal, pageRefusal } from '../../src/core/dashboard/html.js';
import { EventStore, type StoredEvent } from '../../src/core/listener/event-store.js';
import { startListener } from '../../src/core/listener/server.js';
import { createListenerUi, UI_BODY_KEEP_BYTES, UI_MEMORY_BYTES } from '../../src/core/listener/ui.js';
import type { EmulatorHandle } from '../../src/core/sandbox/server.js';
import { CHROMIUM, haveBrowser, launchChromium } from '../helpers/browser.js';
import { receiver } from '../helpers/receiver.js';
import { EMULATOR_DEFAULT_VA as VA, sandbox, signedPost } from '../helpers/sandbox.js';
import { appended } from '../helpers/event-store.js';

/** Issue 26 items 3, 5, 9 and 10: what only this machine may reach, and what the pages may cost. */

const inCi = Boolean(process.env.CI);

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A raw request with exactly these headers (fetch would not let a test set Host or Origin). */
function raw(
  url: string,
  method: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function emulator(): Promise<EmulatorHandle> {
  const sb = await sandbox();
  cleanups.push(() => sb.close());
  return sb;
}

async function payment(sb: EmulatorHandle, notifyUrl: string): Promise<number> {
  const text = JSON.stringify({
    name: 'Putu',
    phone: '08123456789',
    email: 'p@x.co',
    product: ['Kopi'],
    qty: [1],
    price: [50000],
    amount: 50000,
    notifyUrl,
    paymentMethod: 'va',
    paymentChannel: 'bca',
  });
  const req = signedPost(sb.apiUrl, 'v2/payment/direct', text);
  const res = await request(req.url, { method: 'POST', headers: req.headers, body: text });
  return ((await res.body.json()) as { Data: { TransactionId: number } }).Data.TransactionId;
}

async function serveOn(handler: Parameters<typeof createServer>[1], host = '127.0.0.1'): Promise<{ port: number }> {
  const server: Server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, host, r));
  cleanups.push(
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );
  return { port: (server.address() as AddressInfo).port };
}

describe('the emulator answers only Hosts no DNS-rebinding page can use', () => {
  it('names the rule: IP literals, localhost, *.internal and the given names', () => {
    for (const h of [
      '127.0.0.1:4010',
      '[::1]:4010',
      '192.168.1.5:4010',
      'localhost:4010',
      'app.localhost',
      'host.docker.internal:4010',
      'host.containers.internal',
      undefined,
    ])
      expect(hostRefusal(h), String(h)).toBeUndefined();
    for (const h of ['evil.example:4010', 'rebind.127.0.0.1.nip.io:4010', '127.0.0.1.evil.example', 'localhost.evil.example'])
      expect(hostRefusal(h), h).toMatch(/DNS rebinding/);
    expect(hostRefusal('devbox.lan:4010', ['devbox.lan'])).toBeUndefined();
  });

  it('refuses a foreign Host on every route: admin API, API, buyer pages, dashboard', async () => {
    const sb = await emulator();
    const rx = await receiver([200]);
    cleanups.push(() => rx.close());
    const id = await payment(sb, rx.url);
    const evil = { host: `rebind.evil.example:${sb.port}` };
    for (const path of ['/_sandbox/health', '/_sandbox/transactions', `/_sandbox/transactions/${id}`, `/pay/${id}`, '/', '/api/v2/payment-channels']) {
      const r = await raw(`${sb.url}${path}`, 'GET', evil);
      expect(r.status, path).toBe(403);
      expect(r.body, path).not.toContain(VA);
    }
    expect((await raw(`${sb.url}/_sandbox/transactions/${id}/pay`, 'POST', evil)).status).toBe(403);
    expect(sb.state.get(id)!.status).toBe('pending');
    // Its own names still work.
    const ok = await raw(`${sb.url}/_sandbox/health`, 'GET', { host: `localhost:${sb.port}` });
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body).accounts).toEqual([VA]);
  });
});

describe('buyer pages: no framing, no cross-site buttons', () => {
  it('answers the pages with anti-framing headers and refuses cross-site POSTs', async () => {
    const sb = await emulator();
    const rx = await receiver([200]);
    cleanups.push(() => rx.close());
    const id = await payment(sb, rx.url);
    const page = await raw(`${sb.url}/pay/${id}`, 'GET');
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    const crossSite: Record<string, string>[] = [
      { origin: 'http://evil.example', 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
      { origin: 'http://localhost:1' },
    ];
    for (const headers of crossSite) {
      expect((await raw(`${sb.url}/pay/${id}/pay`, 'POST', headers)).status).toBe(403);
      expect((await raw(`${sb.url}/pay/${id}/expire`, 'POST', headers)).status).toBe(403);
    }
    expect(sb.state.get(id)!.status).toBe('pending');
    // The page's own form (same origin) and the CLI (no browser headers) still work.
    expect((await raw(`${sb.url}/pay/${id}/pay`, 'POST', { origin: sb.url, 'sec-fetch-site': 'same-origin' })).status).toBe(303);
    expect(sb.state.get(id)!.status).toBe('berhasil');
  });

  it("refuses the hosted redirect page's choose/pay/cancel to another site", async () => {
    const sb = await emulator();
    const text = JSON.stringify({
      product: ['Kopi'],
      qty: [1],
      price: [25000],
      notifyUrl: 'http://127.0.0.1:1/cb',
      returnUrl: 'https://toko.example/ok',
      cancelUrl: 'https://toko.example/batal',
    });
    const req = signedPost(sb.apiUrl, 'v2/payment', text);
    const sid = ((await (await request(req.url, { method: 'POST', headers: req.headers, body: text })).body.json()) as { Data: { SessionID: string } }).Data
      .SessionID;
    const cross = { origin: 'http://evil.example', 'sec-fetch-site': 'cross-site', 'content-type': 'application/x-www-form-urlencoded' };
    for (const action of ['choose', 'pay', 'cancel'])
      expect((await raw(`${sb.url}/payment/${sid}/${action}`, 'POST', cross, 'channel=va:bca&name=A&phone=08123456789&email=a@b.co')).status, action).toBe(403);
    expect(sb.state.sessionTransaction(sid, sb.accounts[0]!.va)).toBeUndefined();
    expect((await raw(`${sb.url}/payment/${sid}`, 'GET')).headers['x-frame-options']).toBe('DENY');
  });

  it.skipIf(!haveBrowser && !inCi)(
    `a real cross-site form post and frame in Chromium are refused${haveBrowser ? '' : ' (skipped: apt-get install chromium)'}`,
    { timeout: 60_000 },
    async () => {
      expect(haveBrowser, `${CHROMIUM} is missing`).toBe(true);
      const sb = await emulator();
      const rx = await receiver([200]);
      cleanups.push(() => rx.close());
      const id = await payment(sb, rx.url);
      // Another site (localhost vs 127.0.0.1: another site for the browser) posts the Pay form and frames the page.
      const target = `http://127.0.0.1:${sb.port}`;
      const evil = await serveOn((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><iframe id="f" src="${target}/pay/${id}"></iframe>
<form id="x" method="post" action="${target}/pay/${id}/pay"></form>`);
      });
      const browser = await launchChromium();
      cleanups.push(() => browser.close());
      const page = await browser.newPage();
      await page.goto(`http://localhost:${evil.port}/`);
      // The framed page is blocked: no Pay button inside the frame.
      const framed = page.frames().find((f) => f !== page.mainFrame());
      expect(framed).toBeDefined();
      expect(await framed!.$('#pay')).toBeNull();
      const [answer] = await Promise.all([
        page.waitForResponse((r) => r.url().endsWith(`/pay/${id}/pay`)),
        page.evaluate(() => (document.getElementById('x') as HTMLFormElement).submit()),
      ]);
      expect(answer.status()).toBe(403);
      expect(sb.state.get(id)!.status).toBe('pending');
    },
  );
});

describe('listen --ui is for this machine only, and Replay only to configured targets', () => {
  it('refuses a peer that is not on this machine, and requests a tunnel relays', () => {
    const req = (remoteAddress: string, headers: Record<string, string> = {}) =>
      ({ socket: { localAddress: '127.0.0.1', remoteAddress }, headers: { host: 'localhost:8080', ...headers } }) as never;
    expect(pageRefusal(req('127.0.0.1'))).toBeUndefined();
    expect(pageRefusal(req('203.0.113.7'))).toMatch(/only to this machine/);
    expect(pageRefusal(req('127.0.0.1', { 'x-forwarded-for': '203.0.113.7' }))).toMatch(/relayed/);
    expect(pageRefusal(req('127.0.0.1', { forwarded: 'for=203.0.113.7' }))).toMatch(/relayed/);
  });

  it('behind a Host-rewriting tunnel (ngrok --host-header=rewrite) the pages are refused, callbacks still taken', async () => {
    const ui = await createListenerUi({ store: null, va: VA, callbackPath: '/' });
    const l = await startListener({ port: 0, va: VA, store: null, ui });
    cleanups.push(() => l.close());
    const port = new URL(l.url).port;
    // The tunnel's agent: connects from 127.0.0.1, rewrites Host to localhost, adds X-Forwarded-For.
    const tunnel = await serveOn((req, res) => {
      const up = httpRequest(
        {
          host: '127.0.0.1',
          port,
          path: req.url,
          method: req.method,
          headers: { ...req.headers, host: `localhost:${port}`, 'x-forwarded-for': '203.0.113.7', 'x-forwarded-proto': 'https' },
        },
        (r) => {
          res.writeHead(r.statusCode ?? 502, r.headers);
          r.pipe(res);
        },
      );
      req.pipe(up);
    });
    const publicUrl = `http://127.0.0.1:${tunnel.port}`;
    const page = await raw(`${publicUrl}/_paycli/`, 'GET', { host: 'abc.ngrok.example' });
    expect(page.status).toBe(403);
    expect(page.body).toMatch(/relayed/);
    const cb = signCallbackRequest(
      sampleCallbackFields({ status: 'berhasil', method: 'va', channel: 'bca', now: new Date(), url: 'http://x/cb' }),
      VA,
      'form',
      new Date(),
      '1',
    );
    expect((await raw(`${publicUrl}/`, 'POST', cb.headers, cb.body)).status).toBe(200);
    expect((await raw(`http://127.0.0.1:${port}/_paycli/`, 'GET')).status).toBe(200);
  });

  it('replays to the listener itself or a --forward-to target, never to another URL', async () => {
    const app = await receiver([200]);
    const other = await receiver([200]);
    cleanups.push(
      () => app.close(),
      () => other.close(),
    );
    const dir = mkdtempSync(join(tmpdir(), 'paycli-replay-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const store = new EventStore(join(dir, 'events.jsonl'));
    const ui = await createListenerUi({ store, va: VA, callbackPath: '/', forwardTo: [app.url] });
    const l = await startListener({ port: 0, va: VA, store, ui, forwardTo: [app.url] });
    cleanups.push(() => l.close());
    const origin = new URL(l.url).origin;
    const cb = signCallbackRequest(
      sampleCallbackFields({ status: 'berhasil', method: 'va', channel: 'bca', now: new Date(), url: 'http://x/cb' }),
      VA,
      'form',
      new Date(),
      '1',
    );
    expect((await raw(`${origin}/`, 'POST', cb.headers, cb.body)).status).toBe(200);
    const [event] = await store.list();
    const page = (await raw(`${origin}/_paycli/events/${event!.id}`, 'GET')).body;
    expect(page).toContain(`<option value="${app.url}">`);
    expect(page).toContain(`<option value="${origin}/">`);
    const replay = (to: string) => raw(`${origin}/_paycli/events/${event!.id}/replay`, 'POST', { 'content-type': 'application/json' }, JSON.stringify({ to }));
    for (const to of [other.url, 'http://169.254.169.254/latest/meta-data/', `${origin}/_paycli/`]) {
      const r = await replay(to);
      expect(r.status, to).toBe(403);
      expect(JSON.parse(r.body).error).toMatch(/only to this listener or a --forward-to target/);
    }
    expect(other.received).toHaveLength(0);
    expect((await replay(app.url)).status).toBe(200);
    expect(app.received).toHaveLength(2);
    expect(app.received[1]!.body.toString()).toBe(cb.body);
    expect((await replay(`${origin}/`)).status).toBe(200);
  });
});

describe('listen --ui bounds the memory its events hold', () => {
  it('1 000 events of 1 MiB keep at most UI_MEMORY_BYTES; a cut body is read whole from the store', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'paycli-uimem-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const big = 'a='.concat('x'.repeat(1024 * 1024));
    const event = (i: number): StoredEvent => ({
      id: `evt_${String(i).padStart(5, '0')}`,
      receivedAt: new Date(1_700_000_000_000 + i).toISOString(),
      method: 'POST',
      path: '/',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: big,
      verdict: 'malformed',
      variant: null,
      reason: 'forged',
      duplicate: false,
      trx_id: null,
      status: null,
      answer: 400,
    });
    // Without a store: the pages keep the newest events within the budget, bodies cut.
    const ui = await createListenerUi({ store: null, va: VA, callbackPath: '/' });
    cleanups.push(() => ui.close());
    for (let i = 0; i < 1000; i++) ui.added(event(i));
    expect(ui.retainedBytes).toBeLessThanOrEqual(UI_MEMORY_BYTES);
    expect(ui.retainedBytes).toBeGreaterThan(0);
    const l = await startListener({ port: 0, va: VA, store: null, ui });
    cleanups.push(() => l.close());
    const origin = new URL(l.url).origin;
    const shown = await raw(`${origin}/_paycli/events/evt_00999`, 'GET');
    expect(shown.status).toBe(200);
    expect(shown.body.length).toBeLessThan(UI_BODY_KEEP_BYTES + 64 * 1024);
    // With a store: the page reads the whole body back.
    const store = new EventStore(join(dir, 'events.jsonl'));
    await store.prepare();
    await appended(store, event(1));
    const withStore = await createListenerUi({ store, va: VA, callbackPath: '/' });
    cleanups.push(() => withStore.close());
    expect(withStore.retainedBytes).toBeLessThan(4 * UI_BODY_KEEP_BYTES);
    const l2 = await startListener({ port: 0, va: VA, store, ui: withStore });
    cleanups.push(() => l2.close());
    const whole = await raw(`${new URL(l2.url).origin}/_paycli/events/evt_00001`, 'GET');
    expect(whole.body.length).toBeGreaterThan(1024 * 1024);
  });
});
