import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempHome } from '../helpers/cli.js';
import { receiver } from '../helpers/receiver.js';
import { runPaycli, spawnPaycli, type Spawned } from '../helpers/spawn.js';

const exec = promisify(execFile);
const ROOT = new URL('../..', import.meta.url).pathname;

let home: ReturnType<typeof tempHome>;
let emulator: Spawned | undefined;
beforeAll(() => (home = tempHome()));
afterAll(async () => {
  if (emulator && emulator.child.exitCode === null) {
    emulator.child.kill('SIGTERM');
    await emulator.exited;
  }
  home.cleanup();
});

describe('the merchant commands, spawned, against a spawned emulator that is killed with -9', () => {
  it('pay --redirect, choose on the page, kill -9, then transaction, history, balance, channels and recover', async () => {
    const dataDir = join(home.home, 'sandbox');
    const args = ['sandbox', '--port', '0', '--data-dir', dataDir, '--json', '--retry-schedule', '10ms'];
    emulator = spawnPaycli(args);
    let started = await emulator.waitForJson((o) => o.event === 'started');
    const env = () => ({ HOME: home.home, PAYCLI_ENV: 'local', PAYCLI_BASE_URL: String(started.baseUrl) });
    const rx0 = await receiver([200]);
    const down = rx0.url;
    await rx0.close(); // the merchant's handler is down while the buyer pays

    const made = await runPaycli(
      ['pay', '--redirect', '--item', 'Kopi:2:25000', '--notify-url', down, '--return-url', 'http://127.0.0.1:9/ok', '--reference-id', 'E2E-1', '--json'],
      env(),
    );
    expect(made.code, made.stderr).toBe(0);
    const { Url, SessionID } = JSON.parse(made.stdout) as { Url: string; SessionID: string };
    expect(Url.endsWith(`/payment/${SessionID}`)).toBe(true);

    // kill -9 right after the answer: the session must survive.
    emulator.child.kill('SIGKILL');
    await emulator.exited;
    emulator = spawnPaycli(args);
    started = await emulator.waitForJson((o) => o.event === 'started');
    const page = `${String(started.url)}/payment/${SessionID}`;
    const form = await request(page);
    expect(form.statusCode).toBe(200);
    expect(await form.body.text()).toContain('ch-va-bni');
    const chose = await request(`${page}/choose`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'channel=va%3Abni',
    });
    expect(chose.statusCode).toBe(303);
    await chose.body.dump();
    const paid = await request(`${page}/pay`, { method: 'POST' });
    expect(paid.statusCode).toBe(303);
    expect(paid.headers.location).toBe('http://127.0.0.1:9/ok');
    await paid.body.dump();
    await emulator.waitForJson((o) => o.type === 'callback' && o.final === 'failed');

    emulator.child.kill('SIGKILL');
    await emulator.exited;
    emulator = spawnPaycli(args);
    started = await emulator.waitForJson((o) => o.event === 'started');
    expect(started.transactions).toBe(1);

    const history = await runPaycli(['history', '--json'], env());
    expect(history.code, history.stderr).toBe(0);
    const [row] = (JSON.parse(history.stdout) as { transactions: { TransactionId: number; ReferenceId: string; PaidStatus: string }[] }).transactions;
    expect(row).toMatchObject({ ReferenceId: 'E2E-1', PaidStatus: 'paid' });
    const id = String(row!.TransactionId);

    const trx = await runPaycli(['transaction', id, '--wait', '--interval', '50ms', '--timeout', '5s'], env());
    expect(trx.code, trx.stderr).toBe(0);
    expect(trx.stdout).toMatch(new RegExp(`^trx ${id} · berhasil \\(paid\\) · code 1 \\(Berhasil\\)`));
    expect(trx.stdout).toContain('amount   Rp 50.000   fee Rp 4.000');

    const balance = await runPaycli(['balance', '--json'], env());
    expect(JSON.parse(balance.stdout)).toMatchObject({ merchantBalance: 46000, unsettledBalance: 0 });

    const channels = await runPaycli(['channels', '--method', 'cstore'], env());
    expect(channels.code, channels.stderr).toBe(0);
    expect(channels.stdout).toMatch(/^cstore\talfamart\tAlfamart\tRp 5\.000\tavailable$/m);

    const rx = await receiver([200]);
    try {
      const orders = join(home.home, 'orders.jsonl');
      writeFileSync(orders, `{"reference_id":"E2E-1","status":"unpaid"}\n`);
      const rec = await runPaycli(['recover', '--orders', orders, '--deliver-to', rx.url], env());
      expect(rec.code, rec.stderr).toBe(0);
      expect(rec.stdout).toMatch(new RegExp(`${id}\tE2E-1\tunpaid\tberhasil\tHTTP 200 ok`));
      expect(rx.received[0]!.body.toString()).toContain('reference_id=E2E-1');
    } finally {
      await rx.close();
    }
    emulator.child.kill('SIGTERM');
    expect(await emulator.exited).toBe(0);
  });
});

describe('paycli/sandbox exposes the merchant operations', () => {
  it('history, balance, channels and a redirect session from the library', async () => {
    const script = `
      import { startSandbox } from 'paycli/sandbox';
      const sb = await startSandbox({ port: 0 });
      const va = sb.accounts[0].va;
      const r = await sb.merchant.createRedirect(va, { product: ['A'], qty: ['1'], price: ['10000'], notifyUrl: 'http://127.0.0.1:9/cb' });
      const c = await sb.merchant.choose(r.session, 'cstore', 'indomaret');
      await sb.pay(String(c.txn.id));
      console.log(JSON.stringify({
        history: sb.merchant.history(va, { status: 1 }).Pagination.total,
        paid: sb.merchant.transaction(va, c.txn.id).PaidStatus,
        balance: sb.merchant.balance(va).MerchantBalance,
        channels: sb.merchant.channels('http://x').length,
      }));
      await sb.close();
    `;
    const { stdout } = await exec(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT });
    expect(JSON.parse(stdout)).toEqual({ history: 1, paid: 'paid', balance: 5000, channels: 7 });
  });
});
