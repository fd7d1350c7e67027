import { buildSignedRequest, type SignedRequest } from '../../src/core/api/signed-request.js';
import { startSandbox, type EmulatorHandle, type SandboxOptions } from '../../src/core/sandbox/server.js';
import { processLockOwner } from '../../src/sandbox.js';
import { EMULATOR_DEFAULT_API_KEY, EMULATOR_DEFAULT_VA } from '../../src/core/config/resolve.js';
import { request } from 'undici';
import { afterAll, beforeAll, expect } from 'vitest';
import { tempHome } from './cli.js';

export { EMULATOR_DEFAULT_API_KEY, EMULATOR_DEFAULT_VA };

/** Starts an in-memory emulator on a free loopback port. */
export function sandbox(options: SandboxOptions = {}): Promise<EmulatorHandle> {
  return startSandbox({ lockOwner: processLockOwner(), port: 0, retrySchedule: [50, 100, 200], callbackTimeoutMs: 2000, ...options });
}

/** A POST of `body` to the emulator API's `path`, signed now with the emulator's default VA and API key. */
export function signedPost(apiUrl: string, path: string, body: string): SignedRequest {
  return buildSignedRequest({
    baseUrl: apiUrl,
    path,
    method: 'POST',
    body,
    credentials: { va: EMULATOR_DEFAULT_VA, apiKey: EMULATOR_DEFAULT_API_KEY },
    now: new Date(),
  });
}

/** Buyer `n`'s direct VA payment at the emulator (amount 10 000 + n, reference `R-n`): its transaction id. */
export async function createDirectVa(sb: EmulatorHandle, n: number, channel = 'bca'): Promise<number> {
  const body = JSON.stringify({
    name: `Buyer ${n}`,
    phone: '08123456789',
    email: 'a@b.co',
    amount: 10_000 + n,
    notifyUrl: 'http://127.0.0.1:9/cb',
    referenceId: `R-${n}`,
    paymentMethod: 'va',
    paymentChannel: channel,
  });
  const req = signedPost(sb.apiUrl, 'v2/payment/direct', body);
  const res = await request(req.url, { method: 'POST', headers: req.headers, body });
  const json = (await res.body.json()) as { Data: { TransactionId: number } };
  expect(res.statusCode).toBe(200);
  return json.Data.TransactionId;
}

/** Environment that points paycli at an emulator with its default credentials. */
export function localEnv(sb: EmulatorHandle, extra: Record<string, string> = {}): Record<string, string> {
  return { PAYCLI_ENV: 'local', PAYCLI_BASE_URL: sb.apiUrl, ...extra };
}

/**
 * An emulator on port 0 and a temporary HOME for one test file: started before its tests, closed
 * and removed after them. Read `sb` and `home` inside tests (they are set once the file starts).
 */
export function sandboxAndHome(options: SandboxOptions = {}): { sb: EmulatorHandle; home: ReturnType<typeof tempHome> } {
  const fixture = { sb: undefined as unknown as EmulatorHandle, home: undefined as unknown as ReturnType<typeof tempHome> };
  beforeAll(async () => {
    fixture.sb = await sandbox(options);
    fixture.home = tempHome();
  });
  afterAll(async () => {
    await fixture.sb?.close();
    fixture.home?.cleanup();
  });
  return fixture;
}

/**
 * An undici dispatcher whose every connection, whatever host the URL names, leads to the emulator
 * (plain HTTP on loopback): stands in for https://my.ipaymu.com in tests of what paycli does before
 * and when it talks to production, with nothing leaving the machine. Set it as `ctx.dispatcher`;
 * start the emulator with `allowedHosts: ['my.ipaymu.com']` (it refuses foreign Host names).
 */
export async function dispatcherToEmulator(sb: EmulatorHandle): Promise<import('undici').Dispatcher> {
  const { Agent } = await import('undici');
  const { connect } = await import('node:net');
  const port = Number(new URL(sb.apiUrl).port);
  return new Agent({
    connect: (_opts, cb) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => cb(null, socket)).once('error', (e) => cb(e, null));
      return socket;
    },
  });
}

/** Every transaction of an emulator's ledger, oldest first (tests only: a real reader pages). */
export function allTxns(state: EmulatorHandle['state']): import('../../src/core/sandbox/state.js').Transaction[] {
  return state.page({}, { by: 'id', desc: false }, 1_000_000).rows;
}

/** Every callback delivery of an emulator's ledger, oldest first. */
export function allDeliveries(state: EmulatorHandle['state']): import('../../src/core/sandbox/state.js').Delivery[] {
  return allTxns(state)
    .flatMap((t) => state.deliveriesOf(t.id))
    .sort((a, b) => Number(a.id.slice(3)) - Number(b.id.slice(3)));
}
