import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { hashRequestBody } from '../../src/core/signing/request-signature.js';
import { hmacHex } from '../../src/core/signing/callback-signature.js';
import type { SandboxEvent, EmulatorHandle } from '../../src/core/sandbox/server.js';
import { parseFaults } from '../../src/core/sandbox/faults.js';
import { EMULATOR_DEFAULT_API_KEY as KEY, EMULATOR_DEFAULT_VA as VA, sandbox } from '../helpers/sandbox.js';
import { runCli, tempHome } from '../helpers/cli.js';
import { leaksKeyPart, shownKey } from '../helpers/key-mask.js';

const sign = (method: string, body: string, key = KEY, va = VA, tail = key) => hmacHex(key, `${method}:${va}:${hashRequestBody(body)}:${tail}`);
const payment = {
  name: 'Putu',
  phone: '08123456789',
  email: 'putu@mail.com',
  amount: 10000,
  notifyUrl: 'http://127.0.0.1:9/cb',
  paymentMethod: 'va',
  paymentChannel: 'bni',
  referenceId: 'ORD/1',
};
const body = JSON.stringify(payment);

async function post(sb: EmulatorHandle, path: string, headers: Record<string, string>, text: string, method = 'POST') {
  const res = await request(`${sb.apiUrl}/${path}`, { method: method as 'POST', headers: { 'content-type': 'application/json', ...headers }, body: text });
  return { status: res.statusCode, json: (await res.body.json()) as Record<string, any> };
}

describe('the emulator says why it refused', () => {
  let sb: EmulatorHandle;
  const events: SandboxEvent[] = [];
  beforeAll(async () => {
    sb = await sandbox({ onEvent: (e) => events.push(e) });
  });
  afterAll(() => sb.close());

  it('names the failed check and the likely mistake; the answer keeps the gateway shape; the key never appears', async () => {
    const pretty = JSON.stringify(payment, null, 2);
    const cases: [Record<string, string>, string, RegExp | undefined][] = [
      [{ signature: sign('POST', body) }, 'no-va', undefined],
      [{ va: '9990009990', signature: sign('POST', body) }, 'unknown-va', undefined],
      [{ va: VA, signature: sign('GET', body) }, 'signature-mismatch', /signed the method GET, but the request was sent as POST/],
      [{ va: VA, signature: hmacHex(KEY, `POST:${VA}:${hashRequestBody(pretty)}:${KEY}`) }, 'signature-mismatch', /pretty-printed JSON/],
      [
        { va: VA, signature: hmacHex(KEY, `POST:${VA}:${hashRequestBody(JSON.stringify(payment).replace(/\//g, '\\/'))}:${KEY}`) },
        'signature-mismatch',
        /escaped/,
      ],
      [{ va: VA, signature: hmacHex(VA, `POST:${VA}:${hashRequestBody(body)}:${KEY}`) }, 'signature-mismatch', /VA as the HMAC key/],
      [{ va: VA, signature: sign('POST', body, VA) }, 'signature-mismatch', /signed with the VA/],
      [
        { va: VA, timestamp: '20261125101010', signature: hmacHex(KEY, `POST:${VA}:${hashRequestBody(body)}:${KEY}:20261125101010`) },
        'signature-mismatch',
        /timestamp/,
      ],
      [{ va: VA, signature: 'f'.repeat(64) }, 'signature-mismatch', /no known mistake/],
    ];
    for (const [headers, check, mistake] of cases) {
      const r = await post(sb, 'v2/payment/direct', headers, body);
      expect(r.status).toBe(401);
      expect(Object.keys(r.json)).toEqual(['Status', 'Success', 'Message', 'Data']);
      const logged = sb.requests.since(0).at(-1)!;
      expect(logged.auth?.check, JSON.stringify(headers)).toBe(check);
      if (mistake) expect(logged.auth!.reason).toMatch(mistake);
      if (check === 'signature-mismatch') {
        expect(logged.auth!.expectedStringToSign).toBe(`POST:${VA}:${hashRequestBody(body)}:${shownKey(KEY)}`);
        expect(leaksKeyPart(logged.auth!.expectedStringToSign!, KEY)).toBe(false);
        expect(logged.auth!.receivedBodyHash).toBe(hashRequestBody(body));
      }
    }
    expect(JSON.stringify(sb.requests.since(0))).not.toContain(KEY);
    expect(JSON.stringify(events)).not.toContain(KEY);
    expect(sb.state.count()).toBe(0);
  });

  it('a 400 lists its field errors in the log; the dashboard Requests page shows both', async () => {
    const bad = JSON.stringify({ ...payment, email: 'nope', amount: 0 });
    const r = await post(sb, 'v2/payment/direct', { va: VA, signature: sign('POST', bad) }, bad);
    expect(r.status).toBe(400);
    const logged = sb.requests.since(0).at(-1)!;
    expect(Object.keys(logged.fieldErrors!)).toEqual(expect.arrayContaining(['email', 'amount']));
    const page = await request(`${sb.url}/dashboard/requests`);
    const html = await page.body.text();
    expect(html).toContain('email tidak valid.');
    expect(html).toContain('signed the method GET');
    expect(html).not.toContain(KEY);
  });

  it('paycli sandbox logs shows the log from another process, in text and --json', async () => {
    const home = tempHome();
    try {
      const text = await runCli(['sandbox', 'logs', '--sandbox-url', sb.url], { home: home.home });
      expect(text.code).toBe(0);
      expect(text.stdout).toContain('401: signature mismatch: likely signed the method GET');
      expect(text.stdout).toMatch(/expected string to sign: POST:\d+:[0-9a-f]{64}:/);
      expect(text.stdout).toContain('400: email: email tidak valid.');
      expect(text.stdout).not.toContain(KEY);
      const json = await runCli(['sandbox', 'logs', '--json', '--sandbox-url', sb.url], { home: home.home });
      const lines = json.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, any>);
      expect(lines.filter((l) => l.auth?.check === 'unknown-va')).toHaveLength(1);
    } finally {
      home.cleanup();
    }
  });
});

