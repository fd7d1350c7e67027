// Unauthenticated senders reach `paycli listen`: hostile bodies are answered and stored, never
// crash it; what they send cannot drive the terminal; forwarding passes on only accepted callbacks
// with end-to-end headers; durations beyond Node's timer limit are refused.
import { createServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { EventStore } from '../../src/core/listener/event-store.js';
import { startListener, type ForwardResult, type ListenerEvent } from '../../src/core/listener/server.js';
import { forwardableHeaders } from '../../src/core/listener/forward.js';
import { signCallbackRequest } from '../../src/core/callback/build.js';
import { sampleCallbackFields } from '../../src/core/callback/sample.js';
import { escapeControl } from '../../src/core/terminal-text.js';
import { parseDuration, parseDurationList, TIMER_MAX_MS } from '../../src/core/duration.js';
import { run } from '../../src/cli/run.js';
import { runCli, tempHome, testContext } from '../helpers/cli.js';
import { receiver } from '../helpers/receiver.js';

const VA = '1179000899';
let home: ReturnType<typeof tempHome>;
beforeAll(() => (home = tempHome()));
afterAll(() => home.cleanup());

let trx = 500000;
function callback(extra: Record<string, string> = {}, format: 'form' | 'json' = 'form') {
  const fields = {
    ...sampleCallbackFields({ status: 'berhasil', method: 'va', channel: 'bca', now: new Date(), url: 'http://127.0.0.1/cb', trxId: trx++ }),
    ...extra,
  };
  return signCallbackRequest(fields, VA, format, new Date(), String(trx));
}

async function post(url: string, headers: Record<string, string>, body: string, method = 'POST') {
  const res = await request(url, { method: method as 'POST', headers, body });
  return { status: res.statusCode, text: await res.body.text() };
}

describe('deeply nested JSON', () => {
  it('is answered 400 "malformed" and stored, never 500, at 3 000 and 100 000 levels', async () => {
    const store = new EventStore(join(home.home, 'deep.db'));
    const l = await startListener({ port: 0, va: VA, store });
    for (const depth of [3000, 100_000]) {
      const body = `{"trx_id":"1","status":"berhasil","x":${'['.repeat(depth)}${']'.repeat(depth)}}`;
      const r = await post(l.url, { 'content-type': 'application/json', 'x-signature': 'a'.repeat(64) }, body);
      expect(r.status, r.text).toBe(400);
      expect(r.text).toMatch(/^malformed callback: /);
    }
    const cb = callback(); // and it still works
    expect((await post(l.url, cb.headers, cb.body)).status).toBe(200);
    await l.close();
    expect((await store.list()).map((e) => [e.verdict, e.answer])).toEqual([
      ['malformed', 400],
      ['malformed', 400],
      ['valid', 200],
    ]);
  });
});

describe('control characters from outside are escaped in human output', () => {
  it('escapeControl: C0, ESC, DEL, C1, bidi overrides and line separators become visible; multiline keeps \\n and \\t', () => {
    expect(escapeControl('plain Ñyoman Ö 100%')).toBe('plain Ñyoman Ö 100%');
    expect(escapeControl('a\x1b]0;pwned\x07b\x1b[2Jc')).toBe('a\\e]0;pwned\\x07b\\e[2Jc');
    expect(escapeControl('\x00\r\n\t\x7f\u0085\u009b\u009d')).toBe('\\x00\\r\\n\\t\\x7f\\x85\\x9b\\x9d');
    expect(escapeControl('abc\u202edcba\u2066x\u2069\u2028')).toBe('abc\\u202edcba\\u2066x\\u2069\\u2028');
    expect(escapeControl('line 1\n\tline 2\r\x1b[A', { multiline: true })).toBe('line 1\n\tline 2\\r\\e[A');
  });

  it('listen lines, events list and events show escape them; --json keeps the exact text', async () => {
    const store = join(home.home, 'ansi.db');
    const evil = 'va\x1b]0;owned\x07\x1b[2J\u009b31m';
    const { ctx, out, err } = testContext({ env: { PAYCLI_VA: VA }, home: home.home });
    const done = run(['listen', '--port', '0', '--exit-after', '2', '--store', store], ctx);
    let url = '';
    for (let i = 0; i < 300 && !url; i++) {
      await new Promise((r) => setTimeout(r, 10));
      url = /notifyUrl\s+(\S+)/.exec(err())?.[1] ?? '';
    }
    const cb = callback({ via: evil, status: 'berhasil\x1b[8m' });
    expect((await post(url, cb.headers, cb.body)).status).toBe(200);
    const bad = callback({ via: evil });
    expect((await post(url, bad.headers, bad.body.replace('amount=', 'amount=1'))).status).toBe(400);
    expect(await done).toBe(0);
    const raw = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;
    expect(out()).not.toMatch(raw);
    expect(out()).toContain('\\e]0;owned\\x07\\e[2J\\x9b31m');
    expect(out()).toContain('berhasil\\e[8m');

    const list = await runCli(['events', 'list', '--store', store], { home: home.home });
    expect(list.code).toBe(0);
    expect(list.stdout).not.toMatch(raw);
    expect(list.stdout).toContain('berhasil\\e[8m');
    const id = JSON.parse((await runCli(['events', 'list', '--store', store, '--json'], { home: home.home })).stdout)[0].id as string;
    const show = await runCli(['events', 'show', id, '--store', store], { env: { PAYCLI_VA: VA }, home: home.home });
    expect(show.code).toBe(0);
    expect(show.stdout).not.toMatch(raw);
    const json = await runCli(['events', 'show', id, '--store', store, '--json'], { env: { PAYCLI_VA: VA }, home: home.home });
    expect(JSON.parse(json.stdout).status).toBe('berhasil\x1b[8m'); // machine output unchanged
  });
});

describe('--forward-to', () => {
  async function hungServer() {
    const seen: string[] = [];
    const server = createServer((req) => {
      seen.push(req.url ?? '');
      req.resume(); // never answers
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hung`,
      seen,
      close: () => {
        server.closeAllConnections();
        server.close();
      },
    };
  }

  it('answers with the first target at once; a hung second target is fire-and-forget with its own timeout', async () => {
    const app = await receiver([200], '{"ok":true}');
    const hung = await hungServer();
    const events: ListenerEvent[] = [];
    const later: { id: string; result: ForwardResult }[] = [];
    const l = await startListener({
      port: 0,
      va: VA,
      store: null,
      forwardTo: [app.url, hung.url],
      forwardTimeoutMs: 3000,
      onEvent: (e) => events.push(e),
      onForward: (f) => later.push(f),
    });
    const cb = callback();
    const r = await post(l.url, cb.headers, cb.body);
    expect(r).toEqual({ status: 200, text: '{"ok":true}' });
    expect(later).toEqual([]); // answered while the second target still hangs (it times out after 3 s) …
    expect(events[0]!.forwards).toEqual([{ url: app.url, status: 200, ms: expect.any(Number) }]);
    for (let i = 0; i < 200 && later.length === 0; i++) await new Promise((res) => setTimeout(res, 50));
    expect(later).toEqual([{ id: events[0]!.event.id, result: { url: hung.url, status: null, ms: null, error: 'no answer within 3000 ms' } }]); // … and times out on its own
    expect(hung.seen).toEqual(['/hung']);
    await l.close();
    hung.close();
    await app.close();
  });

  it('a retry of a callback whose mirrored answer was not 200 is not a duplicate', async () => {
    const app = await receiver([500, 200]);
    const events: ListenerEvent[] = [];
    const l = await startListener({ port: 0, va: VA, store: null, forwardTo: [app.url], onEvent: (e) => events.push(e) });
    const cb = callback();
    expect((await post(l.url, cb.headers, cb.body)).status).toBe(500);
    expect((await post(l.url, cb.headers, cb.body)).status).toBe(200);
    expect((await post(l.url, cb.headers, cb.body)).status).toBe(200);
    expect(events.map((e) => [e.event.answer, e.event.duplicate])).toEqual([
      [500, false],
      [200, false],
      [200, true],
    ]);
    await l.close();
    await app.close();
  });

  it('forwards only requests accepted as callbacks: wrong path, method, content type, bad signature and malformed bodies are answered by the listener', async () => {
    const app = await receiver([200]);
    const l = await startListener({ port: 0, va: VA, store: null, forwardTo: [app.url] });
    const cb = callback();
    const base = l.url.replace(/\/$/, '');
    expect((await post(`${base}/wrong`, cb.headers, cb.body)).status).toBe(404);
    expect((await post(l.url, { ...cb.headers, 'Content-Type': 'text/xml' }, cb.body)).status).toBe(415);
    expect((await post(l.url, cb.headers, cb.body.replace('amount=', 'amount=9'))).status).toBe(400);
    expect((await post(l.url, { 'content-type': 'application/json', 'x-signature': 'a'.repeat(64) }, '{"x":')).status).toBe(400);
    expect((await post(l.url, {}, '', 'PUT')).status).toBe(405);
    expect(app.received).toHaveLength(0);
    expect((await post(l.url, cb.headers, cb.body)).status).toBe(200);
    expect(app.received).toHaveLength(1);
    await l.close();
    await app.close();
  });

  it('drops hop-by-hop headers (RFC 9110): the fixed list and every header Connection names', async () => {
    expect(
      forwardableHeaders({
        connection: 'keep-alive, X-Hop',
        'x-hop': '1',
        'keep-alive': 'timeout=5',
        'proxy-authorization': 'Basic eDp5',
        'proxy-authenticate': 'Basic',
        te: 'trailers',
        trailer: 'x',
        'transfer-encoding': 'chunked',
        upgrade: 'h2c',
        host: 'a',
        'content-length': '3',
        'x-signature': 's',
        'content-type': 'c',
      }),
    ).toEqual({ 'x-signature': 's', 'content-type': 'c' });
    const app = await receiver([200]);
    const l = await startListener({ port: 0, va: VA, store: null, forwardTo: [app.url] });
    const cb = callback();
    const headers: Record<string, string> = {
      ...cb.headers,
      Connection: 'keep-alive, X-Hop',
      'X-Hop': 'secret',
      'Proxy-Authorization': 'Basic dXNlcjpwYXNz',
      'Keep-Alive': 'timeout=5',
      TE: 'trailers',
      'X-Keep': 'yes',
    };
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(l.url, { method: 'POST', headers: { ...headers, 'Content-Length': Buffer.byteLength(cb.body) }, agent: false }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      req.end(cb.body);
    });
    expect(status).toBe(200);
    const got: IncomingHttpHeaders = app.received[0]!.headers;
    expect(got['x-keep']).toBe('yes');
    expect(got['x-signature']).toBe(cb.signature);
    for (const h of ['x-hop', 'proxy-authorization', 'keep-alive', 'te']) expect(got[h], h).toBeUndefined();
    expect(String(got.connection ?? '')).not.toMatch(/x-hop/i);
    await l.close();
    await app.close();
  });
});

describe('repeated header fields', () => {
  it('are stored as node:http reads them: a single-valued field once, others joined, set-cookie as one string', async () => {
    const home = tempHome();
    const store = new EventStore(join(home.home, 'repeated.db'), { busyTimeoutMs: 0 });
    const seen: ListenerEvent[] = [];
    const l = await startListener({ port: 0, va: VA, store, onEvent: (e) => seen.push(e) });
    const cb = callback();
    // Written by hand: an HTTP client would merge or refuse the repeats.
    const lines = [
      'POST / HTTP/1.1',
      `Host: 127.0.0.1:${l.port}`,
      ...Object.entries(cb.headers).map(([k, v]) => `${k}: ${v}`),
      `Content-Length: ${Buffer.byteLength(cb.body)}`,
      'Content-Type: text/plain',
      'X-Trace: a',
      'X-Trace: b',
      'Set-Cookie: c=1',
      'Set-Cookie: d=2',
      'Connection: close',
    ];
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(l.port, '127.0.0.1', () => socket.end(`${lines.join('\r\n')}\r\n\r\n${cb.body}`));
      let text = '';
      socket.on('data', (d) => (text += d));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    const status = Number(answer.split(' ')[1]);
    await l.close();
    const stored = (await store.list())[0]!;
    expect(status).toBe(200);
    await store.close();
    home.cleanup();
    for (const h of [stored.headers, seen[0]!.event.headers]) {
      expect(h['content-type']).toBe(cb.headers['Content-Type']);
      expect(h['x-trace']).toBe('a, b');
      expect(h['set-cookie']).toBe('c=1, d=2');
    }
  });
});

describe('durations beyond the timer maximum', () => {
  it('parseDuration refuses more than 2^31-1 ms by default, naming the maximum', () => {
    expect(TIMER_MAX_MS).toBe(2_147_483_647);
    expect(parseDuration('24d')).toBe(24 * 86_400_000);
    expect(parseDuration('2147483647')).toBe(TIMER_MAX_MS);
    expect(() => parseDuration('2147483648')).toThrow('duration "2147483648" is too long: the maximum is 2147483647ms (about 24.8 days');
    expect(() => parseDuration('30d')).toThrow(/maximum is 2147483647ms/);
    expect(() => parseDurationList('1s,30d')).toThrow(/"30d" is too long/);
    expect(parseDuration('30d', { maxMs: Number.POSITIVE_INFINITY })).toBe(30 * 86_400_000);
    expect(() => parseDuration('soon')).toThrow('invalid duration "soon"');
  });

  it('every flag that feeds a timer is a usage error (exit 2) above it; --older-than is not a timer', async () => {
    const env = { PAYCLI_VA: VA };
    for (const args of [
      ['listen', '--port', '0', '--no-persist', '--timeout', '30d'],
      ['sandbox', '--port', '0', '--in-memory', '--retry-schedule', '1s,30d'],
      ['sandbox', '--port', '0', '--in-memory', '--faults', 'delay=25d'],
    ]) {
      const r = await runCli(args, { env, home: home.home });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/too long: the maximum is 2147483647ms/);
      expect(r.stderr.split('\n').filter(Boolean).length).toBeLessThanOrEqual(2);
    }
    // test-handler's --deadline (milliseconds) arms a timer too. (The API request timeout has its own
    // limit, in the configuration's parser.)
    const deadline = await runCli(['test-handler', 'http://127.0.0.1:9/cb', '--deadline', '2592000000'], { env, home: home.home });
    expect(deadline.code).toBe(2);
    expect(deadline.stderr).toMatch(/the maximum is 2147483647ms/);
    const prune = await runCli(['events', 'prune', '--store', join(home.home, 'none.db'), '--older-than', '365d'], { home: home.home });
    expect(prune.code, prune.stderr).toBe(0);
  });
});
