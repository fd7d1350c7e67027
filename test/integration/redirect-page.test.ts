import { describe, expect, it } from 'vitest';
import { encodeRedirectBody } from '../../src/core/api/redirect.js';
import { parseFormBody } from '../../src/core/callback/parse.js';
import { checkCallback } from '../../src/core/callback/check.js';
import { CHROMIUM, haveBrowser, launchChromium } from '../helpers/browser.js';
import { REDIRECT_KAOS } from '../helpers/argv.js';
import { runCli } from '../helpers/cli.js';
import { receiver } from '../helpers/receiver.js';
import { EMULATOR_DEFAULT_VA as VA, localEnv, sandboxAndHome, allTxns } from '../helpers/sandbox.js';

const inCi = Boolean(process.env.CI);

const fx = sandboxAndHome();
const cli = (argv: string[]) => runCli(argv, { env: localEnv(fx.sb), home: fx.home.home });

describe('paycli pay --redirect (request building and the CLI)', () => {
  it('sends the documented field names, numbers as numbers, nothing null', () => {
    expect(
      encodeRedirectBody({
        items: [{ product: 'Kaos', qty: 2, price: 50000 }],
        notifyUrl: 'https://s.example/cb',
        returnUrl: 'https://s.example/ok',
        cancelUrl: 'https://s.example/no',
        referenceId: 'R1',
        buyerName: 'Putu',
      }),
    ).toBe(
      '{"product":["Kaos"],"qty":[2],"price":[50000],"description":["Kaos"],"returnUrl":"https://s.example/ok","notifyUrl":"https://s.example/cb","cancelUrl":"https://s.example/no","referenceId":"R1","buyerName":"Putu"}',
    );
  });

  it('prints the page URL; --json gives SessionID and Url; exit 4 names what is missing, exit 2 for direct-only flags', async () => {
    const r = await cli([
      'pay',
      '--redirect',
      '--item',
      'Kaos:2:50000',
      '--notify-url',
      'http://127.0.0.1:9/cb',
      '--return-url',
      'http://127.0.0.1:9/ok',
      '--reference-id',
      'RED-1',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^✓ payment page created · session [0-9A-F-]{36} · ref RED-1\n\n {4}http:\/\/127\.0\.0\.1:\d+\/payment\/[0-9A-F-]{36}\n/);
    expect(r.stdout).toContain('total    Rp 100.000');
    const j = await cli(['pay', '--redirect', ...REDIRECT_KAOS, '--method', 'qris', '--json']);
    const data = JSON.parse(j.stdout);
    expect(fx.sb.merchant.session(data.SessionID)).toMatchObject({ method: 'qris', amount: 1000, cancelUrl: 'http://127.0.0.1:9/ok' });
    const missing = await cli(['pay', '--redirect', '--item', 'Kaos:1:1000']);
    expect(missing.code).toBe(4);
    expect(missing.stderr).toContain('missing --notify-url, --return-url for a redirect payment');
    const channel = await cli(['pay', '--redirect', '--channel', 'bca', ...REDIRECT_KAOS]);
    expect(channel.code).toBe(2);
    const open = await runCli(['pay', '--redirect', ...REDIRECT_KAOS, '--open'], { env: localEnv(fx.sb), home: fx.home.home });
    expect(open.code).toBe(0);
    expect(open.stderr).toContain('warning: no desktop to open the page in; open the URL yourself');
    const badPhone = await cli(['pay', '--redirect', ...REDIRECT_KAOS, '--phone', '12345']);
    expect(badPhone.code).toBe(2);
    expect(badPhone.stderr).toContain('invalid --phone "12345"');
    const badEmail = await cli(['pay', '--redirect', ...REDIRECT_KAOS, '--email', 'nope']);
    expect(badEmail.code).toBe(2);
    const dry = await cli(['pay', '--redirect', ...REDIRECT_KAOS, '--dry-run']);
    expect(dry.stdout).toMatch(/^POST http:\/\/127\.0\.0\.1:\d+\/api\/v2\/payment\n/);
  });
});

describe('the redirect payment page in a real browser (headless Chromium)', () => {
  it.skipIf(!haveBrowser && !inCi)(
    `the buyer picks a channel, pays, returns to returnUrl; cancel goes to cancelUrl${haveBrowser ? '' : ' (skipped: apt-get install chromium)'}`,
    async () => {
      expect(haveBrowser, `${CHROMIUM} is missing: .ci/run installs Debian's chromium`).toBe(true);
      const browser = await launchChromium(['--disable-quic']);
      const notify = await receiver([200]);
      const shop = await receiver([200], 'thank you');
      const returnUrl = shop.url.replace(/\/callback$/, '/thanks');
      const cancelUrl = shop.url.replace(/\/callback$/, '/cancelled');
      try {
        const made = await cli([
          'pay',
          '--redirect',
          '--item',
          'Kaos Barong:2:75000',
          '--name',
          'Komang',
          '--email',
          'k@mail.com',
          '--phone',
          '08123456789',
          '--notify-url',
          notify.url,
          '--return-url',
          returnUrl,
          '--cancel-url',
          cancelUrl,
          '--reference-id',
          'WEB-1',
          '--json',
        ]);
        expect(made.code, made.stderr).toBe(0);
        const { Url } = JSON.parse(made.stdout) as { Url: string };
        const page = await browser.newPage();
        await page.goto(Url);
        expect(await page.textContent('#continue')).toBe('Lanjut'); // Indonesian by default (issue 19 item 10)
        await page.goto(`${Url}?lang=en`);
        expect(await page.textContent('#continue')).toBe('Continue');
        expect(await page.textContent('#amount')).toBe('Rp 150.000');
        expect(await page.textContent('#ref')).toBe('WEB-1');
        expect(await page.$$('input[name=channel]')).toHaveLength(20);
        await page.check('#ch-va-bca');
        await page.click('#continue');
        await page.waitForSelector('#payment-no');
        expect(await page.textContent('#payment-no')).toMatch(/^8868\d{12}$/);
        expect(await page.textContent('#method')).toContain('va / BCA');
        await Promise.all([page.waitForURL(returnUrl), page.click('#pay')]);
        expect(await page.textContent('body')).toBe('thank you');
        await notify.waitFor(1);
        const fields = parseFormBody(notify.received[0]!.body.toString());
        expect(fields).toMatchObject({ status: 'berhasil', reference_id: 'WEB-1', via: 'va', channel: 'bca', amount: '150000', buyer_name: 'Komang' });
        expect(checkCallback(fields, String(notify.received[0]!.headers['x-signature']), VA).verdict).toBe('valid');
        // The history lists it like every other transaction.
        const h = JSON.parse((await cli(['history', '--json'])).stdout) as { transactions: { ReferenceId: string; PaidStatus: string }[] };
        expect(h.transactions.find((t) => t.ReferenceId === 'WEB-1')?.PaidStatus).toBe('paid');

        const second = JSON.parse(
          (
            await cli([
              'pay',
              '--redirect',
              '--item',
              'Topi:1:30000',
              '--notify-url',
              notify.url,
              '--return-url',
              returnUrl,
              '--cancel-url',
              cancelUrl,
              '--method',
              'qris',
              '--json',
            ])
          ).stdout,
        ) as { Url: string };
        await page.goto(second.Url);
        expect(await page.$$('input[name=channel]')).toHaveLength(1);
        // No buyer was sent: the page asks for the details.
        await page.fill('#buyer-name', 'Wayan');
        await page.fill('#buyer-phone', '08129999999');
        await page.fill('#buyer-email', 'wayan@mail.com');
        await page.check('#ch-qris-mpm');
        await page.click('#continue');
        const box = await (await page.waitForSelector('#qr svg')).boundingBox();
        expect(box!.width).toBeGreaterThan(100);
        await Promise.all([page.waitForURL(cancelUrl), page.click('#cancel')]);
        const qrisTxn = allTxns(fx.sb.state).find((t) => t.via === 'qris' && t.amount === 30000);
        expect(qrisTxn?.buyer).toEqual({ name: 'Wayan', phone: '08129999999', email: 'wayan@mail.com' });
      } finally {
        await browser.close();
        await notify.close();
        await shop.close();
      }
    },
  );
});
