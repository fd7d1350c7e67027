import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkPaymentData, checkRegionsData, excerpt, parseEnvelope } from '../../src/core/http/envelope.js';
import { AuthError, GatewayError, NetworkError } from '../../src/core/errors.js';
import { payVa } from '../helpers/argv.js';
import { runCli, tempHome } from '../helpers/cli.js';

// Issue 13 item 19: anything that is not a well-formed envelope is exit 5 "malformed response"
// with the HTTP status and a short excerpt; after a payment POST, the payment may exist.

const res = (status: number, text: string) => ({ status, text, headers: { 'content-type': 'application/json' }, attempts: 1 });
const malformed = (status: number, text: string, expectation = {}) => {
  try {
    parseEnvelope(res(status, text), 'http://gw/api/x', expectation);
  } catch (err) {
    return err as NetworkError;
  }
  throw new Error('accepted');
};

describe('envelope checks', () => {
  it('refuses what is not an envelope', () => {
    for (const text of [
      '{}',
      '{"Status":"OK","Success":true,"Message":"","Data":[]}',
      '{"Status":200.5,"Data":[]}',
      '{"Status":200,"Success":"yes","Data":[]}',
      '{"Status":200,"Success":true,"Message":7,"Data":[]}',
      '{"Status":200,"Success":true,"Message":"ok"}',
      'null',
      '"ok"',
    ]) {
      const err = malformed(200, text);
      expect(err, text).toBeInstanceOf(NetworkError);
      expect(err.message, text).toMatch(/^malformed response from http:\/\/gw\/api\/x: HTTP 200 with /);
    }
    expect(malformed(200, '{}').message).toBe('malformed response from http://gw/api/x: HTTP 200 with an envelope without an integer Status: "{}"');
  });

  it('checks Data per endpoint', () => {
    expect(checkRegionsData([{ code: '51', name: 'BALI' }])).toBeUndefined();
    expect(checkRegionsData([])).toBeUndefined();
    expect(checkRegionsData(null)).toBe('is null, not a list of regions');
    expect(checkRegionsData({ code: '51' })).toBe('is an object, not a list of regions');
    expect(checkRegionsData([{ code: '51' }])).toMatch(/item 1/);
    expect(checkPaymentData({ TransactionId: 100001 })).toBeUndefined();
    expect(checkPaymentData(null)).toBe('is null, not the payment');
    expect(checkPaymentData({ Via: 'va' })).toBe('has no TransactionId');
    const err = malformed(200, '{"Status":200,"Success":true,"Message":"Success","Data":null}', {
      checkData: checkPaymentData,
      paymentReferenceId: 'PAYCLI-1',
    });
    expect(err.message).toContain('HTTP 200 with a success envelope whose Data is null, not the payment: "{\\"Status\\":200');
    expect(err.hint).toBe(
      'the payment may have been created: look for reference PAYCLI-1 in `paycli history`, then check it with `paycli transaction ID`, before sending it again',
    );
  });

  it('keeps gateway and auth errors typed, and well-formed envelopes accepted', () => {
    expect(() => parseEnvelope(res(200, '{"Status":200,"Success":false,"Message":"saldo kurang","Data":null}'), 'u')).toThrow(GatewayError);
    expect(() => parseEnvelope(res(401, '{"Status":401,"Success":false,"Message":"unauthorized signature","Data":null}'), 'u')).toThrow(AuthError);
    expect(parseEnvelope(res(200, '{"Status":"200","Success":true,"Message":"","Data":[]}'), 'u').Status).toBe(200);
  });

  it('bounds and escapes the excerpt', () => {
    expect(excerpt('\u001b]0;owned\u0007' + 'x'.repeat(100))).toBe('"\\u001b]0;owned\\u0007' + 'x'.repeat(50) + '"… (110 bytes)');
    expect(excerpt('a\u009bb')).toBe('"a\\u009bb"');
  });
});

describe('commands on a gateway that answers nonsense (exit 5)', () => {
  let server: Server;
  let base: string;
  let answer = '{}';
  let requests = 0;
  const home = tempHome();
  beforeAll(async () => {
    server = createServer((req, r) => {
      req.resume();
      req.on('end', () => {
        requests++;
        r.writeHead(200, { 'content-type': 'application/json' }).end(answer);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
    home.cleanup();
  });
  const env = () => ({ PAYCLI_BASE_URL: base, PAYCLI_VA: '1179000899', PAYCLI_API_KEY: 'SANDBOX-PAYCLI-LOCAL-0000-KEY' });

  it('areas: {} and "Status":"OK" are malformed, not "no provinces" or NaN', async () => {
    answer = '{}';
    const r = await runCli(['areas', 'province', '--no-cache'], { env: env(), home: home.home });
    expect(r.code).toBe(5);
    expect(r.stderr.split('\n')[0]).toBe(`error: malformed response from ${base}/areas/province: HTTP 200 with an envelope without an integer Status: "{}"`);
    expect(r.stdout).toBe('');
    answer = '{"Status":"OK","Success":true,"Message":"","Data":[]}';
    const ok = await runCli(['areas', 'city', '51', '--no-cache', '--json'], { env: env(), home: home.home });
    expect(ok.code).toBe(5);
    expect(JSON.parse(ok.stderr).error).toMatchObject({
      code: 'ERR_MALFORMED_RESPONSE',
      kind: 'network',
      exitCode: 5,
      message: expect.stringContaining('HTTP 200 with an envelope without an integer Status'),
    });
  });

  it('pay: Data null after the POST says the payment may exist and how to check it', async () => {
    answer = '{"Status":200,"Success":true,"Message":"Success","Data":null}';
    const before = requests;
    const r = await runCli([...payVa(), '--notify-url', 'http://127.0.0.1:9/cb', '--item', 'A:1:1000', '--reference-id', 'ORDER-77'], {
      env: env(),
      home: home.home,
      now: () => new Date('2026-11-22T18:30:00Z'),
    });
    expect(r.code).toBe(5);
    expect(requests - before).toBe(1);
    expect(r.stderr).toContain('HTTP 200 with a success envelope whose Data is null, not the payment');
    expect(r.stderr).toContain(
      'hint: the payment may have been created: look for reference ORDER-77 in `paycli history --from 2026-11-23`, then check it with `paycli transaction ID`',
    );
    answer = '{"Status":502,"Success":false,"Message":"bad gateway","Data":null}';
    const bad = await runCli([...payVa(), '--notify-url', 'http://127.0.0.1:9/cb', '--item', 'A:1:1000', '--reference-id', 'ORDER-78'], {
      env: env(),
      home: home.home,
    });
    expect(bad.code).toBe(3);
    expect(bad.stderr).toContain('hint: the payment may have been created: look for reference ORDER-78');
    answer = '{"Status":400,"Success":false,"Message":"error - invalid request","Error":{"phone":["phone tidak valid."]},"Data":null}';
    const refused = await runCli([...payVa(), '--notify-url', 'http://127.0.0.1:9/cb', '--item', 'A:1:1000', '--reference-id', 'ORDER-79'], {
      env: env(),
      home: home.home,
    });
    expect(refused.code).toBe(3);
    expect(refused.stderr).not.toContain('may have been created');
  });
});
