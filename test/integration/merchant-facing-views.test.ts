import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCallbackFields, externalId, signCallbackRequest } from '../../src/core/callback/build.js';
import { sendRaw } from '../../src/core/http/raw-post.js';
import { EventStore } from '../../src/core/listener/event-store.js';
import { startListener } from '../../src/core/listener/server.js';
import { createListenerUi } from '../../src/core/listener/ui.js';
import type { EmulatorHandle } from '../../src/core/sandbox/server.js';
import { CHROMIUM, haveBrowser, launchChromium } from '../helpers/browser.js';
import { runCli, tempHome } from '../helpers/cli.js';
import { EMULATOR_DEFAULT_VA as VA, localEnv, sandbox } from '../helpers/sandbox.js';

// Issues 17-19, second review: whole rows off a terminal, the dashboard's check-transaction record,
// the redirect page's buyer checks and language, WIB in listen --ui, ISO times in sandbox --json.

let sb: EmulatorHandle;
let home: ReturnType<typeof tempHome>;
const clock = Date.parse('2026-11-23T17:58:04Z'); // 2026-11-24 00:58:04 WIB
const REF = 'ORDER-2026-11-24-LONG-REFERENCE-0001'; // 36 characters
const ids: string[] = [];
const cli = (argv: string[], tty = false) =>
  runCli(argv, { env: { ...localEnv(sb), PAYCLI_SANDBOX_URL: sb.url }, home: home.home, tty, now: () => new Date(clock) });

