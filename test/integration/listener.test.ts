import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { startListener, type ListenerHandle } from '../../src/core/listener/server.js';
import { EventStore } from '../../src/core/listener/event-store.js';
import { signCallbackRequest, encodeFormBody } from '../../src/core/callback/build.js';
import { sampleCallbackFields } from '../../src/core/callback/sample.js';
import { canonicalizeCallback } from '../../src/core/signing/callback-canonical.js';
import { hmacHex } from '../../src/core/signing/callback-signature.js';
import { runCli, tempHome, testContext } from '../helpers/cli.js';
import { run } from '../../src/cli/run.js';
import { receiver } from '../helpers/receiver.js';

const VA = '1179000899';
let home: ReturnType<typeof tempHome>;
beforeAll(() => (home = tempHome()));
afterAll(() => home.cleanup());

function callback(status: 'berhasil' | 'pending' | 'expired' = 'berhasil', format: 'form' | 'json' = 'form', extra: Record<string, string> = {}) {
  const fields = { ...sampleCallbackFields({ status, method: 'va', channel: 'bca', now: new Date(), url: 'http://127.0.0.1/cb' }), ...extra };
  return signCallbackRequest(fields, VA, format, new Date(), String(Math.random()).slice(2, 22));
}

async function post(url: string, headers: Record<string, string>, body: string | Buffer, method = 'POST') {
  const res = await request(url, { method: method as 'POST', headers, body });
  return { status: res.statusCode, text: await res.body.text() };
}

describe('the listener answers like the reference handler', () => {
  let l: ListenerHandle;
  let store: EventStore;
  beforeAll(async () => {
    store = new EventStore(join(home.home, 'answers.db'));
    l = await startListener({ port: 0, va: VA, store, maxBodyBytes: 4096, otherKeys: [{ kind: 'api-key', label: 'the API key', key: 'SOME-API-KEY-12345' }] });
  });
  afterAll(() => l.close());

  it('200 {"status":"OK"} for valid form and JSON callbacks; duplicates still 200', async () => {
    const cb = callback();
    expect(await post(l.url, cb.headers, cb.body)).toEqual({ status: 200, text: '{"status":"OK"}' });
    expect((await post(l.url, cb.headers, cb.body)).status).toBe(200);
    const js = callback('pending', 'json');
    expect((await post(l.url, js.headers, js.body)).status).toBe(200);
    const events = await store.list();
    expect(events.map((e) => [e.verdict, e.duplicate])).toEqual([
      ['valid', false],
      ['valid', true],
      ['valid', false],
    ]);
    expect(events[0]!.body).toBe(cb.body);
  });

  it('400 with a plain-text diagnosis for bad signatures, missing signatures and malformed bodies', async () => {
    const cb = callback();
    const tampered = await post(l.url, cb.headers, cb.body.replace('amount=102000', 'amount=1'));
    expect(tampered.status).toBe(400);
    expect(tampered.text).toMatch(/^invalid signature: no known variant/);
    const withKey = { ...cb.headers, 'X-Signature': hmacHex('SOME-API-KEY-12345', canonicalizeCallback(cb.fields)) };
    expect((await post(l.url, withKey, cb.body)).text).toContain('API key as the secret');
    const { 'X-Signature': _s, ...unsigned } = cb.headers;
    void _s;
    expect(await post(l.url, unsigned, cb.body)).toEqual({ status: 400, text: 'invalid signature: missing X-Signature header\n' });
    const bad = await post(l.url, { 'content-type': 'application/json', 'x-signature': 'a'.repeat(64) }, '{"trx_id":');
    expect(bad.status).toBe(400);
    expect(bad.text).toMatch(/^malformed callback/);
  });

  it('accepts an undocumented encoding with a warning verdict', async () => {
    const fields = sampleCallbackFields({ status: 'berhasil', method: 'va', channel: 'bca', now: new Date(), url: 'http://x/cb' });
    fields.buyer_name = 'Ñyoman Ö';
    const sig = hmacHex(VA, canonicalizeCallback(fields, { json: { escapeSlash: true, escapeUnicode: false } }));
    const r = await post(l.url, { 'content-type': 'application/x-www-form-urlencoded', 'x-signature': sig }, encodeFormBody(fields));
    expect(r.status).toBe(200);
    const last = (await store.list()).at(-1)!;
    expect(last).toMatchObject({ verdict: 'valid-variant', variant: 'unicode-raw' });
  });

  it('405 for other methods, 415 for other content types, 413 over the limit', async () => {
    expect((await post(l.url, {}, '', 'GET')).status).toBe(405);
    expect((await post(l.url, { 'content-type': 'text/xml' }, '<x/>')).status).toBe(415);
    const big = await post(l.url, { 'content-type': 'application/x-www-form-urlencoded' }, 'a=' + 'x'.repeat(10_000)).catch(() => ({ status: 413, text: '' }));
    expect(big.status).toBe(413);
  });
});

