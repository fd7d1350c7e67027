import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { buildCallbackFields, externalId, signCallbackRequest } from '../../src/core/callback/build.js';
import { sendRaw } from '../../src/core/http/raw-post.js';
import { EventStore } from '../../src/core/listener/event-store.js';
import { startListener, type ListenerHandle } from '../../src/core/listener/server.js';
import { createListenerUi } from '../../src/core/listener/ui.js';
import type { EmulatorHandle } from '../../src/core/sandbox/server.js';
import { CHROMIUM, haveBrowser, launchChromium } from '../helpers/browser.js';
import { payVa } from '../helpers/argv.js';
import { runCli, tempHome } from '../helpers/cli.js';
import { receiver } from '../helpers/receiver.js';
import { EMULATOR_DEFAULT_API_KEY as KEY, EMULATOR_DEFAULT_VA as VA, localEnv, sandbox, allTxns } from '../helpers/sandbox.js';

const inCi = Boolean(process.env.CI);
/** Screenshots of the pages (gitignored); two of them are copied to docs/ for README. */
const ARTIFACTS = new URL('../artifacts/', import.meta.url).pathname;
const LAPTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

let browser: Browser;
let sb: EmulatorHandle;
let rx: Awaited<ReturnType<typeof receiver>>;
let handler: { url: string; close: () => Promise<void> };
let home: ReturnType<typeof tempHome>;

async function cli(args: string[]): Promise<Record<string, unknown>> {
  const r = await runCli(['--env', 'local', ...args, '--json'], { env: { ...localEnv(sb), PAYCLI_SANDBOX_URL: sb.url }, home: home.home });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Record<string, unknown>;
}

async function payFromCli(amount: number): Promise<number> {
  const data = await cli([...payVa({ name: 'Putu Ayu', email: 'putu@mail.com' }), '--item', `Kopi Kintamani:1:${amount}`, '--notify-url', handler.url]);
  return Number((data.TransactionId ?? (data.Data as Record<string, unknown>)?.TransactionId) as number);
}

async function shot(page: Page, name: string, fullPage = true): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, name), fullPage });
}

const run = haveBrowser || inCi;
const skipNote = haveBrowser ? '' : ' (skipped: apt-get install chromium)';

beforeAll(async () => {
  if (!run) return;
  expect(haveBrowser, `${CHROMIUM} is missing: .ci/run installs Debian's chromium`).toBe(true);
  home = tempHome();
  // The handler answers 500 first, then 200: the first callback takes two attempts. It is the
  // recording receiver behind a proxy that words its answers as a merchant's handler would.
  rx = await receiver([500, 200], '{"status":"OK"}');
  handler = await wording(rx.url);
  sb = await sandbox({ retrySchedule: [400, 400, 400] });
  browser = await launchChromium(['--disable-quic']);
});
afterAll(async () => {
  await browser?.close();
  await sb?.close();
  await handler?.close();
  await rx?.close();
  home?.cleanup();
});

/** Passes requests on to `target`, answering its 500s with a handler-like error text. */
async function wording(target: string): Promise<{ url: string; close: () => Promise<void> }> {
  const { createServer } = await import('node:http');
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void sendRaw(target, {
        headers: Object.fromEntries(
          Object.entries(req.headers)
            .filter(([k]) => k !== 'host' && k !== 'connection')
            .map(([k, v]) => [k, String(v)]),
        ),
        body: Buffer.concat(chunks),
        timeoutMs: 5000,
      }).then((r) => {
        const body = r.status === 500 ? 'Internal Server Error: SQLSTATE[HY000] [2002] Connection refused (orders database)' : r.body;
        res.writeHead(r.status, { 'content-type': r.status === 500 ? 'text/plain' : 'application/json' }).end(body);
      });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as import('node:net').AddressInfo;
  return { url: `http://127.0.0.1:${port}/ipaymu/callback`, close: () => new Promise<void>((r) => server.close(() => r())) };
}

