import { describe, expect, it } from 'vitest';
import { hashRequestBody, maskSecret, signRequest } from '../../src/core/signing/request-signature.js';
import { formatJakarta, isoJakarta, jakartaTimestamp } from '../../src/core/time.js';
import { buildSignedRequest, toCurl } from '../../src/core/api/signed-request.js';
import { leaksKeyPart, shownKey } from '../helpers/key-mask.js';

const VA = '0000001234567890';
const KEY = 'YOUR_API_KEY';
const POST_BODY =
  '{"name":"Buyer","phone":"08123456789","email":"buyer@mail.com","amount":10000,"notifyUrl":"https://mywebsite.com/callback","referenceId":"REF123456","paymentMethod":"va","paymentChannel":"bca"}';

describe('request signature (docs/gateway.md, "Request signing"; test/fixtures/README.md)', () => {
  it('reproduces the GET vector: the hashed body is {}', () => {
    const s = signRequest({ method: 'GET', va: VA, apiKey: KEY });
    expect(s.bodyHash).toBe('44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a');
    expect(s.signature).toBe('60092a2784e4e0088f4e0ece717721a0b2df72303de21d1fb375bbb7d6bdffeb');
  });

  it('reproduces the POST vector over the exact body bytes', () => {
    const s = signRequest({ method: 'POST', va: VA, apiKey: KEY, body: POST_BODY });
    expect(s.bodyHash).toBe('192beb157a866f8bc76efb84a1e7925836693de8081ec53b48e4788ffa398294');
    expect(s.signature).toBe('1cbce267558d9bd4ff58a5ac020e8eba7dcea93670607f18603ae17219b25a6e');
  });

  it('upper-cases the method and hashes an empty body as {}', () => {
    expect(signRequest({ method: 'get', va: VA, apiKey: KEY }).signature).toBe(signRequest({ method: 'GET', va: VA, apiKey: KEY, body: '' }).signature);
    expect(hashRequestBody('')).toBe(hashRequestBody('{}'));
    expect(signRequest({ method: 'POST', va: VA, apiKey: KEY }).signature).not.toBe(signRequest({ method: 'GET', va: VA, apiKey: KEY }).signature);
  });

  it('never puts the API key in the printable string to sign', () => {
    const s = signRequest({ method: 'GET', va: VA, apiKey: 'sk-secret-1234567890-abcd' });
    expect(s.stringToSignMasked).not.toContain('sk-secret-1234567890-abcd');
    expect(s.stringToSignMasked.endsWith(`:${shownKey('sk-secret-1234567890-abcd')}`)).toBe(true);
    // Not one run of 3 characters of the key in what stands for it (the old mask kept 8: sk-s…abcd).
    expect(leaksKeyPart(s.stringToSignMasked.split(':').slice(3).join(':'), 'sk-secret-1234567890-abcd', 3)).toBe(false);
    expect(s.signature).not.toBe('sk-secret-1234567890-abcd');
  });

  it('masks secrets by length', () => {
    expect(maskSecret('abcdefghijklmnopwxyz')).toBe('abcd…wxyz');
    expect(maskSecret('1179000899')).toBe('…0899');
    expect(maskSecret('short')).toBe('•••••');
    expect(maskSecret(undefined)).toBe('');
  });

  it('formats Asia/Jakarta times (UTC+7)', () => {
    const d = new Date('2025-11-11T03:10:52Z');
    expect(jakartaTimestamp(d)).toBe('20251111101052');
    expect(formatJakarta(d)).toBe('2025-11-11 10:10:52');
    expect(isoJakarta(d)).toBe('2025-11-11T10:10:52+07:00');
    expect(jakartaTimestamp(new Date('2025-12-31T17:30:00Z'))).toBe('20260101003000');
  });

  it('builds the gateway headers and a curl command without secrets', () => {
    const req = buildSignedRequest({
      baseUrl: 'http://127.0.0.1:4010/api/',
      path: 'v2/payment/direct',
      method: 'post',
      body: POST_BODY,
      credentials: { va: VA, apiKey: KEY },
      now: new Date('2025-11-11T03:10:52Z'),
    });
    expect(req.url).toBe('http://127.0.0.1:4010/api/v2/payment/direct');
    expect(req.headers).toMatchObject({
      'content-type': 'application/json',
      va: VA,
      signature: '1cbce267558d9bd4ff58a5ac020e8eba7dcea93670607f18603ae17219b25a6e',
      timestamp: '20251111101052',
    });
    const curl = toCurl(req);
    expect(curl).toContain('$PAYCLI_API_KEY');
    expect(curl).toContain('$PAYCLI_VA');
    expect(curl).not.toContain(KEY);
    expect(curl).not.toContain(VA);
  });
});
