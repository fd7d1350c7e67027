import { describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/core/api/client.js';
import { AuthError, NetworkError, PaycliError } from '../../src/core/errors.js';
import type { HttpClient, HttpRequest, HttpResponse } from '../../src/core/http/client.js';
import { hashRequestBody } from '../../src/core/signing/request-signature.js';
import { hmacHex } from '../../src/core/signing/callback-signature.js';
import { shownKey } from '../helpers/key-mask.js';

// Issue 15 item 2: one core API client signs, sends, parses the envelope and maps errors.

const credentials = { va: '1179000899', apiKey: 'SANDBOX-PAYCLI-LOCAL-0000-KEY' };
const now = () => new Date('2026-11-20T02:00:00Z');

function fakeHttp(answer: (req: HttpRequest) => HttpResponse | Error): HttpClient & { sent: HttpRequest[]; closed: number } {
  const sent: HttpRequest[] = [];
  const http = {
    sent,
    closed: 0,
    async send(req: HttpRequest) {
      sent.push(req);
      const a = answer(req);
      if (a instanceof Error) throw a;
      return a;
    },
    async close() {
      http.closed++;
    },
  };
  return http;
}
const json = (status: number, body: unknown): HttpResponse => ({
  status,
  headers: { 'content-type': 'application/json' },
  text: JSON.stringify(body),
  attempts: 1,
});

describe('ApiClient', () => {
  it('signs over the exact body, sends once and returns the parsed envelope', async () => {
    const http = fakeHttp(() => json(200, { Status: 200, Success: true, Message: 'ok', Data: [{ code: '51', name: 'BALI' }] }));
    const api = new ApiClient({ baseUrl: 'https://sandbox.example/api/', credentials: () => credentials, http, now });
    const env = await api.call<{ code: string }[]>('POST', 'v2/x', '{"a":1}');
    expect(env.Data).toEqual([{ code: '51', name: 'BALI' }]);
    expect(http.sent).toHaveLength(1);
    const req = http.sent[0]!;
    expect(req.url).toBe('https://sandbox.example/api/v2/x');
    expect(req.headers).toMatchObject({ va: credentials.va, timestamp: '20261120090000' });
    expect(req.headers.signature).toBe(hmacHex(credentials.apiKey, `POST:${credentials.va}:${hashRequestBody('{"a":1}')}:${credentials.apiKey}`));
    await api.close();
    expect(http.closed).toBe(0); // a transport given as an object belongs to the caller
  });

  it('after a payment POST, a reset connection says the payment may exist and how to find it', async () => {
    const reset = new NetworkError('POST … failed: the connection was reset', { cause: Object.assign(new Error('reset'), { code: 'ECONNRESET' }) });
    const api = new ApiClient({ baseUrl: 'https://sandbox.example/api', credentials: () => credentials, http: fakeHttp(() => reset), now });
    const err = await api.call('POST', 'v2/payment/direct', '{}', { paymentReferenceId: 'ORD-1' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PaycliError);
    expect((err as PaycliError).hint).toBe(
      'the payment may have been created: look for reference ORD-1 in `paycli history --from 2026-11-20`, then check it with `paycli transaction ID`, before sending it again',
    );
    // Refused before anything was sent: no such hint.
    const refused = new NetworkError('refused', { cause: Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }) });
    const api2 = new ApiClient({ baseUrl: 'https://sandbox.example/api', credentials: () => credentials, http: fakeHttp(() => refused), now });
    expect(
      ((await api2.call('POST', 'v2/payment/direct', '{}', { paymentReferenceId: 'ORD-1' }).catch((e: unknown) => e)) as PaycliError).hint,
    ).toBeUndefined();
  });

  it('a 401 from a loopback base URL names the VA sent and the emulator merchant', async () => {
    const http = fakeHttp(() => json(401, { Status: 401, Success: false, Message: 'unauthorized signature' }));
    const api = new ApiClient({
      baseUrl: 'http://127.0.0.1:4010/api',
      credentials: () => ({ va: '2220002220', apiKey: 'OTHER-KEY-1234567890' }),
      http: async () => http,
      now,
      emulatorMerchant: credentials,
    });
    const err = (await api.call('GET', 'areas/province').catch((e: unknown) => e)) as AuthError;
    expect(err).toBeInstanceOf(AuthError);
    expect(err.message).toBe('the gateway refused the request (401): "unauthorized signature" — sent VA …2220 to 127.0.0.1:4010');
    expect(err.hint).toContain(`accepts its default merchant: VA 1179000899, API key ${shownKey('SANDBOX-PAYCLI-LOCAL-0000-KEY')}`);
    await api.close();
    expect(http.closed).toBe(1); // a transport it made on first use is closed with it
  });
});
