import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { actionRefusal, isLoopbackAddress, isLoopbackHost, pageRefusal } from '../../src/core/dashboard/html.js';
import { EventStore } from '../../src/core/listener/event-store.js';
import { startListener } from '../../src/core/listener/server.js';
import { createListenerUi } from '../../src/core/listener/ui.js';
import type { EmulatorHandle, SandboxOptions } from '../../src/core/sandbox/server.js';
import { ANSWER_KEEP_BYTES } from '../../src/core/sandbox/outbox.js';
import { readLedgerJsonl } from '../../src/core/sandbox/ledger-jsonl.js';
import { runCli, tempHome } from '../helpers/cli.js';
import { receiver } from '../helpers/receiver.js';
import { EMULATOR_DEFAULT_VA as VA, sandbox, allDeliveries, signedPost } from '../helpers/sandbox.js';
import { spawnPaycli } from '../helpers/spawn.js';

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function started(options: SandboxOptions = {}): Promise<EmulatorHandle> {
  const sb = await sandbox(options);
  cleanups.push(() => sb.close());
  return sb;
}

async function create(sb: EmulatorHandle, notifyUrl: string, amount = 50000): Promise<number> {
  const text = JSON.stringify({
    name: 'Putu Ayu',
    phone: '08123456789',
    email: 'p@x.co',
    product: ['Kopi'],
    qty: [1],
    price: [amount],
    amount,
    notifyUrl,
    paymentMethod: 'va',
    paymentChannel: 'bca',
  });
  const req = signedPost(sb.apiUrl, 'v2/payment/direct', text);
  const res = await request(req.url, { method: 'POST', headers: req.headers, body: text });
  return ((await res.body.json()) as { Data: { TransactionId: number } }).Data.TransactionId;
}

