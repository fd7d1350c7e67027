import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseFormBody, parseJsonBody } from '../../src/core/callback/parse.js';
import { checkCallback } from '../../src/core/callback/check.js';
import { readOrders as parseOrders } from '../../src/core/api/orders.js';
import type { EmulatorHandle } from '../../src/core/sandbox/server.js';
import { runCli, tempHome, testContext } from '../helpers/cli.js';
import { run } from '../../src/cli/run.js';
import { receiver } from '../helpers/receiver.js';
import { EMULATOR_DEFAULT_VA as VA, allDeliveries, dispatcherToEmulator, localEnv, sandbox } from '../helpers/sandbox.js';

/** A loopback port with nothing listening: the merchant's handler while it was down. */
async function deadPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe('parseOrders (unit)', () => {
  it('reads CSV (quoted cells), JSON lines and a JSON array with flexible column names', () => {
    expect(parseOrders('order_id,Status\nA-1,pending\n"B,2",paid\n', 'o.csv')).toEqual([
      { line: 2, trxId: undefined, referenceId: 'A-1', state: 'unpaid', status: 'pending' },
      { line: 3, trxId: undefined, referenceId: 'B,2', state: 'paid', status: 'paid' },
    ]);
    expect(parseOrders('[{"reference_id": "ORDER;7", "status": "paid", "amount": 50000}]', 'o.json')).toEqual([
      { line: 1, trxId: undefined, referenceId: 'ORDER;7', state: 'paid', status: 'paid', amount: 50000 },
    ]);
    expect(
      parseOrders('{"trx_id": 100001, "status": "unpaid"}\n\n{"transactionId": "100002", "status": "expired"}\n', 'o.jsonl').map((o) => [o.trxId, o.state]),
    ).toEqual([
      [100001, 'unpaid'],
      [100002, 'closed'],
    ]);
  });
  it('names the file and line of a bad row', () => {
    expect(() => parseOrders('trx_id,status\n12x,paid\n', 'o.csv')).toThrow('o.csv:2: transaction id "12x" is not a number');
    expect(() => parseOrders('trx_id,status\n12,maybe\n', 'o.csv')).toThrow('o.csv:2: unknown status "maybe"');
    expect(() => parseOrders('status\npaid\n', 'o.csv')).toThrow('o.csv:2: needs a transaction id');
    expect(() => parseOrders('{"trx_id":1}\nnope\n', 'o.jsonl')).toThrow(/o\.jsonl:2: not a JSON object/);
  });
});

