import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readOrders } from '../../src/core/api/orders.js';
import { reconcile } from '../../src/core/api/reconcile.js';
import { readCsvObjects } from '../../src/core/csv.js';
import type { EmulatorHandle } from '../../src/core/sandbox/server.js';
import { parseFormBody } from '../../src/core/callback/parse.js';
import { payVa } from '../helpers/argv.js';
import { runCli, tempHome } from '../helpers/cli.js';
import { receiver } from '../helpers/receiver.js';
import { localEnv, sandbox } from '../helpers/sandbox.js';

const rec = (id: number, status: number, amount: number, ref?: string) => ({
  TransactionId: id,
  Status: status,
  Amount: amount,
  ReferenceId: ref ?? null,
  PaidStatus: [1, 6, 7].includes(status) ? 'paid' : 'unpaid',
});

describe('reconcile (core): every class of discrepancy', () => {
  it('names each class, compares repeated rows once per variant, and counts agreeing orders', () => {
    const orders = readOrders(
      [
        'reference_id,trx_id,status,amount',
        'OK-1,,paid,50000', // agrees
        'LOST,,unpaid,20000', // paid at the gateway only
        'FORGED,,paid,20000', // paid locally only
        'CHEAP,,paid,1000', // amount differs
        'NOPE,,unpaid,', // unknown
        'TWICE,,paid,30000', // one reference on two transactions
        'DUP,,unpaid,10000', // three rows of one order
        'DUP,,unpaid,10000',
        'DUP,,unpaid,10000',
        ',9,pending,', // expired at the gateway
      ].join('\n'),
      'o.csv',
    );
    const byRef = new Map([
      ['OK-1', [rec(1, 1, 50000, 'OK-1')]],
      ['LOST', [rec(2, 6, 20000, 'LOST')]],
      ['FORGED', [rec(3, 0, 20000, 'FORGED')]],
      ['CHEAP', [rec(4, 1, 50000, 'CHEAP')]],
      ['TWICE', [rec(5, 1, 30000, 'TWICE'), rec(6, -2, 30000, 'TWICE')]],
      ['DUP', [rec(7, 1, 10000, 'DUP')]],
    ]);
    const r = reconcile(orders, { byTrx: new Map([[9, rec(9, -2, 5000)]]), byRef });
    expect(r).toMatchObject({ rows: 10, orders: 8, agreeing: 1 });
    const kinds = r.findings.map((f) => `${f.kind}:${f.referenceId ?? f.trxId}`);
    expect(kinds.sort()).toEqual(
      [
        'amount-mismatch:CHEAP',
        'closed-at-gateway:9',
        'paid-at-gateway:DUP',
        'paid-at-gateway:LOST',
        'paid-locally-only:FORGED',
        'repeated-row:DUP',
        'several-transactions:TWICE',
        'unknown-at-gateway:NOPE',
      ].sort(),
    );
    expect(r.findings.find((f) => f.kind === 'repeated-row')!.lines).toEqual([8, 9, 10]);
    expect(r.findings.filter((f) => f.kind === 'paid-at-gateway' && f.referenceId === 'DUP')).toHaveLength(1);
    // The paid one of the two decides; escrow (7) and paid-settled-later (6) count as paid.
    expect(reconcile(readOrders('ref,status\nE,paid\n', 'x'), { byTrx: new Map(), byRef: new Map([['E', [rec(8, 7, 1, 'E')]]]) }).findings).toEqual([]);
  });
});