beforeAll(async () => {
  sb = await sandbox({ now: () => new Date(clock), settlement: 'deferred' });
  home = tempHome();
  for (const [method, channel] of [
    ['va', 'bca'],
    ['qris', 'mpm'],
  ] as const) {
    const r = await cli([
      'pay',
      '--method',
      method,
      '--channel',
      channel,
      '--name',
      'Putu',
      '--phone',
      '08123456789',
      '--email',
      'putu@mail.com',
      '--notify-url',
      'http://127.0.0.1:9/cb',
      '--item',
      'Kopi:1:10000',
      '--reference-id',
      `${REF}-${method}`,
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    ids.push(String(JSON.parse(r.stdout).TransactionId));
  }
  await sb.pay(ids[0]!);
});
afterAll(async () => {
  await sb.close();
  home.cleanup();
});

describe('whole rows off a terminal', () => {
  it('history keeps the whole reference id in its tab-separated rows', async () => {
    const r = await cli(['history']);
    expect(r.code, r.stderr).toBe(0);
    const refs = r.stdout
      .trim()
      .split('\n')
      .map((l) => l.split('\t').at(-1));
    expect(refs).toContain(`${REF}-va`);
    expect(refs).toContain(`${REF}-qris`);
  });

  it('sandbox list keeps the whole payment number (a QRIS string too)', async () => {
    const r = await cli(['sandbox', 'list']);
    expect(r.code, r.stderr).toBe(0);
    const rows = r.stdout
      .trim()
      .split('\n')
      .map((l) => l.split('\t'));
    for (const id of ids) {
      const t = sb.state.get(Number(id))!;
      const row = rows.find((c) => c[0] === id)!;
      expect(row[4]).toBe(t.paymentNo);
      expect(row[5]).toBe(t.referenceId);
    }
    expect(sb.state.get(Number(ids[1]))!.paymentNo.length).toBeGreaterThan(24);
  });

  it('on an 80-column terminal the VA number stays whole next to a QRIS string; only text is shortened with …', async () => {
    const r = await cli(['sandbox', 'list', '--no-color'], true);
    expect(r.code, r.stderr).toBe(0);
    for (const line of r.stdout.split('\n')) expect([...line].length).toBeLessThanOrEqual(80);
    expect(r.stdout).toContain(sb.state.get(Number(ids[0]))!.paymentNo);
    expect(r.stdout).toContain('…');
  });
});

describe('sandbox list --json', () => {
  it('gives times in ISO 8601 with the WIB offset', async () => {
    const r = await cli(['sandbox', 'list', '--json']);
    const list = JSON.parse(r.stdout) as { id: number; createdAt: string; expiresAt: string; paidAt: string | null }[];
    const va = list.find((t) => String(t.id) === ids[0])!;
    expect(va.createdAt).toBe('2026-11-24T00:58:04+07:00');
    expect(va.paidAt).toBe('2026-11-24T00:58:04+07:00');
    expect(va.expiresAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+07:00$/);
    expect(list.find((t) => String(t.id) === ids[1])!.paidAt).toBeNull();
  });
});

describe('the dashboard shows a transaction as check transaction answers it', () => {
  it('deferred settlement: code 6 unsettled, with every field the API answers', async () => {
    const api = JSON.parse((await cli(['transaction', ids[0]!, '--json'])).stdout) as Record<string, unknown>;
    expect(api).toMatchObject({ Status: 6, StatusDesc: 'Berhasil - Belum Settlement', PaidStatus: 'paid' });
    const html = await (await fetch(`${sb.url}/dashboard/trx/${ids[0]}`)).text();
    const fields = /<dl class="fields" id="fields">(.*?)<\/dl>/s.exec(html)![1]!;
    const shown = Object.fromEntries([...fields.matchAll(/<dt>([^<]+)<\/dt><dd class="mono">(.*?)<\/dd>/g)].map((m) => [m[1], m[2]]));
    expect(Object.keys(shown)).toEqual(Object.keys(api));
    expect(shown.Status).toBe('6');
    expect(shown.StatusDesc).toBe('Berhasil - Belum Settlement');
    for (const k of [
      'PaidStatus',
      'Type',
      'TypeDesc',
      'RelatedId',
      'Sender',
      'Receiver',
      'IsLocked',
      'Notes',
      'SettlementDate',
      'PaymentChannel',
      'PaymentCode',
    ])
      expect(shown, k).toHaveProperty(k);
  });
});

describe('transaction with an id that is not digits', () => {
  it('looks it up as a reference id or payment number: exit 3 when no transaction has it (README)', async () => {
    const r = await cli(['transaction', 'abc']);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('no transaction with payment number or reference id "abc" in the history');
    expect((await cli(['transaction', ''])).code).toBe(2);
  });
});

describe('the hosted redirect page', () => {
  const session = async (extra: Record<string, unknown> = {}) => {
    const r = await sb.merchant.createRedirect(VA, {
      product: ['Kaos'],
      qty: [1],
      price: [50000],
      notifyUrl: 'http://127.0.0.1:9/cb',
      referenceId: 'WEB-9',
      ...extra,
    });
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    return r.session;
  };
  const choose = (sid: string, form: Record<string, string>) =>
    fetch(`${sb.url}/payment/${sid}/choose`, { method: 'POST', body: new URLSearchParams({ channel: 'va:bca', ...form }), redirect: 'manual' });

  it('refuses a bad phone or e-mail typed on the page with a 400 shown on the page', async () => {
    const s = await session();
    const badPhone = await choose(s.sid, { name: 'Wayan', phone: '12345', email: 'w@mail.com' });
    expect(badPhone.status).toBe(400);
    expect(badPhone.headers.get('content-type')).toContain('text/html');
    expect(await badPhone.text()).toMatch(/<p class="error" id="error"[^>]*>phone tidak valid\.<\/p>/);
    const badEmail = await choose(s.sid, { name: 'Wayan', phone: '08129999999', email: 'nope' });
    expect(badEmail.status).toBe(400);
    expect(await badEmail.text()).toContain('email tidak valid.');
    expect(sb.merchant.sessionTransaction(s)).toBeUndefined();
  });

  it("stores a typed mobile number in the CLI's local form", async () => {
    const s = await session();
    const r = await choose(s.sid, { name: 'Wayan', phone: '+62 812-9999-9999', email: 'w@mail.com' });
    expect(r.status).toBe(303);
    expect(sb.merchant.sessionTransaction(s)!.buyer.phone).toBe('081299999999');
  });

  it('checks and normalises the buyer the merchant sends too (400 from the API)', async () => {
    expect(
      await sb.merchant.createRedirect(VA, { product: ['A'], qty: [1], price: [1000], notifyUrl: 'http://127.0.0.1:9/cb', buyerPhone: 'abc' }),
    ).toMatchObject({ ok: false, errors: { buyerPhone: ['buyerPhone tidak valid.'] } });
    expect(await sb.merchant.createRedirect(VA, { product: ['A'], qty: [1], price: [1000], notifyUrl: 'http://127.0.0.1:9/cb', email: 'x@' })).toMatchObject({
      ok: false,
      errors: { email: ['email tidak valid.'] },
    });
    const s = await session({ buyerPhone: '628123456789' });
    expect(s.buyer.phone).toBe('08123456789');
  });

  it('is Indonesian by default with English readings for ?lang=en: the reference label and method legends', async () => {
    const s = await session();
    const html = await (await fetch(`${sb.url}/payment/${s.sid}`)).text();
    expect(html).toContain('<span class="label" data-en="Reference">Referensi</span>');
    expect(html).toContain('<legend data-en="Virtual account">Virtual Account</legend>');
    expect(html).toContain('<legend data-en="Convenience store">Gerai ritel</legend>');
    expect(html).toContain('<legend data-en="E-wallet">Dompet digital</legend>');
    // No English text shown by default: every legend and label without a data-en reading is Indonesian.
    expect(html).not.toMatch(/<legend>(virtual account|convenience store|cash on delivery|credit card|pay later|e-wallet)<\/legend>/);
    expect(html).not.toContain('>Reference<');
  });
});

describe('the redirect page in a browser', () => {
  it.skipIf(!haveBrowser && !process.env.CI)(
    `reads Indonesian by default and English with ?lang=en${haveBrowser ? '' : ' (skipped: no chromium)'}`,
    { timeout: 60_000 },
    async () => {
      expect(haveBrowser, `${CHROMIUM} is missing`).toBe(true);
      const r = await sb.merchant.createRedirect(VA, {
        product: ['Kaos'],
        qty: [1],
        price: [50000],
        notifyUrl: 'http://127.0.0.1:9/cb',
        referenceId: 'WEB-10',
      });
      if (!r.ok) throw new Error(JSON.stringify(r.errors));
      const browser = await launchChromium();
      try {
        const page = await browser.newPage();
        const url = `${sb.url}/payment/${r.session.sid}`;
        const texts = async () => ({
          ref: await page.textContent('p:has(#ref) .label'),
          legends: await page.$$eval('legend', (ls) => ls.map((l) => l.textContent)),
        });
        await page.goto(`${url}?lang=id`);
        const id = await texts();
        expect(id.ref).toBe('Referensi');
        expect(id.legends).toEqual(
          expect.arrayContaining(['Data Anda', 'Virtual Account', 'Gerai ritel', 'Bayar di tempat (COD)', 'Kartu kredit', 'Bayar nanti', 'Dompet digital']),
        );
        await page.goto(`${url}?lang=en`);
        const en = await texts();
        expect(en.ref).toBe('Reference');
        expect(en.legends).toEqual(
          expect.arrayContaining(['Your details', 'Virtual account', 'Convenience store', 'Cash on delivery', 'Credit card', 'Pay later', 'E-wallet']),
        );
      } finally {
        await browser.close();
      }
    },
  );
});

describe('listen --ui', () => {
  it('shows receive times in WIB, on the list and on the event page', async () => {
    const dir = tempHome();
    const store = new EventStore(join(dir.home, 'events.jsonl'));
    const ui = await createListenerUi({ store, va: VA, otherKeys: [], callbackPath: '/' });
    const listener = await startListener({ port: 0, va: VA, store, ui, otherKeys: [] });
    try {
      const at = new Date();
      const fields = buildCallbackFields({
        trxId: 100777,
        sid: 'sid-1',
        referenceId: 'INV-77',
        status: 'berhasil',
        amount: 150000,
        fee: 4000,
        via: 'va',
        channel: 'bca',
        paymentNo: '8868000000100777',
        createdAt: at,
        expiredAt: new Date(at.getTime() + 86_400_000),
        paidAt: at,
        buyerName: 'Putu',
        buyerEmail: 'p@x.co',
        buyerPhone: '08123456789',
        url: listener.url,
      });
      const req = signCallbackRequest(fields, VA, 'form', at, externalId(at, 1));
      expect((await sendRaw(listener.url, { headers: req.headers, body: req.body, timeoutMs: 5000 })).status).toBe(200);
      const origin = new URL(listener.url).origin;
      const list = await (await fetch(`${origin}/_paycli/`)).text();
      expect(list).toContain('Received (WIB)');
      expect(list).not.toContain('UTC');
      const [event] = (await store.list()) as { id: string; receivedAt: string }[];
      const wib = new Date(Date.parse(event!.receivedAt) + 7 * 3600_000).toISOString().replace('T', ' ').slice(0, 19);
      expect(list).toContain(`>${wib}</td>`);
      const page = await (await fetch(`${origin}/_paycli/events/${event!.id}`)).text();
      expect(page).toContain(`received ${wib} WIB`);
      expect(page).not.toContain(event!.receivedAt);
    } finally {
      await listener.close();
      dir.cleanup();
    }
  });
});