describe('paycli recover: a handler that was down while payments were made', () => {
  let sb: EmulatorHandle;
  let home: ReturnType<typeof tempHome>;
  const trx: { id: number; ref: string }[] = [];
  const cli = (argv: string[], stdin?: string) => runCli(argv, { env: localEnv(sb), home: home.home, stdin });

  beforeAll(async () => {
    home = tempHome();
    // The emulator gives up after one retry: the callbacks are lost to the merchant.
    sb = await sandbox({ retrySchedule: [10], allowedHosts: ['my.ipaymu.com'] });
    const down = `http://127.0.0.1:${await deadPort()}/callback`;
    for (let i = 0; i < 5; i++) {
      const r = await cli([
        'pay',
        '--method',
        i === 4 ? 'qris' : 'va',
        ...(i === 4 ? [] : ['--channel', 'bni']),
        '--name',
        'Made',
        '--phone',
        '08123456789',
        '--email',
        'made@mail.com',
        '--notify-url',
        down,
        '--item',
        `Item ${i}:1:${20000 + i * 1000}`,
        '--reference-id',
        `SHOP-${i}`,
        '--json',
      ]);
      expect(r.code, r.stderr).toBe(0);
      trx.push({ id: JSON.parse(r.stdout).TransactionId, ref: `SHOP-${i}` });
    }
    await sb.pay(String(trx[0]!.id));
    await sb.pay(String(trx[1]!.id));
    await sb.expire(String(trx[2]!.id));
    await sb.pay(String(trx[4]!.id));
    expect(await sb.idle(10_000)).toBe(true);
    const states = allDeliveries(sb.state).map((d) => d.state);
    expect(states).toEqual(['failed', 'failed', 'failed', 'failed']);
  });
  afterAll(async () => {
    await sb.close();
    home.cleanup();
  });

  const ordersCsv = () => {
    const file = join(home.home, 'orders.csv');
    // The merchant's own view: all unpaid, except SHOP-3 (still pending at the gateway too) and one
    // identified by transaction id only.
    writeFileSync(
      file,
      [
        'reference_id,trx_id,status',
        `SHOP-0,,unpaid`,
        `,${trx[1]!.id},pending`,
        `SHOP-2,,unpaid`,
        `SHOP-3,,unpaid`,
        `SHOP-4,,unpaid`,
        'SHOP-404,,unpaid',
        'SHOP-3,,paid',
      ].join('\n'),
    );
    return file;
  };

  it('lists the missed payments, and exits 6 (not "all agree") when other discrepancies remain', async () => {
    const r = await cli(['recover', '--orders', ordersCsv()]);
    expect(r.code, r.stderr).toBe(6);
    const lines = r.stdout.trim().split('\n');
    // Piped: tab-separated rows without the header; on a terminal, the aligned table with it.
    expect(lines).toHaveLength(4);
    const tty = await runCli(['recover', '--orders', ordersCsv(), '--no-color'], { env: localEnv(sb), home: home.home, tty: true });
    expect(tty.stdout.split('\n')[0]).toMatch(/^TRX +REFERENCE +MERCHANT +GATEWAY +DELIVERY$/);
    expect(tty.stdout).toMatch(new RegExp(`${trx[2]!.id} +SHOP-2 +unpaid +expired +not delivered \\(dry\\)`));
    expect(r.stdout).toMatch(new RegExp(`^${trx[2]!.id}\tSHOP-2\tunpaid\texpired\tnot delivered \\(dry\\)$`, 'm'));
    expect(r.stdout).not.toContain('SHOP-3');
    expect(r.stderr).toContain('reference SHOP-404 is unknown to the gateway');
    expect(r.stderr).toContain('line 8: reference SHOP-3 is "paid" in your orders but pending at the gateway');
    expect(r.stderr).toContain('4 of 6 missed · add --deliver-to URL to deliver them');
    expect(r.stderr).toContain('reference SHOP-3 is on 2 rows (lines 5, 8)');
    expect(r.stderr).toMatch(/2 order\(s\) disagree with the gateway in ways a callback cannot fix/);
    expect(r.stdout + r.stderr).not.toContain('nothing to recover');
  });

  it('--dry-run and --curl with --deliver-to show the signed callbacks and send nothing', async () => {
    const rx = await receiver([200]);
    try {
      const dry = await cli(['recover', '--orders', ordersCsv(), '--deliver-to', rx.url, '--dry-run', '--json']);
      expect(dry.code, dry.stderr).toBe(6);
      expect(JSON.parse(dry.stdout).missed[0].delivery.signature).toMatch(/^[0-9a-f]{64}$/);
      const curl = await cli(['recover', '--orders', ordersCsv(), '--deliver-to', rx.url, '--curl']);
      expect(curl.stdout.match(/^curl -sS -X POST/gm)).toHaveLength(4);
      expect(curl.stdout).toContain("-H 'X-Signature: ");
      expect(rx.received).toHaveLength(0);
    } finally {
      await rx.close();
    }
  });

  it('Ctrl-C while a delivery waits for the handler stops at once: exit 130, saying how many were delivered', async () => {
    const { createServer } = await import('node:http');
    const held: import('node:http').ServerResponse[] = [];
    const ctl = new AbortController();
    const hanging = createServer((_req, res) => {
      held.push(res); // never answers
      ctl.abort();
    });
    await new Promise<void>((r) => hanging.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}/callback`;
      const r = await runCli(['recover', '--orders', ordersCsv(), '--deliver-to', url, '--delivery-timeout', '1m'], {
        env: localEnv(sb),
        home: home.home,
        signal: ctl.signal,
      });
      // Stopped during the first delivery, not after its 1 min timeout: exit 130 (a timeout is
      // "unreachable", exit 5), and the next callback was never posted.
      expect(r.code).toBe(130);
      expect(r.stderr).toContain('interrupted: 0 of 4 callbacks delivered before Ctrl-C');
      expect(held).toHaveLength(1);
    } finally {
      for (const res of held) res.destroy();
      hanging.closeAllConnections();
      await new Promise((r) => hanging.close(r));
    }
  });

  it('--deliver-to posts each callback rebuilt from the gateway record, signed with the VA, and reports the answers', async () => {
    const rx = await receiver([200, 200, 500, 200]);
    try {
      const r = await cli(['recover', '--orders', ordersCsv(), '--deliver-to', rx.url, '--json']);
      expect(r.code).toBe(6); // one answer was 500
      const report = JSON.parse(r.stdout);
      expect(report).toMatchObject({ checked: 6, delivered: 3, failed: 1 });
      expect(report.missed.map((m: { delivery: { status: number } }) => m.delivery.status)).toEqual([200, 200, 500, 200]);
      expect(rx.received).toHaveLength(4);
      for (const req of rx.received) {
        const fields = parseFormBody(req.body.toString('utf8'));
        const check = checkCallback(fields, String(req.headers['x-signature']), VA);
        expect(check.verdict, check.reason).toBe('valid');
        const t = sb.state.get(Number(fields.trx_id))!;
        // Exactly the fields the emulator itself sends for that transaction (docs/gateway.md, "Callbacks").
        expect(fields).toMatchObject({
          sid: t.sid,
          reference_id: t.referenceId,
          amount: String(t.amount),
          fee: String(t.fee),
          via: t.via,
          channel: t.channel,
          buyer_email: 'made@mail.com',
          url: rx.url,
        });
        expect(fields.status).toBe(t.status);
        expect(req.headers['x-external-id']).toMatch(/^\d{20}$/);
      }
      const paid = parseFormBody(rx.received[0]!.body.toString('utf8'));
      expect(paid).toMatchObject({
        status: 'berhasil',
        status_code: '1',
        transaction_status_code: '1',
        settlement_status: 'settled',
        paid_off: String(20000 - 4000),
        va: paid.payment_no,
      });
      const qris = parseFormBody(rx.received[3]!.body.toString('utf8'));
      expect(qris).toMatchObject({ via: 'qris', channel: 'mpm', payment_no: '' });
    } finally {
      await rx.close();
    }
  });

  it('JSON bodies with --format json; exit 5 when the handler is still down', async () => {
    const rx = await receiver([200]);
    try {
      const orders = `{"trx_id": ${trx[0]!.id}, "status": "unpaid"}\n`;
      const r = await cli(['recover', '--orders', '-', '--deliver-to', rx.url, '--format', 'json'], orders);
      expect(r.code, r.stderr).toBe(0);
      const body = rx.received[0]!.body.toString('utf8');
      expect(rx.received[0]!.headers['content-type']).toBe('application/json');
      expect(checkCallback(parseJsonBody(body), String(rx.received[0]!.headers['x-signature']), VA).verdict).toBe('valid');
    } finally {
      await rx.close();
    }
    const down = await cli(['recover', '--orders', ordersCsv(), '--deliver-to', `http://127.0.0.1:${await deadPort()}/cb`]);
    expect(down.code).toBe(5);
    expect(down.stdout).toMatch(/unreachable: /);
    for (const line of down.stdout.split('\n')) expect(line.length).toBeLessThanOrEqual(80);
    expect(down.stderr).toMatch(/4 of 4 callbacks could not reach/);
  });

  it('--since checks the window against the event store: callbacks answered 200 there are not missed', async () => {
    const store = join(home.home, 'events.jsonl');
    const answered = {
      id: 'evt_1',
      receivedAt: new Date().toISOString(),
      method: 'POST',
      path: '/',
      headers: {},
      body: '',
      verdict: 'valid',
      variant: null,
      reason: null,
      duplicate: false,
      trx_id: String(trx[0]!.id),
      status: 'berhasil',
      answer: 200,
    };
    const refused = { ...answered, id: 'evt_2', trx_id: String(trx[1]!.id), answer: 500 };
    writeFileSync(store, JSON.stringify(answered) + '\n' + JSON.stringify(refused) + '\n');
    const r = await cli(['recover', '--since', '1d', '--store', store, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.checked).toBe(4); // the final payments of the window (3 paid, 1 expired); the pending one is not counted
    expect(report.missed.map((m: { trxId: number }) => m.trxId).sort()).toEqual([trx[1]!.id, trx[2]!.id, trx[4]!.id].sort());
  });

  it('delivering to production needs --yes', async () => {
    const rx = await receiver([200]);
    try {
      const orders = join(home.home, 'one.jsonl');
      writeFileSync(orders, `{"trx_id": ${trx[0]!.id}, "status": "unpaid"}\n`);
      const prod = { ...localEnv(sb), PAYCLI_ENV: 'production', PAYCLI_VA: sb.accounts[0]!.va, PAYCLI_API_KEY: sb.accounts[0]!.apiKey! };
      const refused = await runCli(['recover', '--orders', orders, '--deliver-to', rx.url], { env: prod, home: home.home });
      expect(refused.code).toBe(4);
      expect(refused.stderr).toMatch(/refusing to deliver production callbacks without confirmation: 1 rebuilt callback/);
      expect(rx.received).toHaveLength(0);
      const yes = await runCli(['recover', '--orders', orders, '--deliver-to', rx.url, '--yes'], { env: prod, home: home.home });
      expect(yes.code, yes.stderr).toBe(0);
      expect(rx.received).toHaveLength(1);
    } finally {
      await rx.close();
    }
  });

  it('delivering callbacks rebuilt from the production host needs --yes, whatever the env is named', async () => {
    // The default environment (sandbox) with PAYCLI_BASE_URL on the production host: production is
    // decided by where requests go. A dispatcher whose connector leads every connection to the
    // emulator stands in for https://my.ipaymu.com (plain HTTP on loopback; nothing leaves it).
    const dispatcher = await dispatcherToEmulator(sb);
    const rx = await receiver([200]);
    try {
      const orders = join(home.home, 'one-prod-host.jsonl');
      writeFileSync(orders, `{"trx_id": ${trx[0]!.id}, "status": "unpaid"}\n`);
      const env = { PAYCLI_BASE_URL: 'https://my.ipaymu.com/api', PAYCLI_VA: sb.accounts[0]!.va, PAYCLI_API_KEY: sb.accounts[0]!.apiKey! };
      const recover = async (argv: string[]) => {
        const { ctx, err } = testContext({ env, home: home.home });
        ctx.dispatcher = dispatcher;
        return { code: await run(argv, ctx), stderr: err() };
      };
      const refused = await recover(['recover', '--orders', orders, '--deliver-to', rx.url]);
      expect(refused.code, refused.stderr).toBe(4);
      expect(refused.stderr).toMatch(/refusing to deliver production callbacks without confirmation: 1 rebuilt callback.*production gateway/);
      expect(rx.received).toHaveLength(0);
      const yes = await recover(['recover', '--orders', orders, '--deliver-to', rx.url, '--yes']);
      expect(yes.code, yes.stderr).toBe(0);
      expect(rx.received).toHaveLength(1);
    } finally {
      await rx.close();
      await dispatcher.close();
    }
  });

  it('usage errors: exit 2 with one line', async () => {
    for (const argv of [
      ['recover'],
      ['recover', '--orders', 'x', '--since', '1d'],
      ['recover', '--since', 'soon'],
      ['recover', '--orders', '/nonexistent'],
      ['recover', '--since', '1d', '--dry-run'],
      ['recover', '--orders', 'x', '--deliver-to', 'ftp://x'],
    ]) {
      const r = await cli(argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n')[0]).toMatch(/^error: /);
    }
  });
});