// Bounded waits only (Playwright's own, 30 s each); a loaded machine gets a minute per test.
describe.skipIf(!run)(`the emulator's dashboard in headless Chromium${skipNote}`, { timeout: 60_000 }, () => {
  let trx = 0;

  it('the list updates without a reload when a payment is created and paid from the CLI', async () => {
    const page = await browser.newPage({ viewport: LAPTOP });
    await page.goto(sb.dashboardUrl!);
    expect(await page.textContent('#empty')).toContain('No transactions yet');
    await page.waitForSelector('#live-state.on'); // the live connection is open
    await page.evaluate(() => ((window as unknown as { marker: number }).marker = 42));

    trx = await payFromCli(175000);
    const row = await page.waitForSelector(`#trx-${trx}`);
    expect(await row.textContent()).toContain('Rp 175.000');
    expect(await row.getAttribute('data-status')).toBe('pending');
    expect(await row.textContent()).toMatch(/va\/bca/i);

    const paid = await cli(['sandbox', 'pay', String(trx)]);
    expect(paid.changed).toBe(true);
    await page.waitForSelector(`#trx-${trx}[data-status="berhasil"]`);
    // The same document all along: updated in place, never reloaded.
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(42);

    // Filters are plain GET forms (they work with JavaScript off too).
    await payFromCli(50000);
    await page.waitForSelector('#transactions tbody tr:nth-child(2)');
    await page.selectOption('#filter-status', 'berhasil');
    await page.waitForURL(/status=berhasil/);
    expect(await page.$$eval('#transactions tbody tr', (rows) => rows.map((r) => r.getAttribute('data-status')))).toEqual(['berhasil']);
    await page.goto(sb.dashboardUrl!);
    await page.setViewportSize(PHONE);
    await shot(page, 'dashboard-list-phone.png');
    // On a phone the table becomes cards: nothing wider than the screen.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    await page.close();
  });

  it('a handler that answers 500 then 200 shows both attempts, with the exact request and the canonical JSON', async () => {
    const page = await browser.newPage({ viewport: LAPTOP });
    await page.goto(`${sb.url}/dashboard/trx/${trx}`);
    await page.waitForSelector('#delivery-cb-1[data-state="delivered"]');
    const attempts = await page.$$eval('#delivery-cb-1 .attempt', (els) => els.map((e) => e.getAttribute('data-http')));
    expect(attempts).toEqual(['500', '200']);
    const first = (await page.textContent('#attempt-cb-1-1'))!;
    expect(first).toContain('HTTP 500');
    expect(first).toContain(handler.url);
    expect(await page.textContent('#attempt-cb-1-1 .answer')).toContain('Internal Server Error');
    expect(first).toMatch(/next retry \d\d:\d\d:\d\d WIB/);
    expect(await page.textContent('#attempt-cb-1-2 .answer')).toBe('{"status":"OK"}');
    // The request as the handler received it.
    await page.click('#req-cb-1-2 summary');
    const request = (await page.textContent('#req-cb-1-2 pre'))!;
    const got = rx.received[1]!;
    expect(request).toContain(`X-Signature: ${String(got.headers['x-signature'])}`);
    expect(request.endsWith(got.body.toString())).toBe(true);
    await page.click('#can-cb-1-2 summary');
    const canonical = JSON.parse((await page.textContent('#can-cb-1-2 pre'))!) as Record<string, unknown>;
    expect(canonical).toMatchObject({ trx_id: trx, status: 'berhasil' });
    // The fields check transaction answers with, and the payment page link.
    expect(await page.textContent('#fields')).toContain('StatusDesc');
    expect(await page.getAttribute('#payment-page', 'href')).toBe(`/pay/${trx}`);
    await shot(page, 'dashboard-transaction-full.png');
    await page.reload();
    await page.click('#req-cb-1-1 summary');
    await shot(page, 'dashboard-transaction-laptop.png', false);
    await page.reload();
    await page.setViewportSize(PHONE);
    await shot(page, 'dashboard-transaction-phone.png', false);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    await page.close();
  });

  it('"Re-send callback now" delivers the callback again, and the page shows the new attempt', async () => {
    const page = await browser.newPage({ viewport: LAPTOP });
    await page.goto(`${sb.url}/dashboard/trx/${trx}`);
    await page.waitForSelector('#live-state.on');
    const before = rx.received.length;
    await page.click('#action-resend');
    await page.waitForSelector('#delivery-cb-2[data-state="delivered"]');
    expect(rx.received.length).toBe(before + 1);
    expect(await page.textContent('#flash')).toMatch(/callback cb-2 of trx \d+ \(berhasil \(paid\)\) queued now/);
    expect(String(rx.received.at(-1)!.body)).toContain(`trx_id=${trx}`);
    // A pending payment offers pay and expire instead; expiring it from the page sends its callback.
    const other = allTxns(sb.state).find((t) => t.status === 'pending')!;
    await page.goto(`${sb.url}/dashboard/trx/${other.id}`);
    await page.waitForSelector('#live-state.on');
    expect(await page.$('#action-resend')).toBeNull();
    await page.click('#action-expire');
    await page.waitForSelector('#action-resend');
    expect(sb.state.get(other.id)!.status).toBe('expired');
    await payFromCli(1250000);
    await page.goto(sb.dashboardUrl!);
    await page.waitForSelector('#live-state.on');
    await shot(page, 'dashboard-list-laptop.png', false);
    await page.close();
  });

  it('works with JavaScript off for the read-only parts', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: LAPTOP });
    const page = await context.newPage();
    await page.goto(`${sb.url}/?status=expired`);
    expect(await page.$$eval('#transactions tbody tr', (rows) => rows.map((r) => r.getAttribute('data-status')))).toEqual(['expired']);
    await page.goto(`${sb.url}/dashboard/trx/${trx}`);
    expect(await page.$$eval('#delivery-cb-1 .attempt', (els) => els.length)).toBe(2);
    await page.click('#can-cb-1-1 summary'); // <details> needs no script
    expect(await page.isVisible('#can-cb-1-1 pre')).toBe(true);
    await context.close();
  });
});

