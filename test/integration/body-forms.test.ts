import { createHash, createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatorHandle } from '../../src/core/sandbox/server.js';
import { fieldsObject, scriptSigningJson } from '../../src/core/sandbox/request-body.js';
import { EMULATOR_DEFAULT_API_KEY as KEY, EMULATOR_DEFAULT_VA as VA, sandbox } from '../helpers/sandbox.js';

/** The Postman collection's signature (its pre-request script): HMAC over METHOD:VA:sha256(json):KEY. */
function sign(method: string, signedJson: string, key = KEY): string {
  const hash = createHash('sha256').update(signedJson).digest('hex');
  return createHmac('sha256', key).update(`${method}:${VA}:${hash}:${key}`).digest('hex');
}

let sb: EmulatorHandle;
beforeAll(async () => {
  sb = await sandbox();
});
afterAll(() => sb.close());

describe('the signing JSON of a form, as the collection script computes it', () => {
  it('puts the query first, keeps a repeated name at its first place with its last value, and makes name[] an array', () => {
    const json = scriptSigningJson(
      [['area', 'jakarta']],
      [
        ['product[]', 'a, b'],
        ['qty[]', '1'],
        ['name', 'x'],
        ['product[]', 'c,d'],
        ['tag[]', 'p,q'],
      ],
    );
    expect(json).toBe('{"area":"jakarta","product":["c","d"],"qty":["1"],"name":"x","tag":["p,q"]}');
  });
  it('gives the routes every value of a repeated name[] field', () => {
    expect(
      JSON.stringify(
        fieldsObject([
          ['product[]', 'a'],
          ['product[]', 'b'],
          ['name', 'x'],
        ]),
      ),
    ).toBe('{"product":["a","b"],"name":"x"}');
  });
});

describe("the emulator reads the bodies the gateway's clients send", () => {
  it('takes a multipart/form-data direct payment signed over the JSON of its fields', async () => {
    const form = new FormData();
    const fields: [string, string][] = [
      ['name', 'Putu'],
      ['phone', '081999501092'],
      ['email', 'putu@mail.com'],
      ['amount', '20000'],
      ['notifyUrl', 'http://127.0.0.1:9/cb'],
      ['referenceId', '1'],
      ['paymentMethod', 'va'],
      ['paymentChannel', 'bca'],
      ['product[]', 'produk 1'],
      ['qty[]', '1'],
      ['price[]', '20000'],
    ];
    for (const [k, v] of fields) form.append(k, v);
    const signed = JSON.stringify({
      name: 'Putu',
      phone: '081999501092',
      email: 'putu@mail.com',
      amount: '20000',
      notifyUrl: 'http://127.0.0.1:9/cb',
      referenceId: '1',
      paymentMethod: 'va',
      paymentChannel: 'bca',
      product: ['produk 1'],
      qty: ['1'],
      price: ['20000'],
    });
    const res = await fetch(`${sb.apiUrl}/v2/payment/direct`, { method: 'POST', headers: { va: VA, signature: sign('POST', signed) }, body: form });
    const json = (await res.json()) as { Status: number; Data: { TransactionId: number; Total: number } };
    expect(res.status).toBe(200);
    expect(json.Data.TransactionId).toBeGreaterThan(0);
    const wrong = new FormData();
    for (const [k, v] of fields) wrong.append(k, v);
    const refused = await fetch(`${sb.apiUrl}/v2/payment/direct`, {
      method: 'POST',
      headers: { va: VA, signature: sign('POST', signed.replace('20000', '20001')) },
      body: wrong,
    });
    expect(refused.status).toBe(401);
  });

  it('takes an x-www-form-urlencoded balance request signed the same way', async () => {
    const body = new URLSearchParams({ account: VA }).toString();
    const res = await fetch(`${sb.apiUrl}/v2/balance`, {
      method: 'POST',
      headers: { va: VA, signature: sign('POST', JSON.stringify({ account: VA })), 'content-type': 'application/x-www-form-urlencoded' },
      body,
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { Data: { Va: string } }).Data.Va).toBe(VA);
  });

  it('still takes JSON signed over its exact bytes, and refuses a multipart body it cannot read', async () => {
    const body = `{ "account" : "${VA}" }`;
    const ok = await fetch(`${sb.apiUrl}/v2/balance`, {
      method: 'POST',
      headers: { va: VA, signature: sign('POST', body), 'content-type': 'application/json' },
      body,
    });
    expect(ok.status).toBe(200);
    const bad = await fetch(`${sb.apiUrl}/v2/balance`, {
      method: 'POST',
      headers: { va: VA, signature: 'x', 'content-type': 'multipart/form-data; boundary=zz' },
      body: 'garbage',
    });
    expect(bad.status).toBe(400);
  });
});