describe('paycli listen, trigger, test-handler and events (in-process)', () => {
  it('runs end to end and shuts down on interrupt with a summary', async () => {
    const controller = new AbortController();
    const storePath = join(home.home, 'events.db');
    const { ctx, out, err } = testContext({ env: { PAYCLI_VA: VA }, home: home.home, signal: controller.signal });
    const done = run(['listen', '--port', '0', '--store', storePath, '--json'], ctx);
    let banner: { url: string } | undefined;
    for (let i = 0; i < 200 && !banner; i++) {
      await new Promise((r) => setTimeout(r, 10));
      const line = err()
        .split('\n')
        .find((l) => l.includes('"listening"'));
      if (line) banner = JSON.parse(line);
    }
    expect(banner?.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const env = { PAYCLI_VA: VA };
    const t1 = await runCli(['trigger', '--to', banner!.url, '--no-persist'], { env, home: home.home });
    expect(t1.code).toBe(0);
    expect(t1.stdout).toContain('200');
    const t2 = await runCli(['trigger', '--to', banner!.url, '--status', 'expired', '--method', 'qris', '--format', 'json', '--no-persist', '--json'], {
      env,
      home: home.home,
    });
    expect(JSON.parse(t2.stdout)).toMatchObject({ answer: 200, status: 'expired' });
    const dup = await runCli(['trigger', '--to', banner!.url, '--repeat', '2', '--no-persist'], { env, home: home.home });
    expect(dup.code).toBe(0);
    const wrong = await runCli(['trigger', '--to', banner!.url, '--no-persist', '--va', '9999999999'], { env, home: home.home });
    expect(wrong.code).toBe(3);
    const badSet = await runCli(['trigger', '--to', banner!.url, '--set', 'colour=blue'], { env, home: home.home });
    expect(badSet.code).toBe(2);
    expect(badSet.stderr).toContain('not a callback field');
    const th = await runCli(['test-handler', banner!.url, '--json', '--junit', join(home.home, 'junit.xml')], { env, home: home.home });
    expect(th.code).toBe(0);
    expect(JSON.parse(th.stdout)).toMatchObject({ passed: true, failed: 0, total: 53, effectsSeen: false });
    expect(readFileSync(join(home.home, 'junit.xml'), 'utf8')).toContain('tests="53" failures="0"');
    controller.abort('SIGTERM');
    expect(await done).toBe(0);
    const lines = out()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.length).toBe(5 + 63); // trigger ×5 requests + test-handler: 21 requests per shape (form, typed JSON, all-strings JSON)
    expect(lines.filter((l) => l.duplicate)).toHaveLength(4 + 12); // and 4 of each shape's 5 copies at once
    expect(err()).toContain('"stopped"');

    const list = await runCli(['events', 'list', '--store', storePath, '--json', '--limit', '1000'], { env, home: home.home });
    const events = JSON.parse(list.stdout);
    expect(events).toHaveLength(lines.length);
    expect(events[0]).toMatchObject({ verdict: 'valid', duplicate: false, source: 'listen' });
    const show = await runCli(['events', 'show', events[0].id, '--store', storePath], { env, home: home.home });
    expect(show.stdout).toContain('canonical JSON:');
    const invalid = await runCli(['events', 'list', '--invalid', '--store', storePath, '--json'], { env, home: home.home });
    expect(JSON.parse(invalid.stdout).every((e: { verdict: string }) => e.verdict === 'invalid' || e.verdict === 'malformed')).toBe(true);
    const verify = await runCli(['verify-callback', '--event', events[0].id, '--store', storePath], { env, home: home.home });
    expect(verify.code).toBe(0);

    const rx = await receiver([200]);
    const replay = await runCli(['events', 'replay', events[0].id, '--to', rx.url, '--store', storePath], { env, home: home.home });
    expect(replay.code).toBe(0);
    expect(rx.received[0]!.body.toString()).toBe(events[0].body);
    expect(rx.received[0]!.headers['x-signature']).toBe(events[0].headers['x-signature']);
    await rx.close();
    expect((await runCli(['events', 'clear', '--store', storePath], { env, home: home.home })).stdout).toContain(`cleared ${lines.length} events`);
  });

  it('test-handler fails a naive handler that accepts everything (exit 6)', async () => {
    const rx = await receiver([200]);
    const r = await runCli(['test-handler', rx.url, '--json'], { env: { PAYCLI_VA: VA }, home: home.home });
    expect(r.code).toBe(6);
    const report = JSON.parse(r.stdout);
    expect(report.passed).toBe(false);
    expect(report.checks.filter((c: { passed: boolean }) => !c.passed).map((c: { name: string }) => c.name)).toContain('tampered amount is rejected');
    await rx.close();
  });

  it("forwards the exact bytes and mirrors the app's status; a dead app gives 502", async () => {
    const app = await receiver([200, 500]);
    const l = await startListener({ port: 0, va: VA, store: null, forwardTo: [app.url + '?src=paycli'] });
    const cb = callback();
    expect((await post(l.url, cb.headers, cb.body)).status).toBe(200);
    expect((await post(l.url, cb.headers, cb.body)).status).toBe(500);
    expect(app.received[0]!.url).toBe('/callback?src=paycli');
    expect(app.received[0]!.body.toString()).toBe(cb.body);
    expect(app.received[0]!.headers['x-signature']).toBe(cb.signature);
    expect(app.received[0]!.headers['x-external-id']).toBe(cb.headers['X-External-ID']);
    await app.close();
    const dead = await post(l.url, cb.headers, cb.body);
    expect(dead.status).toBe(502);
    expect(dead.text).toMatch(/connection refused/);
    await l.close();
  });
});