/** A raw request with exactly these headers (fetch would not let a test set Host or Origin freely). */
function raw(url: string, method: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function until(check: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('address checks', () => {
  it('tells loopback addresses and Host names from others', () => {
    for (const a of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1']) expect(isLoopbackAddress(a), a).toBe(true);
    for (const a of ['10.0.0.1', '192.168.1.2', '::', '0.0.0.0', '', undefined]) expect(isLoopbackAddress(a), String(a)).toBe(false);
    for (const h of ['127.0.0.1:4010', 'localhost:4010', '[::1]:4010', 'localhost']) expect(isLoopbackHost(h), h).toBe(true);
    for (const h of ['evil.example:4010', '127.0.0.1.evil.example', '192.168.1.2:4010', undefined]) expect(isLoopbackHost(h), String(h)).toBe(false);
  });

  it('serves pages only on a loopback address', () => {
    const req = (localAddress: string) => ({ socket: { localAddress, remoteAddress: '127.0.0.1' }, headers: { host: '127.0.0.1:4010' } }) as never;
    expect(pageRefusal(req('127.0.0.1'))).toBeUndefined();
    expect(pageRefusal(req('::ffff:127.0.0.1'))).toBeUndefined();
    expect(pageRefusal(req('192.168.1.2'))).toMatch(/loopback addresses only/);
  });

  it('refuses state changes from cross-site browsers, not from the CLI', () => {
    const req = (headers: Record<string, string>) => ({ headers: { host: '127.0.0.1:4010', ...headers } }) as never;
    expect(actionRefusal(req({}))).toBeUndefined();
    expect(actionRefusal(req({ origin: 'http://127.0.0.1:4010', 'sec-fetch-site': 'same-origin' }))).toBeUndefined();
    expect(actionRefusal(req({ origin: 'http://evil.example' }))).toMatch(/cross-origin/);
    expect(actionRefusal(req({ 'sec-fetch-site': 'cross-site' }))).toMatch(/cross-site/);
    expect(actionRefusal(req({ 'sec-fetch-site': 'same-site' }))).toMatch(/cross-site/);
    // A rebound DNS name: same origin as far as the browser knows, but not a loopback Host.
    expect(actionRefusal({ headers: { host: 'evil.example:4010', origin: 'http://evil.example:4010' } } as never)).toMatch(/cross-origin/);
  });
});

describe('attempt records of an older journal', () => {
  const txn = {
    id: 100_001,
    sid: 's',
    merchantVa: '1',
    referenceId: '',
    via: 'va',
    channel: 'bca',
    paymentNo: '1',
    paymentName: 'BCA',
    amount: 1,
    fee: 0,
    status: 'pending',
    createdAt: 1,
    expiresAt: 2,
    notifyUrl: 'http://x/',
    buyer: {},
    items: [],
  };
  const head = [
    { t: 'txn', txn },
    {
      t: 'status',
      id: 100_001,
      status: 'berhasil',
      at: 1,
      d: { id: 'cb-1', trxId: 100_001, status: 'berhasil', url: 'http://x/', format: 'form', attempts: 0, state: 'pending', nextAt: 1, createdAt: 1 },
    },
  ];
  const base = { t: 'attempt', id: 'cb-1', attempts: 1, state: 'delivered', nextAt: null, result: 'HTTP 200' };
  const a = { at: 1, url: 'http://127.0.0.1:1/', headers: { 'X-Signature': 'ab' }, body: 'x=1', httpStatus: 200, ms: 1.5, answer: 'ok' };
  const skippedOf = async (records: unknown[]) => {
    const dir = mkdtempSync(join(tmpdir(), 'paycli-attempts-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(join(dir, 'journal.jsonl'), [...head, ...records].map((r) => JSON.stringify(r)).join('\n') + '\n');
    return (await readLedgerJsonl(join(dir, 'journal.jsonl'))).skipped;
  };
  it('accepts them with and without the request and answer (older versions wrote none)', async () => {
    expect(await skippedOf([base, { ...base, a }, { ...base, a: { ...a, httpStatus: null, ms: null, answer: '', duplicate: true } }])).toBe(0);
  });
  it('skips a record whose detail is damaged', async () => {
    expect(
      await skippedOf([
        { ...base, a: { ...a, headers: { 'X-Signature': 1 } } },
        { ...base, a: { ...a, body: null } },
        { ...base, a: { ...a, httpStatus: '200' } },
        { ...base, a: 'x' },
      ]),
    ).toBe(4);
  });
});

describe('the emulator dashboard over HTTP', () => {
  it('serves the list at / and the transaction page, readable without JavaScript', async () => {
    const rx = await receiver([200]);
    cleanups.push(() => rx.close());
    const sb = await started();
    expect(sb.dashboardUrl).toBe(`${sb.url}/`);
    const id = await create(sb, rx.url, 125000);
    await sb.pay(String(id));
    const other = await create(sb, rx.url);
    const list = await raw(`${sb.url}/`, 'GET');
    expect(list.status).toBe(200);
    expect(list.body).toContain(`id="trx-${id}" data-status="berhasil"`);
    expect(list.body).toContain('Rp 125.000');
    await sb.idle();
    expect((await raw(`${sb.url}/`, 'GET')).body).toMatch(new RegExp(`id="trx-${id}"[\\s\\S]*?badge delivered`));
    // Newest first.
    expect([...list.body.matchAll(/id="trx-(\d+)"/g)].map((m) => Number(m[1]))).toEqual([other, id]);
    const pending = await raw(`${sb.url}/?status=pending&method=va`, 'GET');
    expect(pending.body).toContain(`id="trx-${other}"`);
    expect(pending.body).not.toContain(`id="trx-${id}"`);
    expect((await raw(`${sb.url}/?method=qris`, 'GET')).body).toContain('No transaction matches');
    await sb.idle();
    const page = await raw(`${sb.url}/dashboard/trx/${id}`, 'GET');
    expect(page.body).toContain('delivered after 1 attempt');
    expect(page.body).toContain('X-Signature: ');
    expect((await raw(`${sb.url}/dashboard/trx/999`, 'GET')).status).toBe(404);
  });

  it('answers pages only to a loopback Host (no DNS rebinding), and never changes state on GET', async () => {
    const sb = await started();
    const id = await create(sb, 'http://127.0.0.1:9/none');
    expect((await raw(`${sb.url}/`, 'GET', { host: 'evil.example:4010' })).status).toBe(403);
    expect((await raw(`${sb.url}/dashboard/trx/${id}`, 'GET', { host: 'localhost' })).status).toBe(200);
    const get = await raw(`${sb.url}/_sandbox/transactions/${id}/pay`, 'GET');
    expect(get.status).toBe(405);
    expect((await raw(`${sb.url}/`, 'POST')).status).toBe(405);
    expect(sb.state.get(id)!.status).toBe('pending');
  });

  it("refuses cross-site pay, expire and resend; accepts the page's own origin and the CLI", async () => {
    const sb = await started();
    const id = await create(sb, 'http://127.0.0.1:9/none');
    const host = new URL(sb.url).host;
    const hostile: Record<string, string>[] = [
      { origin: 'http://evil.example' },
      { 'sec-fetch-site': 'cross-site' },
      { origin: `http://${host}`, host: 'evil.example' },
    ];
    for (const headers of hostile) {
      for (const action of ['pay', 'expire', 'resend']) {
        const r = await raw(`${sb.url}/_sandbox/transactions/${id}/${action}`, 'POST', headers);
        expect(r.status, `${action} ${JSON.stringify(headers)}`).toBe(403);
      }
    }
    expect(sb.state.get(id)!.status).toBe('pending');
    expect(allDeliveries(sb.state).length).toBe(0);
    const ok = await raw(`${sb.url}/_sandbox/transactions/${id}/pay`, 'POST', { origin: `http://${host}`, 'sec-fetch-site': 'same-origin' });
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body)).toMatchObject({ ok: true, changed: true, message: `berhasil (paid): trx ${id}; callback queued` });
  });

  it('shows the second delivery of --faults duplicate as its own attempt', async () => {
    const rx = await receiver([200]);
    cleanups.push(() => rx.close());
    const sb = await started({ faults: { duplicate: true } });
    const id = await create(sb, rx.url);
    await sb.pay(String(id));
    await rx.waitFor(2);
    const d = sb.state.deliveriesOf(id)[0]!;
    await until(() => (sb.state.attemptsOf(d.id) ?? []).length === 2);
    const page = (await raw(`${sb.url}/dashboard/trx/${id}`, 'GET')).body;
    expect(page).toContain('duplicate (--faults duplicate)');
    expect(page).toContain(`id="attempt-${d.id}-2"`);
  });

  it('with --host 0.0.0.0 announces the loopback address', async () => {
    const sb = await started({ host: '0.0.0.0' });
    expect(sb.dashboardUrl).toBe(`http://127.0.0.1:${sb.port}/`);
    expect((await raw(sb.dashboardUrl!, 'GET')).status).toBe(200);
  });

  it('re-sends a callback waiting for its next retry at once, as the same delivery', async () => {
    const rx = await receiver([500, 200]);
    cleanups.push(() => rx.close());
    const sb = await started({ retrySchedule: [600_000] });
    const id = await create(sb, rx.url);
    await sb.pay(String(id));
    await rx.waitFor(1);
    const d0 = sb.state.deliveriesOf(id)[0]!;
    await until(() => sb.state.delivery(d0.id)!.attempts === 1);
    const d = sb.state.delivery(d0.id)!;
    expect(d.nextAt! - Date.now()).toBeGreaterThan(500_000);
    const r = await sb.resend(String(id));
    expect(r).toMatchObject({ ok: true, deliveryId: d.id, queued: false });
    await rx.waitFor(2);
    expect(await sb.idle()).toBe(true);
    expect(sb.state.delivery(d.id)).toMatchObject({ state: 'delivered', attempts: 2 });
    expect(sb.state.deliveriesOf(id)).toHaveLength(1);
  });

  it("is off with dashboard: false (the CLI's --no-dashboard): / is an unknown route again", async () => {
    const sb = await started({ dashboard: false });
    expect(sb.dashboardUrl).toBeNull();
    const r = await raw(`${sb.url}/`, 'GET');
    expect(r.status).toBe(404);
    expect(r.body).toContain('not emulated');
    expect((await raw(`${sb.url}/dashboard/events`, 'GET')).status).toBe(404);
  });

  it('records "gave up", the first KB of a long answer, and a refused connection', async () => {
    const long = 'x'.repeat(3000);
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(500, { 'content-type': 'text/plain' }).end(long));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    cleanups.push(() => new Promise((r) => server.close(r)));
    const sb = await started({ retrySchedule: [20] });
    const id = await create(sb, `http://127.0.0.1:${(server.address() as AddressInfo).port}/cb`);
    await sb.pay(String(id));
    expect(await sb.idle()).toBe(true);
    const d = sb.state.deliveriesOf(id)[0]!;
    expect(d.state).toBe('failed');
    const attempts = sb.state.attemptsOf(d.id)!;
    expect(attempts.map((a) => a.state)).toEqual(['pending', 'failed']);
    expect(attempts[0]!.detail!.answer).toBe('x'.repeat(ANSWER_KEEP_BYTES));
    expect(attempts[0]!.detail!.truncated).toBe(true);
    const page = (await raw(`${sb.url}/dashboard/trx/${id}`, 'GET')).body;
    expect(page).toContain('gave up after 2 attempts');
    expect(page).toContain('>gave up<');
    expect(page).toContain('Answer (first KB)');

    const nobody = await create(sb, 'http://127.0.0.1:9/closed');
    await sb.expire(String(nobody));
    expect(await sb.idle()).toBe(true);
    const [refused] = sb.state.attemptsOf(sb.state.deliveriesOf(nobody)[0]!.id)!;
    expect(refused!.detail).toMatchObject({ httpStatus: null, ms: null, answer: '' });
    expect((await raw(`${sb.url}/dashboard/trx/${nobody}`, 'GET')).body).toContain('No answer: connection refused');
  });

  it('keeps every attempt across a restart (journalled), and loads journals of older versions', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'paycli-dash-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const rx = await receiver([503, 200], 'busy');
    cleanups.push(() => rx.close());
    let sb = await sandbox({ dataDir: dir, retrySchedule: [20] });
    const id = await create(sb, rx.url);
    await sb.pay(String(id));
    expect(await sb.idle()).toBe(true);
    await sb.close();
    sb = await sandbox({ dataDir: dir });
    const recorded = sb.state.attemptsOf(sb.state.deliveriesOf(id)[0]!.id);
    const stored = { txn: sb.state.get(id)!, delivery: sb.state.deliveriesOf(id)[0]! };
    await sb.close();
    expect(recorded.map((r) => r.detail!.httpStatus)).toEqual([503, 200]);
    // The headers recorded are the ones the handler got, in the same order, with the same case.
    recorded.forEach((r, i) => expect(Object.entries(r.detail!.headers).flat()).toEqual(rx.received[i]!.rawHeaders));
    expect(recorded[0]!.detail!.body).toBe(rx.received[0]!.body.toString());

    sb = await sandbox({ dataDir: dir });
    cleanups.push(() => sb.close());
    expect(sb.startup.skippedLines).toBe(0);
    const page = (await raw(`${sb.url}/dashboard/trx/${id}`, 'GET')).body;
    expect(page).toContain('data-http="503"');
    expect(page).toContain('data-http="200"');
    await sb.close();

    // An attempt record as older versions wrote it (no request or answer): loads, and says so.
    const delivery = { ...stored.delivery, attempts: 0, state: 'pending', nextAt: 1 };
    const old =
      [
        { t: 'txn', txn: { ...stored.txn, status: 'pending' } },
        { t: 'status', id, status: 'berhasil', at: Date.now(), d: delivery },
        ...recorded.map((r) => ({ t: 'attempt', id: delivery.id, attempts: r.attempt, state: r.state, nextAt: r.nextAt, result: r.result })),
      ]
        .map((l) => JSON.stringify(l))
        .join('\n') + '\n';
    const olderDir = mkdtempSync(join(tmpdir(), 'paycli-dash-old-'));
    cleanups.push(() => rmSync(olderDir, { recursive: true, force: true }));
    writeFileSync(join(olderDir, 'journal.jsonl'), old);
    sb = await sandbox({ dataDir: olderDir });
    expect(sb.startup.skippedLines).toBe(0);
    expect(sb.state.deliveriesOf(id)[0]!.state).toBe('delivered');
    expect((await raw(`${sb.url}/dashboard/trx/${id}`, 'GET')).body).toContain('recorded by an older paycli version');
  });

  it('resends: a pending payment has nothing to send (409); a paid one gets a new delivery; paycli sandbox resend', async () => {
    const rx = await receiver([200]);
    cleanups.push(() => rx.close());
    const sb = await started();
    const id = await create(sb, rx.url);
    const refused = await sb.resend(String(id));
    expect(refused).toMatchObject({ ok: false, status: 409 });
    const home = tempHome();
    cleanups.push(() => home.cleanup());
    const early = await runCli(['sandbox', 'resend', String(id), '--sandbox-url', sb.url], { home: home.home });
    expect(early.code).toBe(3);
    expect(early.stderr).toContain(`transaction ${id} is pending: it has no callback to send until it is paid or expires`);
    expect(early.stderr).toContain(`paycli sandbox pay ${id}`);
    await sb.pay(String(id));
    await rx.waitFor(1);
    const r = await runCli(['sandbox', 'resend', String(id), '--sandbox-url', sb.url], { home: home.home });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^queued: callback cb-2 of trx ${id} \\(berhasil \\(paid\\)\\) → ${rx.url}\\n$`));
    await rx.waitFor(2);
    const again = await runCli(['sandbox', 'resend', '999999', '--sandbox-url', sb.url], { home: home.home });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('no transaction with id or payment number "999999"');
  });
});

describe('the CLI', () => {
  it('paycli sandbox announces the dashboard in its banner; --no-dashboard turns it off', async () => {
    const home = tempHome();
    cleanups.push(() => home.cleanup());
    const on = spawnPaycli(['sandbox', '--port', '0', '--in-memory', '--json'], { HOME: home.home });
    cleanups.push(() => on.child.kill());
    const banner = await on.waitForJson((o) => o.event === 'started', 20_000);
    expect(banner.dashboard).toBe(`${String(banner.url)}/`);
    expect((await raw(String(banner.dashboard), 'GET')).status).toBe(200);
    const off = spawnPaycli(['sandbox', '--port', '0', '--in-memory', '--json', '--no-dashboard'], { HOME: home.home });
    cleanups.push(() => off.child.kill());
    const offBanner = await off.waitForJson((o) => o.event === 'started', 20_000);
    expect(offBanner.dashboard).toBeNull();
    expect((await raw(`${String(offBanner.url)}/`, 'GET')).status).toBe(404);
  });

  it('paycli listen --ui announces its pages (the built bin serves them)', async () => {
    const home = tempHome();
    cleanups.push(() => home.cleanup());
    const child = spawnPaycli(['listen', '--ui', '--port', '0', '--va', VA, '--no-persist', '--json', '--timeout', '20s'], { HOME: home.home }).child;
    cleanups.push(() => child.kill());
    const banner = await new Promise<Record<string, unknown>>((resolve, reject) => {
      let text = '';
      child.stderr!.on('data', (c: Buffer) => {
        text += c.toString();
        const line = text.split('\n').find((l) => l.includes('"listening"'));
        if (line) resolve(JSON.parse(line) as Record<string, unknown>);
      });
      child.on('exit', () => reject(new Error(`exited: ${text}`)));
    });
    expect(banner.ui).toBe(`${new URL(String(banner.url)).origin}/_paycli/`);
    const page = await raw(String(banner.ui), 'GET');
    expect(page.status).toBe(200);
    expect(page.body).toContain('No callback yet');
  });

  it('paycli listen --ui refuses a --path inside /_paycli/', async () => {
    const home = tempHome();
    cleanups.push(() => home.cleanup());
    const r = await runCli(['listen', '--ui', '--path', '/_paycli/x', '--port', '0', '--va', VA], { home: home.home });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--path /_paycli/x is where --ui serves its pages');
  });
});

describe('paycli listen --ui over HTTP', () => {
  it('shows the newest 500 events of the store', async () => {
    const dir = tempHome();
    cleanups.push(() => dir.cleanup());
    const file = join(dir.home, 'events.jsonl');
    const event = (i: number) => ({
      id: `evt_${String(i).padStart(4, '0')}`,
      receivedAt: new Date(1_700_000_000_000 + i * 1000).toISOString(),
      method: 'POST',
      path: '/',
      headers: {},
      body: '',
      verdict: 'malformed',
      variant: null,
      reason: 'empty',
      duplicate: false,
      trx_id: null,
      status: null,
      answer: 400,
    });
    writeFileSync(file, Array.from({ length: 503 }, (_, i) => JSON.stringify(event(i)) + '\n').join(''));
    const ui = await createListenerUi({ store: new EventStore(file), va: VA, callbackPath: '/' });
    const listener = await startListener({ port: 0, va: VA, store: new EventStore(file), ui });
    cleanups.push(() => listener.close());
    const body = (await raw(`${new URL(listener.url).origin}/_paycli/`, 'GET')).body;
    const ids = [...body.matchAll(/<tr id="(evt_\d+)"/g)].map((m) => m[1]);
    expect(ids).toHaveLength(500);
    expect(ids[0]).toBe('evt_0502');
    expect(ids.at(-1)).toBe('evt_0003');
  });

  it('never stores its own page requests, answers only loopback Hosts, and refuses cross-site replays', async () => {
    const dir = tempHome();
    cleanups.push(() => dir.cleanup());
    const store = new EventStore(join(dir.home, 'events.jsonl'));
    const ui = await createListenerUi({ store, va: VA, callbackPath: '*' });
    const listener = await startListener({ port: 0, va: VA, store, ui, path: '*' });
    cleanups.push(() => listener.close());
    const origin = new URL(listener.url).origin;
    expect((await raw(`${origin}/_paycli/`, 'GET')).status).toBe(200);
    expect((await raw(`${origin}/_paycli`, 'GET')).status).toBe(200);
    expect((await raw(`${origin}/_paycli/`, 'GET', { host: 'evil.example' })).status).toBe(403);
    expect((await raw(`${origin}/_paycli/events/evt_x/replay`, 'POST', { origin: 'http://evil.example' })).status).toBe(403);
    expect((await raw(`${origin}/_paycli/events/evt_x/replay`, 'GET')).status).toBe(405);
    expect((await raw(`${origin}/_paycli/events/evt_nope`, 'GET')).status).toBe(404);
    // Any other path is still a callback path (here `*`): stored as a request.
    expect((await raw(`${origin}/hook`, 'POST')).status).toBe(400);
    await until(() => listener.summary.total === 1);
    const stored = await store.list();
    expect(stored.map((e) => e.path)).toEqual(['/hook']);
    // Filtered by verdict; the replay target defaults to the listener itself.
    expect((await raw(`${origin}/_paycli/?verdict=malformed`, 'GET')).body).toContain(`id="${stored[0]!.id}"`);
    expect((await raw(`${origin}/_paycli/?verdict=valid`, 'GET')).body).toContain('No event with this verdict');
    const page = (await raw(`${origin}/_paycli/events/${stored[0]!.id}`, 'GET')).body;
    expect(page).toContain(`<select id="replay-to"><option value="${origin}/">`);
    expect(page).toContain('Not computable');
  });
});
