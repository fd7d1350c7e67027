import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { signCallbackRequest } from '../../src/core/callback/build.js';
import { sampleCallbackFields } from '../../src/core/callback/sample.js';
import { ANSWER_PREFIX_BYTES, AnswerTooLarge, readPrefix } from '../../src/core/http/bounded-read.js';
import { API_ANSWER_MAX_BYTES, createHttpClient } from '../../src/core/http/client.js';
import { sendRaw } from '../../src/core/http/raw-post.js';
import { startListener } from '../../src/core/listener/server.js';
import { ANSWER_KEEP_BYTES } from '../../src/core/sandbox/outbox.js';
import { EMULATOR_DEFAULT_VA as VA, localEnv, sandbox, signedPost } from '../helpers/sandbox.js';
import { runCli, tempHome } from '../helpers/cli.js';

/**
 * Issue 26 item 2: a peer answering an endless (or 512 MiB) body must cost paycli a bounded prefix,
 * not the whole answer. The handlers here stream for as long as the connection takes bytes (far more
 * than any bound), generated lazily; each counts what it could write, which is bounded only when
 * the reader stops reading.
 */

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** How much a huge answer may cost the reader: its prefix, socket buffers, and slack. */
const SENT_BOUND = 32 * 1024 * 1024;

/** A server whose every answer is 200 with an endless chunked body (1 GiB at most), written as the peer reads. */
async function endlessHandler(): Promise<{ url: string; written: () => number; requests: () => number }> {
  let written = 0;
  let requests = 0;
  const server: Server = createServer((req, res) => {
    requests++;
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      let left = 1024; // 1024 chunks of 1 MiB = 1 GiB
      const chunk = Buffer.alloc(1024 * 1024, 'x');
      const pump = () => {
        while (left > 0) {
          left--;
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      res.on('close', () => (left = 0));
      pump();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`, written: () => written, requests: () => requests };
}

describe('readPrefix: the one bounded reader of answers', () => {
  it('keeps the first bytes of a longer stream and stops reading it', async () => {
    let produced = 0;
    const endless = new Readable({
      read() {
        produced += 1000;
        this.push(Buffer.alloc(1000, 'a'));
      },
    });
    const p = await readPrefix(endless, 2500);
    expect(p.truncated).toBe(true);
    expect(p.bytes.length).toBe(2500);
    expect(endless.destroyed).toBe(true);
    expect(produced).toBeLessThan(100_000);
  });

  it('reads a short stream whole; fails over the limit when asked to', async () => {
    expect(await readPrefix(Readable.from([Buffer.from('abc'), Buffer.from('def')]), 6)).toEqual({ bytes: Buffer.from('abcdef'), truncated: false });
    await expect(readPrefix(Readable.from([Buffer.alloc(10)]), 9, 'fail')).rejects.toBeInstanceOf(AnswerTooLarge);
  });
});

describe('huge answers', () => {
  it('sendRaw reads a bounded prefix of an endless answer', async () => {
    const h = await endlessHandler();
    const r = await sendRaw(h.url, { headers: {}, body: 'x', timeoutMs: 60_000 });
    expect(r.status).toBe(200);
    expect(r.truncated).toBe(true);
    expect(Buffer.byteLength(r.body)).toBe(ANSWER_PREFIX_BYTES);
    expect(h.written()).toBeLessThan(SENT_BOUND);
  });

  it('the API client fails on a gateway answer over its bound instead of reading it all', async () => {
    const h = await endlessHandler();
    const client = await createHttpClient({ timeoutMs: 60_000, userAgent: 'paycli-test' });
    cleanups.push(() => client.close());
    await expect(client.send({ method: 'POST', url: h.url, headers: {}, body: '{}' })).rejects.toThrow(`over ${API_ANSWER_MAX_BYTES} bytes`);
    expect(h.written()).toBeLessThan(API_ANSWER_MAX_BYTES + SENT_BOUND);
  });

  it('the emulator delivers to a handler answering an endless body, keeps its first KiB, and answers the next request', async () => {
    const h = await endlessHandler();
    const sb = await sandbox({ callbackTimeoutMs: 60_000 });
    cleanups.push(() => sb.close());
    const text = JSON.stringify({
      name: 'Putu',
      phone: '08123456789',
      email: 'p@x.co',
      product: ['Kopi'],
      qty: [1],
      price: [50000],
      amount: 50000,
      notifyUrl: h.url,
      paymentMethod: 'va',
      paymentChannel: 'bca',
    });
    const signed = signedPost(sb.apiUrl, 'v2/payment/direct', text);
    const created = await request(signed.url, { method: 'POST', headers: signed.headers, body: text });
    const id = ((await created.body.json()) as { Data: { TransactionId: number } }).Data.TransactionId;
    expect((await sb.pay(String(id))).ok).toBe(true);
    expect(await sb.idle(60_000)).toBe(true);
    const d = sb.state.deliveriesOf(id)[0]!;
    expect(d.state).toBe('delivered');
    const attempt = sb.state.attemptsOf(d.id)[0]!;
    expect(attempt.detail?.httpStatus).toBe(200);
    expect(attempt.detail?.truncated).toBe(true);
    expect(Buffer.byteLength(attempt.detail!.answer)).toBe(ANSWER_KEEP_BYTES);
    expect(h.written()).toBeLessThan(SENT_BOUND);
    const health = await request(`${sb.url}/_sandbox/health`);
    expect(health.statusCode).toBe(200);
    await health.body.dump();
  });

  it('listen --forward-to mirrors a bounded prefix of an endless answer and keeps answering', async () => {
    const h = await endlessHandler();
    const l = await startListener({ port: 0, va: VA, store: null, forwardTo: [h.url], forwardTimeoutMs: 60_000 });
    cleanups.push(() => l.close());
    const cb = signCallbackRequest(
      sampleCallbackFields({ status: 'berhasil', method: 'va', channel: 'bca', now: new Date(), url: 'http://127.0.0.1/cb' }),
      VA,
      'form',
      new Date(),
      '1',
    );
    for (let i = 1; i <= 2; i++) {
      const r = await request(l.url, { method: 'POST', headers: cb.headers, body: cb.body });
      expect(r.statusCode).toBe(200);
      expect((await r.body.arrayBuffer()).byteLength).toBeLessThanOrEqual(ANSWER_PREFIX_BYTES);
      expect(h.requests()).toBe(i);
    }
    expect(h.written()).toBeLessThan(2 * SENT_BOUND);
  });

  it('paycli sandbox list still reads an admin answer far over the prefix bound whole', async () => {
    const sb = await sandbox();
    cleanups.push(() => sb.close());
    const home = tempHome();
    cleanups.push(() => home.cleanup());
    const text = JSON.stringify({
      name: 'Putu',
      phone: '08123456789',
      email: 'p@x.co',
      product: ['Kopi'],
      qty: [1],
      price: [50000],
      amount: 50000,
      notifyUrl: 'http://127.0.0.1:9/cb',
      paymentMethod: 'va',
      paymentChannel: 'bca',
    });
    for (let i = 0; i < 250; i++) {
      const signed = signedPost(sb.apiUrl, 'v2/payment/direct', text);
      await (await request(signed.url, { method: 'POST', headers: signed.headers, body: text })).body.dump();
    }
    // One page of up to 1000 transactions: far over the prefix bound.
    const r = await runCli(['sandbox', 'list', '--json', '--limit', '1000'], { env: { ...localEnv(sb), PAYCLI_SANDBOX_URL: sb.url }, home: home.home });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.length).toBeGreaterThan(ANSWER_PREFIX_BYTES);
    expect(JSON.stringify(JSON.parse(r.stdout))).toContain('"id":100250');
  });
});