describe('listener abuse: 2000 mixed requests at concurrency 50', () => {
  it('answers each correctly, stays up, and stores exactly the expected rows', async () => {
    const store = new EventStore(join(home.home, 'abuse.db'));
    const l = await startListener({ port: 0, va: VA, store, maxBodyBytes: 8192, requestTimeoutMs: 1000 });
    const valid = callback();
    const kinds = ['valid', 'tampered', 'unsigned', 'badjson', 'badpercent', 'oversized', 'duplicate', 'wrongmethod'] as const;
    const expected: Record<string, number> = {
      valid: 200,
      tampered: 400,
      unsigned: 400,
      badjson: 400,
      badpercent: 400,
      oversized: 413,
      duplicate: 200,
      wrongmethod: 405,
    };
    const counts: Record<string, number> = {};
    let next = 0;
    const failures: string[] = [];
    const one = async (i: number) => {
      const kind = kinds[i % kinds.length]!;
      counts[kind] = (counts[kind] ?? 0) + 1;
      let r: { status: number };
      const fresh = callback('berhasil', i % 2 ? 'json' : 'form');
      switch (kind) {
        case 'valid':
          r = await post(l.url, fresh.headers, fresh.body);
          break;
        case 'tampered':
          r = await post(l.url, fresh.headers, fresh.body.replace('bca', 'bni'));
          break;
        case 'unsigned':
          r = await post(l.url, { 'content-type': 'application/x-www-form-urlencoded' }, fresh.body);
          break;
        case 'badjson':
          r = await post(l.url, { 'content-type': 'application/json', 'x-signature': 'a'.repeat(64) }, '{"x":');
          break;
        case 'badpercent':
          r = await post(l.url, { 'content-type': 'application/x-www-form-urlencoded', 'x-signature': 'a'.repeat(64) }, 'a=%G1');
          break;
        case 'oversized':
          r = await post(l.url, { 'content-type': 'application/x-www-form-urlencoded' }, 'a=' + 'x'.repeat(9000)).catch(() => ({ status: 413 }));
          break;
        case 'duplicate':
          r = await post(l.url, valid.headers, valid.body);
          break;
        case 'wrongmethod':
          r = await post(l.url, {}, '', 'PUT');
          break;
      }
      if (r.status !== expected[kind]) failures.push(`${i} ${kind}: ${r.status}`);
    };
    // A slow client that stalls mid-body must not hold up the others.
    const stalled = connect(l.port, '127.0.0.1');
    stalled.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"trx');
    await Promise.all(
      Array.from({ length: 50 }, async () => {
        while (next < 2000) await one(next++);
      }),
    );
    stalled.destroy();
    expect(failures).toEqual([]);
    const summary = await l.close();
    const rows = await store.list();
    expect(rows).toHaveLength(summary.total);
    expect(summary.total).toBeGreaterThanOrEqual(2000);
    expect(rows.filter((r) => r.verdict === 'valid')).toHaveLength(counts.valid! + counts.duplicate!);
    expect(rows.filter((r) => r.duplicate)).toHaveLength(counts.duplicate! - 1);
    expect(rows.filter((r) => r.answer === 413)).toHaveLength(counts.oversized!);
    expect(rows.filter((r) => r.answer === 405)).toHaveLength(counts.wrongmethod!);
  });
});