describe('paycli reconcile and recover against the emulator', () => {
  let sb: EmulatorHandle;
  let home: ReturnType<typeof tempHome>;
  let clock = Date.parse('2026-11-20T02:00:00Z');
  const ids: number[] = [];
  const cli = (argv: string[], stdin?: string) => runCli(argv, { env: localEnv(sb), home: home.home, stdin, now: () => new Date(clock) });

  beforeAll(async () => {
    home = tempHome();
    sb = await sandbox({ now: () => new Date(clock), retrySchedule: [10] });
    const pay = async (ref: string, price: number) => {
      const r = await cli([
        ...payVa({ channel: 'bni', name: 'Nyoman Ö', email: 'n@mail.com' }),
        '--notify-url',
        'http://127.0.0.1:9/cb',
        '--item',
        `Item:1:${price}`,
        '--reference-id',
        ref,
        '--expired',
        '96',
        '--json',
      ]);
      expect(r.code, r.stderr).toBe(0);
      ids.push(JSON.parse(r.stdout).TransactionId);
    };
    await pay('ORDER;7', 50000); // created three days ago, paid an hour ago
    clock += 3 * 24 * 3600_000 - 3600_000;
    await sb.pay(String(ids[0]));
    clock += 3600_000;
    await pay('OPEN-1', 20000);
    expect(await sb.idle(10_000)).toBe(true);
  });
  afterAll(async () => {
    await sb.close();
    home.cleanup();
  });

  it('history --csv carries total, fee, paid off and paid time, and ORDER;7 reads back through the orders reader', async () => {
    const csv = await cli(['history', '--all', '--csv']);
    expect(csv.code, csv.stderr).toBe(0);
    expect(csv.stdout).toContain('"ORDER;7"');
    const rows = readCsvObjects(csv.stdout);
    const paid = rows.find((r) => r.row.ReferenceId === 'ORDER;7')!.row;
    expect(paid).toMatchObject({ Amount: '50000', Total: '50000', Fee: '4000', PaidOff: '46000', BuyerName: 'Nyoman Ö' });
    expect(paid.SuccessDate).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    // The file paycli wrote is an orders file paycli reads: ORDER;7 stays one reference.
    const orders = readOrders(
      csv.stdout.replace(/^TransactionId,ReferenceId,Status,/, 'TransactionId,ReferenceId,GatewayStatus,').replace(/PaidStatus/, 'status'),
      'history.csv',
    );
    expect(orders.map((o) => o.referenceId).sort()).toEqual(['OPEN-1', 'ORDER;7']);
    expect(orders.find((o) => o.referenceId === 'ORDER;7')).toMatchObject({ state: 'paid', trxId: ids[0] });
  });

  it('exit 0 only when all agree; 6 with each finding in the table, --json and --csv', async () => {
    const file = join(home.home, 'orders.json');
    writeFileSync(
      file,
      JSON.stringify([
        { reference_id: 'ORDER;7', status: 'paid', amount: 50000 },
        { reference_id: 'OPEN-1', status: 'pending', amount: 20000 },
      ]),
    );
    const ok = await cli(['reconcile', '--orders', file]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stderr).toContain('all 2 orders agree with the gateway');
    writeFileSync(
      file,
      JSON.stringify([
        { reference_id: 'ORDER;7', status: 'pending', amount: 50000 },
        { reference_id: 'OPEN-1', status: 'paid', amount: 25000 },
        { reference_id: 'OPEN-1', status: 'paid', amount: 25000 },
        { reference_id: 'GHOST', status: 'unpaid' },
      ]),
    );
    const bad = await cli(['reconcile', '--orders', file, '--json']);
    expect(bad.code).toBe(6);
    const report = JSON.parse(bad.stdout);
    expect(report).toMatchObject({
      agree: false,
      rows: 4,
      orders: 3,
      agreeing: 0,
      counts: { 'paid-at-gateway': 1, 'paid-locally-only': 1, 'amount-mismatch': 1, 'unknown-at-gateway': 1, 'repeated-row': 1 },
    });
    expect(report.findings[0]).not.toHaveProperty('record');
    const csv = await cli(['reconcile', '--orders', file, '--csv']);
    expect(csv.code).toBe(6);
    expect(
      readCsvObjects(csv.stdout)
        .map((r) => r.row.kind)
        .sort(),
    ).toEqual(['amount-mismatch', 'paid-at-gateway', 'paid-locally-only', 'repeated-row', 'unknown-at-gateway']);
    const text = await runCli(['reconcile', '--orders', file, '--no-color'], { env: localEnv(sb), home: home.home, tty: true, now: () => new Date(clock) });
    expect(text.stdout).toMatch(/^KIND +LINE +TRX +REFERENCE +LOCAL +GATEWAY$/m);
    for (const line of text.stdout.split('\n')) expect([...line].length).toBeLessThanOrEqual(80);
    expect(text.stderr).toContain('3 of 3 orders disagree with the gateway');
    expect(text.stderr).toContain('gateway (dangerous)');
    expect(text.stderr).toContain('reference OPEN-1 is "paid" in your orders but pending at the gateway');
  });

  it('recover --orders delivers an order on three rows once; --since finds a payment by paid time; REF recovers one order', async () => {
    const rx = await receiver([200]);
    try {
      const dup = await cli(['recover', '--orders', '-', '--deliver-to', rx.url], 'reference_id,status\nORDER;7,unpaid\nORDER;7,unpaid\n"ORDER;7",unpaid\n');
      expect(dup.code, dup.stderr).toBe(0);
      expect(rx.received).toHaveLength(1);
      // Created three days ago, paid an hour ago: inside a 2-day window by paid time.
      const since = await cli(['recover', '--since', '2d', '--store', join(home.home, 'none.jsonl'), '--json']);
      expect(since.code, since.stderr).toBe(0);
      expect(JSON.parse(since.stdout).missed.map((m: { trxId: number }) => m.trxId)).toEqual([ids[0]]);
      expect(since.stderr).toMatch(/has no callback from this window.*receives its callbacks directly.*use --orders/s);
      const one = await cli(['recover', 'ORDER;7', '--deliver-to', rx.url]);
      expect(one.code, one.stderr).toBe(0);
      expect(rx.received).toHaveLength(2);
      expect(parseFormBody(rx.received[1]!.body.toString('utf8'))).toMatchObject({ reference_id: 'ORDER;7', status: 'berhasil', trx_id: String(ids[0]) });
      const pending = await cli(['recover', 'OPEN-1', '--deliver-to', rx.url]);
      expect(pending.code).toBe(0);
      expect(pending.stderr).toContain('is pending at the gateway: no callback to deliver');
      expect(rx.received).toHaveLength(2);
    } finally {
      await rx.close();
    }
  });

  it('transaction points at recover when the gateway says paid', async () => {
    const r = await cli(['transaction', String(ids[0])]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("paycli recover 'ORDER;7' --deliver-to URL");
    const open = await cli(['transaction', String(ids[1])]);
    expect(open.stderr).not.toContain('paycli recover');
  });
});
