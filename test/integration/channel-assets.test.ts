import { describe, expect, it } from 'vitest';
import { request } from 'undici';
import { buildSignedRequest } from '../../src/core/api/signed-request.js';
import { CHANNEL_NAMES, PAYMENT_METHODS } from '../../src/core/payment-rules.js';
import { EMULATOR_DEFAULT_API_KEY as KEY, EMULATOR_DEFAULT_VA as VA, sandboxAndHome } from '../helpers/sandbox.js';

/** Issue 26 item 14: every Logo and PaymentInstructionsDoc URL of the channel list answers. */

const fx = sandboxAndHome();

async function api(path: string, method: 'GET' | 'POST'): Promise<Record<string, unknown>[]> {
  const body = method === 'POST' ? '{}' : '';
  const req = buildSignedRequest({ baseUrl: fx.sb.apiUrl, path, method, body, credentials: { va: VA, apiKey: KEY }, now: new Date() });
  const res = await request(req.url, { method, headers: req.headers, body: method === 'POST' ? body : undefined });
  expect(res.statusCode).toBe(200);
  return ((await res.body.json()) as { Data: Record<string, unknown>[] }).Data;
}

describe("the channel list's logos and instructions", () => {
  it('answers 200 with an SVG logo and an HTML page for every channel it lists', async () => {
    const methods = await api('v2/payment-channels', 'GET');
    const urls: [string, string, string][] = [];
    for (const m of methods)
      for (const c of m.Channels as Record<string, unknown>[]) urls.push([String(c.Logo), String(c.PaymentInstructionsDoc), String(c.Code)]);
    expect(urls).toHaveLength(PAYMENT_METHODS.reduce((n, m) => n + m.channels.length, 0));
    for (const [logo, doc, code] of urls) {
      const l = await request(logo);
      expect(l.statusCode, logo).toBe(200);
      expect(l.headers['content-type'], logo).toBe('image/svg+xml');
      const svg = await l.body.text();
      expect(svg, logo).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[\s\S]*<\/svg>\n$/);
      expect(svg).toContain(`aria-label="${CHANNEL_NAMES[code]!.replace('&', '&amp;')}"`);
      const d = await request(doc);
      expect(d.statusCode, doc).toBe(200);
      expect(d.headers['content-type'], doc).toBe('text/html; charset=utf-8');
      const html = await d.body.text();
      expect(html, doc).toContain(`id="steps"`);
      expect(html).toContain(CHANNEL_NAMES[code]!);
    }
  });

  it('the older payment-method-list points at the same pages', async () => {
    const methods = await api('v2/payment-method-list', 'POST');
    const docs = methods.flatMap((m) => (m.Channels as Record<string, unknown>[]).map((c) => String(c.PaymentIntrucionsDoc)));
    expect(docs.length).toBeGreaterThan(0);
    for (const doc of docs) expect((await request(doc)).statusCode, doc).toBe(200);
  });

  it('404 for a channel or a pair it does not list', async () => {
    for (const path of [
      '/_sandbox/assets/nope.svg',
      '/_sandbox/assets/constructor.svg',
      '/_sandbox/assets/__proto__.svg',
      '/_sandbox/assets/toString.svg',
      '/_sandbox/instructions/va-alfamart',
      '/_sandbox/instructions/x-bca',
    ]) {
      const r = await request(`${fx.sb.url}${path}`);
      await r.body.dump();
      expect(r.statusCode, path).toBe(404);
    }
  });
});
