import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { parseFormBody } from '../../src/core/callback/parse.js';
import { checkCallback } from '../../src/core/callback/check.js';
import type { EmulatorHandle } from '../../src/core/sandbox/server.js';
import { CHROMIUM, haveBrowser, launchChromium } from '../helpers/browser.js';
import { EMULATOR_DEFAULT_VA as VA, sandbox, signedPost } from '../helpers/sandbox.js';
import { receiver } from '../helpers/receiver.js';

const inCi = Boolean(process.env.CI);

let sb: EmulatorHandle;
beforeAll(async () => {
  sb = await sandbox();
});
afterAll(() => sb.close());

async function create(body: Record<string, unknown>) {
  const text = JSON.stringify({ name: 'Putu Ayu', phone: '08123456789', email: 'p@x.co', product: ['Kopi'], qty: [1], ...body });
  const req = signedPost(sb.apiUrl, 'v2/payment/direct', text);
  const res = await request(req.url, { method: 'POST', headers: req.headers, body: text });
  return ((await res.body.json()) as { Data: { TransactionId: number; Url: string; PaymentNo: string } }).Data;
}

describe('the hosted payment page in a real browser (headless Chromium)', () => {
  it.skipIf(!haveBrowser && !inCi)(
    `shows the buyer what to pay, and "Pay" sends the signed callback${haveBrowser ? '' : ' (skipped: apt-get install chromium)'}`,
    async () => {
      expect(haveBrowser, `${CHROMIUM} is missing: .ci/run installs Debian's chromium`).toBe(true);
      const browser = await launchChromium(['--disable-quic']);
      const rx = await receiver([200]);
      try {
        const page = await browser.newPage();
        const va = await create({ amount: 102000, price: [102000], notifyUrl: rx.url, paymentMethod: 'va', paymentChannel: 'bca' });
        await page.goto(va.Url);
        expect(await page.textContent('#amount')).toBe('Rp 102.000');
        expect(await page.textContent('#merchant')).toBe('Paycli Sandbox Store');
        expect(await page.textContent('#payment-no')).toBe(va.PaymentNo);
        expect(await page.textContent('#method')).toContain('va / BCA');
        // Issue 19 item 10: the buyer's page speaks Indonesian by default, English on request.
        expect(await page.getAttribute('html', 'lang')).toBe('id');
        expect(await page.textContent('#countdown')).toMatch(/^1[12]j \d+m \d+d lagi$/);
        expect(await page.textContent('#pay')).toBe('Bayar');
        await page.goto(`${va.Url}?lang=en`);
        expect(await page.getAttribute('html', 'lang')).toBe('en');
        expect(await page.textContent('#countdown')).toMatch(/^1[12]h \d+m \d+s left$/);
        expect(await page.textContent('#pay')).toBe('Pay');
        await page.click('#pay');
        await page.waitForSelector('#status.berhasil');
        expect(await page.textContent('#status')).toBe('Paid'); // the choice is kept across the redirect
        await page.click('#lang');
        await page.waitForFunction(() => document.documentElement.lang === 'id');
        expect(await page.textContent('#status')).toBe('Berhasil');
        expect(await page.$('#pay')).toBeNull();
        await rx.waitFor(1);
        const cb = rx.received[0]!;
        const fields = parseFormBody(cb.body.toString());
        expect(fields).toMatchObject({ trx_id: String(va.TransactionId), status: 'berhasil', payment_no: va.PaymentNo });
        expect(checkCallback(fields, String(cb.headers['x-signature']), VA).verdict).toBe('valid');

        const qris = await create({ amount: 25000, price: [25000], notifyUrl: rx.url, paymentMethod: 'qris', paymentChannel: 'mpm' });
        await page.goto(qris.Url);
        const box = await (await page.$('#qr svg'))!.boundingBox();
        expect(box!.width).toBeGreaterThan(100);
        await page.click('#expire');
        await page.waitForSelector('#status.expired');
        await rx.waitFor(2);
        expect(parseFormBody(rx.received[1]!.body.toString()).status).toBe('expired');
      } finally {
        await browser.close();
        await rx.close();
      }
    },
  );
});