describe.skipIf(!run)(`paycli listen --ui in headless Chromium${skipNote}`, { timeout: 60_000 }, () => {
  let listener: ListenerHandle;
  let target: Awaited<ReturnType<typeof receiver>>;
  let dir: ReturnType<typeof tempHome>;

  beforeAll(async () => {
    dir = tempHome();
    target = await receiver([200], '{"status":"OK"}');
    const store = new EventStore(join(dir.home, 'events.jsonl'));
    // Replay sends only to configured targets: the listener itself, or (here) its --forward-to app.
    const ui = await createListenerUi({
      store,
      va: VA,
      otherKeys: [{ kind: 'api-key', label: 'the API key', key: KEY }],
      callbackPath: '/',
      forwardTo: [target.url],
    });
    listener = await startListener({ port: 0, va: VA, store, ui, otherKeys: [{ kind: 'api-key', label: 'the API key', key: KEY }], forwardTo: [target.url] });
  });
  afterAll(async () => {
    await listener?.close();
    await target?.close();
    dir?.cleanup();
  });

  it('lists callbacks live, shows verdict, diagnosis and canonical JSON, and replays one', async () => {
    const origin = new URL(listener.url).origin;
    const page = await browser.newPage({ viewport: LAPTOP });
    await page.goto(`${origin}/_paycli/`);
    await page.waitForSelector('#live-state.on');
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
      createdAt: new Date(),
      expiredAt: new Date(Date.now() + 86_400_000),
      paidAt: new Date(),
      buyerName: 'Putu',
      buyerEmail: 'p@x.co',
      buyerPhone: '08123456789',
      url: listener.url,
    });
    const good = signCallbackRequest(fields, VA, 'form', new Date(), externalId(new Date(), 1));
    expect((await sendRaw(listener.url, { headers: good.headers, body: good.body, timeoutMs: 5000 })).status).toBe(200);
    // Signed with the API key instead of the VA: the diagnosis says so.
    const bad = signCallbackRequest({ ...fields, trx_id: '100778' }, KEY, 'form', new Date(), externalId(new Date(), 2));
    expect((await sendRaw(listener.url, { headers: bad.headers, body: bad.body, timeoutMs: 5000 })).status).toBe(400);
    await page.waitForSelector('#events tbody tr:nth-child(2)');
    expect(await page.$$eval('#events tbody tr', (rows) => rows.map((r) => r.getAttribute('data-verdict')))).toEqual(['invalid', 'valid']);
    await shot(page, 'listen-ui-list.png');

    await page.click('#events tbody tr:nth-child(1) a');
    await page.waitForSelector('#verdict');
    expect(await page.textContent('#diagnosis')).toMatch(/API key/i);
    await page.click('a[href="/_paycli/"]');
    await page.click('#events tbody tr:nth-child(2) a');
    await page.waitForSelector('#canonical');
    expect(await page.textContent('#verdict')).toBe('valid');
    expect(JSON.parse((await page.textContent('#canonical'))!)).toMatchObject({ trx_id: 100777, status: 'berhasil' });
    await page.selectOption('#replay-to', target.url);
    await page.click('#replay');
    await target.waitFor(2); // the forward of the valid callback, then the replay
    expect(target.received[1]!.body.toString()).toBe(good.body);
    expect(target.received[1]!.headers['x-signature']).toBe(good.headers['X-Signature']);
    await page.waitForSelector('#flash:not([hidden])');
    expect(await page.textContent('#flash')).toContain('HTTP 200');
    await shot(page, 'listen-ui-event.png');
    await page.setViewportSize(PHONE);
    await shot(page, 'listen-ui-event-phone.png', false);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    // The UI's own requests are never stored as callbacks.
    expect(listener.summary.total).toBe(2);
    await page.close();
  });
});
