import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { request } from 'undici';
import { buildSignedRequest } from '../../src/core/api/signed-request.js';
import type { SandboxEvent, EmulatorHandle } from '../../src/core/sandbox/server.js';
import { runCli, tempHome, testContext } from '../helpers/cli.js';
import { run } from '../../src/cli/run.js';
import { EMULATOR_DEFAULT_API_KEY as KEY, EMULATOR_DEFAULT_VA as VA, sandbox, allDeliveries } from '../helpers/sandbox.js';
import { receiver } from '../helpers/receiver.js';
import { shownKey } from '../helpers/key-mask.js';

async function pay(sb: EmulatorHandle, notifyUrl: string, creds = { va: VA, apiKey: KEY }) {
  const body = JSON.stringify({
    name: 'A',
    phone: '08123456789',
    email: 'a@b.co',
    amount: 1000,
    notifyUrl,
    paymentMethod: 'va',
    paymentChannel: 'bca',
    product: ['A'],
    qty: [1],
    price: [1000],
  });
  const req = buildSignedRequest({ baseUrl: sb.apiUrl, path: 'v2/payment/direct', method: 'POST', body, credentials: creds, now: new Date() });
  const res = await request(req.url, { method: 'POST', headers: req.headers, body });
  const id = String(((await res.body.json()) as { Data: { TransactionId: number } }).Data.TransactionId);
  await sb.pay(id);
  return id;
}

describe('emulator delivery faults', () => {
  it('times out a slow receiver and retries on the schedule until it answers 200', async () => {
    let calls = 0;
    const server = createServer((req, res) => {
      req.resume();
      calls++;
      if (calls < 3)
        setTimeout(() => res.end('late'), 1500); // slower than the attempt timeout
      else res.end('ok');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const events: SandboxEvent[] = [];
    const sb = await sandbox({ callbackTimeoutMs: 300, retrySchedule: [100, 100, 100], onEvent: (e) => events.push(e) });
    await pay(sb, `http://127.0.0.1:${(server.address() as AddressInfo).port}/cb`);
    expect(await sb.idle(10_000)).toBe(true);
    const attempts = events.filter((e) => e.type === 'callback');
    expect(attempts.map((a) => (a as { result: string }).result)).toEqual(['timeout after 300 ms', 'timeout after 300 ms', 'HTTP 200']);
    expect(attempts.at(-1)).toMatchObject({ final: 'delivered', attempt: 3 });
    await sb.close();
    server.closeAllConnections();
    server.close();
  });

  it('gives up after the schedule and records it', async () => {
    const rx = await receiver([500]);
    const sb = await sandbox({ retrySchedule: [50, 50] });
    const id = await pay(sb, rx.url);
    expect(await sb.idle(5000)).toBe(true);
    expect(rx.received).toHaveLength(3);
    expect(allDeliveries(sb.state).find((d) => d.trxId === Number(id))).toMatchObject({ state: 'failed', attempts: 3, lastResult: 'HTTP 500' });
    await rx.close();
    await sb.close();
  });

  it('--faults duplicate and delay deliver twice and late', async () => {
    const rx = await receiver([200]);
    const sb = await sandbox({ faults: { duplicate: true, delayMs: 300 } });
    const started = Date.now();
    await pay(sb, rx.url);
    await rx.waitFor(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(rx.received[0]!.body.equals(rx.received[1]!.body)).toBe(true);
    expect(rx.received[0]!.headers['x-external-id']).not.toBe(rx.received[1]!.headers['x-external-id']);
    await rx.close();
    await sb.close();
  });
});

describe('settlement', () => {
  it('deferred settlement sends unsettle / code 6, still correctly signed', async () => {
    const { parseFormBody } = await import('../../src/core/callback/parse.js');
    const { checkCallback } = await import('../../src/core/callback/check.js');
    const rx = await receiver([200]);
    const sb = await sandbox({ settlement: 'deferred' });
    await pay(sb, rx.url);
    await rx.waitFor(1);
    const fields = parseFormBody(rx.received[0]!.body.toString());
    expect(fields).toMatchObject({ status: 'berhasil', status_code: '1', settlement_status: 'unsettle', transaction_status_code: '6' });
    expect(checkCallback(fields, String(rx.received[0]!.headers['x-signature']), VA).verdict).toBe('valid');
    await rx.close();
    await sb.close();
  });
});

describe('paycli sandbox with --accounts', () => {
  it('serves several merchants; inactive or keyless ones get unauthorized credential', async () => {
    const h = tempHome();
    const file = join(h.home, 'accounts.json');
    writeFileSync(
      file,
      JSON.stringify([
        { va: '1111111111', apiKey: 'KEY-ONE-1234567890', name: 'Toko Satu', callbackFormat: 'json' },
        { va: '2222222222', apiKey: 'KEY-TWO-1234567890', active: false },
        { va: '3333333333' },
      ]),
    );
    const controller = new AbortController();
    const { ctx, out } = testContext({ home: h.home, signal: controller.signal });
    const done = run(['sandbox', '--port', '0', '--in-memory', '--accounts', file, '--json'], ctx);
    for (let i = 0; i < 300 && !out().includes('"started"'); i++) await new Promise((r) => setTimeout(r, 10));
    const started = JSON.parse(out().split('\n')[0]!);
    expect(started).toMatchObject({ accounts: 3, va: '1111111111', apiKey: shownKey('KEY-ONE-1234567890') });
    const as = (va: string, key: string) =>
      runCli(['areas', 'city', '51', '--no-cache', '--json'], { env: { PAYCLI_BASE_URL: started.baseUrl, PAYCLI_VA: va, PAYCLI_API_KEY: key }, home: h.home });
    expect((await as('1111111111', 'KEY-ONE-1234567890')).code).toBe(0);
    const inactive = await as('2222222222', 'KEY-TWO-1234567890');
    expect(inactive.code).toBe(4);
    expect(inactive.stderr).toContain('unauthorized credential');
    expect((await as('3333333333', 'ANY-KEY-1234567890')).stderr).toContain('unauthorized credential');
    const bad = join(h.home, 'bad.json');
    writeFileSync(bad, '[{"apiKey":"x"}]');
    const r = await runCli(['sandbox', '--port', '0', '--accounts', bad], { home: h.home });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('entry 1 needs "va"');
    controller.abort('SIGTERM');
    expect(await done).toBe(0);
    h.cleanup();
  });
});