describe("API faults for the merchant's client (issue 24, item 5)", () => {
  it('parses rates, durations and path scopes, and refuses nonsense', () => {
    expect(parseFaults('api-500=0.3@/v2/payment/direct,api-slow=2s,concurrent-duplicate=3,duplicate')).toEqual({
      delivery: { concurrentDuplicates: 3, duplicate: true },
      api: [
        { kind: 'api-500', rate: 0.3, delayMs: 0, path: '/v2/payment/direct' },
        { kind: 'api-slow', rate: 1, delayMs: 2000 },
      ],
    });
    for (const bad of ['api-500=2', 'api-500=x', 'api-timeout=0.5@v2', 'concurrent-duplicate=0', 'chaos']) expect(() => parseFaults(bad), bad).toThrow();
  });

  it('a faulted request answers 500 (or nothing) and changes no state; other paths are untouched', async () => {
    const sb = await sandbox({ apiFaults: parseFaults('api-500=1@/v2/payment/direct').api });
    try {
      const r = await post(sb, 'v2/payment/direct', { va: VA, signature: sign('POST', body) }, body);
      expect(r.status).toBe(500);
      expect(r.json).toMatchObject({ Status: 500, Success: false, Data: null });
      expect(sb.state.count()).toBe(0);
      expect(sb.requests.since(0).at(-1)!.fault).toBe('api-500');
      const areas = await post(sb, 'areas/province', { va: VA, signature: sign('GET', '') }, '', 'GET');
      expect(areas.status).toBe(200);
    } finally {
      await sb.close();
    }
    const hung = await sandbox({ apiFaults: parseFaults('api-timeout=1').api });
    try {
      const aborted = await request(`${hung.apiUrl}/v2/payment/direct`, {
        method: 'POST',
        headers: { va: VA, signature: sign('POST', body), 'content-type': 'application/json' },
        body,
        headersTimeout: 500,
      }).then(
        () => 'answered',
        (err: Error) => err.name,
      );
      expect(aborted).toBe('HeadersTimeoutError');
      expect(hung.state.count()).toBe(0);
      expect(hung.requests.since(0).at(-1)).toMatchObject({ fault: 'api-timeout', status: 0 });
    } finally {
      await hung.close();
    }
    const slow = await sandbox({ apiFaults: parseFaults('api-slow=50ms').api });
    try {
      const r = await post(slow, 'v2/payment/direct', { va: VA, signature: sign('POST', body) }, body);
      expect(r.status).toBe(200);
      expect(slow.requests.since(0).at(-1)!.fault).toBe('api-slow');
    } finally {
      await slow.close();
    }
  });
});
