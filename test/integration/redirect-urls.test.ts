import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { buildSignedRequest } from '../../src/core/api/signed-request.js';
import type { EmulatorHandle } from '../../src/core/sandbox/server.js';
import { EMULATOR_DEFAULT_API_KEY as KEY, EMULATOR_DEFAULT_VA as VA, sandbox } from '../helpers/sandbox.js';

/**
 * Issue 26 item 11: a returnUrl/cancelUrl outside Latin-1 made the hosted page pay and then answer
 * 500 (a Location header cannot hold it), and Cancel always 500. Such URLs are percent-encoded when
 * redirecting; control characters and spaces are refused at creation with a field error.
 */

let sb: EmulatorHandle;
beforeAll(async () => {
  sb = await sandbox();
});
afterAll(() => sb.close());

async function redirectPayment(
  extra: Record<string, unknown>,
): Promise<{ status: number; body: { Data: { SessionID: string } | null; Error?: Record<string, string[]> } }> {
  const text = JSON.stringify({ product: ['Kopi'], qty: [1], price: [25000], notifyUrl: 'http://127.0.0.1:9/cb', ...extra });
  const req = buildSignedRequest({ baseUrl: sb.apiUrl, path: 'v2/payment', method: 'POST', body: text, credentials: { va: VA, apiKey: KEY }, now: new Date() });
  const res = await request(req.url, { method: 'POST', headers: req.headers, body: text });
  return { status: res.statusCode, body: (await res.body.json()) as never };
}

/** A POST as the page's form sends it; the answer's status and Location. */
function post(path: string, form = ''): Promise<{ status: number; location?: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${sb.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, location: res.headers.location }));
    });
    req.on('error', reject);
    req.end(form);
  });
}

describe('returnUrl and cancelUrl of redirect payments', () => {
  it('redirects to a URL outside Latin-1, percent-encoded, after paying and on cancel', async () => {
    const made = await redirectPayment({
      returnUrl: 'https://toko.example/terima-kasih/ñ?pesan=✓ lunas'.replace(' ', '%20'),
      cancelUrl: 'https://toko.example/batal/🙏',
    });
    expect(made.status).toBe(200);
    const sid = made.body.Data!.SessionID;
    expect(await post(`/payment/${sid}/cancel`)).toEqual({ status: 303, location: 'https://toko.example/batal/%F0%9F%99%8F' });
    expect((await post(`/payment/${sid}/choose`, 'channel=va:bca&name=Putu&phone=08123456789&email=p@x.co')).status).toBe(303);
    expect(await post(`/payment/${sid}/pay`)).toEqual({ status: 303, location: 'https://toko.example/terima-kasih/%C3%B1?pesan=%E2%9C%93%20lunas' });
    expect(sb.state.sessionTransaction(sid, sb.accounts[0]!.va)?.status).toBe('berhasil');
  });

  it('refuses a control character or a space with a field error, before anything is stored', async () => {
    for (const [field, url] of [
      ['returnUrl', 'https://toko.example/ok\u0007'],
      ['cancelUrl', 'https://toko.example/a\r\nSet-Cookie: x=1'],
      ['returnUrl', 'https://toko.example/a b'],
      ['cancelUrl', 'https://toko.example/\u0085'],
      ['notifyUrl', 'http://127.0.0.1:9/cb\u0000'],
    ] as const) {
      const r = await redirectPayment({ [field]: url });
      expect(r.status, JSON.stringify(url)).toBe(400);
      expect(r.body.Error?.[field], JSON.stringify(url)).toEqual([`${field} harus berupa URL.`]);
    }
  });

  it('a session journalled with an unusable URL by an older version cancels to its page, not a 500', async () => {
    const made = await redirectPayment({});
    const sid = made.body.Data!.SessionID;
    // As an older version could have stored it (its URL checks were looser).
    sb.state.db.prepare(`UPDATE sessions SET body = json_set(body, '$.cancelUrl', ?) WHERE sid = ?`).run('https://toko.example/\n', sid);
    expect(await post(`/payment/${sid}/cancel`)).toEqual({ status: 303, location: `/payment/${sid}` });
  });
});
