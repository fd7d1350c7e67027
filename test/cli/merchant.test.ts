import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkDate, encodeHistoryBody, encodeTransactionBody, parseStatusFilter, readBalance, readChannels, readHistory } from '../../src/core/api/merchant.js';
import type { EmulatorHandle } from '../../src/core/sandbox/server.js';
import { payVa } from '../helpers/argv.js';
import { runCli, tempHome } from '../helpers/cli.js';
import { localEnv, sandbox } from '../helpers/sandbox.js';

describe('merchant API request building and response reading (unit)', () => {
  it('check transaction sends the id as a number and refuses non-digits', () => {
    expect(encodeTransactionBody('100001')).toBe('{"transactionId":100001}');
    expect(() => encodeTransactionBody('12a')).toThrow(/invalid transaction id "12a"/);
  });

  it('history body uses the documented names; status words and codes; dates checked', () => {
    expect(encodeHistoryBody({ status: parseStatusFilter('paid'), from: '2026-11-01', to: '2026-11-30', dateField: 'indate', page: 2, limit: 5 })).toBe(
      '{"status":1,"date":"indate","startdate":"2026-11-01","enddate":"2026-11-30","page":2,"limit":5,"orderBy":"id","order":"DESC"}',
    );
    expect(parseStatusFilter('expired')).toBe(-2);
    expect(parseStatusFilter('-2')).toBe(-2);
    expect(parseStatusFilter('unsettled')).toBe(6);
    expect(() => parseStatusFilter('lunas')).toThrow(/invalid --status "lunas"/);
    expect(() => checkDate('2026-02-30', '--from')).toThrow(/invalid --from "2026-02-30"/);
    expect(checkDate('2026-02-28', '--from')).toBe('2026-02-28');
  });

  it('reads both history shapes, string balances and both channel lists', () => {
    const real = readHistory({
      Transaction: [{ TransactionId: 1, Status: '1' }],
      Pagination: { total: 21, count: 1, per_page: 20, current_page: 2, total_pages: 2 },
    });
    expect(real).toMatchObject({ page: 2, totalPages: 2, total: 21, transactions: [{ TransactionId: 1, Status: 1 }] });
    const docs = readHistory({ Total: 150, Per_Page: 10, Current_Page: 1, Total_Page: 15, Results: [{ TransactionId: 341189, Status: 1 }] });
    expect(docs).toMatchObject({ page: 1, totalPages: 15, total: 150, transactions: [{ TransactionId: 341189 }] });
    expect(readBalance({ Va: '1', MerchantBalance: '1500000', MemberBalance: '0' })).toEqual({ va: '1', merchantBalance: 1500000, memberBalance: 0 });
    const go = readChannels([
      {
        Code: 'va',
        Description: 'VA',
        Channels: [
          { Code: 'bca', Description: 'BCA', PaymentIntrucionsDoc: 'x', TransactionFee: { ActualFee: 4000, ActualFeeType: 'FLAT', AdditionalFee: 0 } },
        ],
      },
    ]);
    expect(go[0]).toMatchObject({ method: 'va', channel: 'bca', fee: 4000, instructions: 'x', status: 'active' });
  });
});

describe('paycli transaction, history, balance, channels against the emulator', () => {
  let sb: EmulatorHandle;
  let home: ReturnType<typeof tempHome>;
  let clock = Date.parse('2026-11-20T02:00:00Z');
  const ids: string[] = [];
  let checks = 0;
  const cli = (argv: string[], tty = false) => runCli(argv, { env: localEnv(sb), home: home.home, tty, now: () => new Date(clock) });
  beforeAll(async () => {
    sb = await sandbox({ now: () => new Date(clock), onEvent: (e) => void (e.type === 'request' && e.path === '/api/v2/transaction' && checks++) });
    home = tempHome();
    for (let i = 0; i < 25; i++) {
      const r = await cli([
        ...payVa({ name: 'Putu, "Ayu"', email: 'putu@mail.com' }),
        '--notify-url',
        'http://127.0.0.1:9/cb',
        '--item',
        `Kopi:1:${10000 + i}`,
        '--reference-id',
        `ORD-${i}`,
        '--json',
      ]);
      expect(r.code, r.stderr).toBe(0);
      ids.push(String(JSON.parse(r.stdout).TransactionId));
      clock += 60_000;
    }
    await sb.pay(ids[0]!);
    await sb.pay(ids[1]!);
    await sb.expire(ids[2]!);
  });
  afterAll(async () => {
    await sb.close();
    home.cleanup();
  });

  it('transaction: human output fits 80 columns and says paid; --json has PaidStatus', async () => {
    const r = await cli(['transaction', ids[0]!]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^trx ${ids[0]} · berhasil \\(paid\\) · code 1 \\(Berhasil\\) · ref ORD-0`));
    expect(r.stdout).toContain('amount   Rp 10.000   fee Rp 4.000');
    expect(r.stdout).toMatch(/paid {5}\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} WIB/);
    for (const line of r.stdout.split('\n')) expect(line.length).toBeLessThanOrEqual(80);
    const j = await cli(['transaction', ids[2]!, '--json']);
    expect(JSON.parse(j.stdout)).toMatchObject({ TransactionId: Number(ids[2]), Status: -2, PaidStatus: 'unpaid' });
  });

  it('transaction: bad id is exit 2, unknown id exit 3, --dry-run and --curl send nothing', async () => {
    expect((await cli(['transaction', ''])).code).toBe(2);
    const unknown = await cli(['transaction', '999999']);
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toMatch(/transaction not found/);
    const dry = await cli(['transaction', ids[0]!, '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain(`{"transactionId":${ids[0]}}`);
    const curl = await cli(['transaction', ids[0]!, '--curl']);
    expect(curl.stdout).toContain('$PAYCLI_API_KEY');
    expect((await cli(['transaction', ids[0]!, '--timeout', '5s'])).code).toBe(2);
    const long = await cli(['transaction', ids[0]!, '--wait', '--timeout', '30d']);
    expect(long.code).toBe(2);
    expect(long.stderr).toMatch(/invalid --timeout: duration "30d" is too long/);
    expect((await cli(['transaction', ids[0]!, '--wait', '--interval', '0s'])).code).toBe(2);
  });

  it('transaction by reference id (what pay\'s "payment may exist" hint suggests), reading the history newest first', async () => {
    const r = await cli(['transaction', 'ORD-1', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ TransactionId: Number(ids[1]), ReferenceId: 'ORD-1' });
    // ORD-0 is the oldest: on the second page of 20.
    expect(JSON.parse((await cli(['transaction', 'ORD-0', '--json'])).stdout).TransactionId).toBe(Number(ids[0]));
    const missing = await cli(['transaction', 'NOPE-1']);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain('no transaction with payment number or reference id "NOPE-1" in the history');
    const forced = await cli(['transaction', '12345', '--reference']);
    expect(forced.code).toBe(3);
    expect(forced.stderr).toContain('reference id "12345"');
    const dry = await cli(['transaction', 'ORD-1', '--dry-run']);
    expect(dry.stdout).toMatch(/^POST http:\/\/127\.0\.0\.1:\d+\/api\/v2\/history\n/);
  });

  it('transaction --wait: exit 0 when it gets paid; 6 (a failed check, not a gateway or network error) when it expires or is still pending at --timeout', async () => {
    const waiting = cli(['transaction', ids[3]!, '--wait', '--interval', '20ms', '--timeout', '20s', '--json']);
    await new Promise((r) => setTimeout(r, 100));
    await sb.pay(ids[3]!);
    const paid = await waiting;
    expect(paid.code, paid.stderr).toBe(0);
    expect(JSON.parse(paid.stdout)).toMatchObject({ PaidStatus: 'paid', waited: { final: true, paid: true } });
    const expired = await cli(['transaction', ids[2]!, '--wait', '--interval', '20ms']);
    expect(expired.code).toBe(6);
    expect(expired.stderr).toMatch(/ended expired/);
    const expiredJson = await cli(['transaction', ids[2]!, '--wait', '--interval', '20ms', '--json']);
    expect(JSON.parse(expiredJson.stderr.trim().split('\n').pop()!).error).toMatchObject({ code: 'ERR_NOT_PAID', kind: 'check', exitCode: 6 });
    const timeout = await cli(['transaction', ids[4]!, '--wait', '--interval', '20ms', '--timeout', '100ms', '--json']);
    expect(timeout.code).toBe(6);
    expect(JSON.parse(timeout.stderr.trim().split('\n').pop()!).error).toMatchObject({
      code: 'ERR_WAIT_TIMEOUT',
      kind: 'check',
      exitCode: 6,
      message: expect.stringMatching(/still pending after/),
    });
  });

  it('transaction --wait: a spinner only on a terminal; exit 130 when interrupted while pending', async () => {
    const quiet = await cli(['transaction', ids[2]!, '--wait', '--interval', '20ms']);
    expect(quiet.stderr).not.toContain('waiting for transaction');
    const tty = await cli(['transaction', ids[2]!, '--wait', '--interval', '20ms'], true);
    expect(tty.stderr).toContain('waiting for transaction');
    const ac = new AbortController();
    const waiting = runCli(['transaction', ids[5]!, '--wait', '--interval', '20ms', '--timeout', '30s'], {
      env: localEnv(sb),
      home: home.home,
      now: () => new Date(clock),
      signal: ac.signal,
    });
    // Aborted once the first check was answered (under load it may take a while).
    const before = checks;
    const firstCheck = setInterval(() => {
      if (checks > before) {
        clearInterval(firstCheck);
        setTimeout(() => ac.abort(), 30);
      }
    }, 5);
    const r = await waiting;
    expect(r.code).toBe(130);
    expect(r.stdout).toMatch(/· pending/);
  });

  it('history: a table of page 1 with a note, --page, --status, --all --json as NDJSON, --csv', async () => {
    const r = await cli(['history']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n')[0]).toMatch(/^\d+\t\d{4}-\d\d-\d\d \d\d:\d\d\t\w+\t\w+\tRp [\d.]+\t\S+$/);
    expect(r.stdout.trim().split('\n')).toHaveLength(20);
    expect(r.stderr).toContain('page 1 of 2 · 25 transactions · --page 2 or --all for more');
    const tty = await cli(['history', '--no-color'], true);
    expect(tty.stdout.split('\n')[0]).toMatch(/^ID +CREATED \(WIB\) +STATUS +CHANNEL +AMOUNT +REFERENCE$/);
    expect(tty.stdout.trim().split('\n')).toHaveLength(21);
    for (const line of tty.stdout.split('\n')) expect(line.length).toBeLessThanOrEqual(80);
    const p2 = await cli(['history', '--page', '2', '--json']);
    expect(JSON.parse(p2.stdout)).toMatchObject({ page: 2, totalPages: 2, total: 25 });
    expect(JSON.parse(p2.stdout).transactions).toHaveLength(5);
    const paid = await cli(['history', '--status', 'paid', '--json']);
    expect(
      JSON.parse(paid.stdout)
        .transactions.map((t: { TransactionId: number }) => String(t.TransactionId))
        .sort(),
    ).toEqual([ids[0], ids[1], ids[3]].sort());
    const all = await cli(['history', '--all', '--limit', '7', '--json']);
    const lines = all.stdout.trim().split('\n');
    expect(lines).toHaveLength(25);
    expect(new Set(lines.map((l) => JSON.parse(l).TransactionId)).size).toBe(25);
    const csv = await cli(['history', '--all', '--csv']);
    const rows = csv.stdout.trim().split('\n');
    expect(rows[0]).toMatch(/^TransactionId,ReferenceId,Status,/);
    expect(rows).toHaveLength(26);
    expect(csv.stdout).toContain('"Putu, ""Ayu"""');
    expect((await cli(['history', '--limit', '50'])).code).toBe(2);
    expect((await cli(['history', '--from', '2026-13-01'])).code).toBe(2);
    expect((await cli(['history', '--csv', '--json'])).code).toBe(2);
    const asc = JSON.parse((await cli(['history', '--order', 'asc', '--limit', '2', '--json'])).stdout);
    expect(asc.transactions.map((t: { TransactionId: number }) => String(t.TransactionId))).toEqual([ids[0], ids[1]]);
    expect((await cli(['history', '--order', 'up'])).code).toBe(2);
    const none = await cli(['history', '--from', '2020-01-01', '--to', '2020-01-02']);
    expect(none.code).toBe(0);
    expect(none.stderr).toContain('no transactions match');
  });

  it('history, balance and channels: --dry-run and --curl print the signed request and send nothing', async () => {
    const cases: [string[], RegExp, string][] = [
      [
        ['history', '--status', 'paid', '--from', '2026-11-01'],
        /\/api\/v2\/history\n/,
        '{"status":1,"date":"created_at","startdate":"2026-11-01","page":1,"limit":20,"orderBy":"id","order":"DESC"}',
      ],
      [['balance'], /\/api\/v2\/balance\n/, `{"account":"…${sb.accounts[0]!.va.slice(-4)}"}`], // the VA masked, as in the va header
      [
        ['channels'],
        /^GET http:\/\/127\.0\.0\.1:\d+\/api\/v2\/payment-channels\n/,
        '# body sha256:   44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a',
      ],
    ];
    for (const [argv, request, body] of cases) {
      const dry = await cli([...argv, '--dry-run']);
      expect(dry.code, dry.stderr).toBe(0);
      expect(dry.stdout).toMatch(request);
      expect(dry.stdout).toContain(body);
      const curl = await cli([...argv, '--curl']);
      expect(curl.code).toBe(0);
      expect(curl.stdout).toMatch(/^BODY=/);
      expect(curl.stdout).not.toContain(sb.accounts[0]!.apiKey!);
    }
  });

  it('balance: available, settling and member; --json', async () => {
    const r = await cli(['balance']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^available\tRp 18\.004$/m); // 10000+10001+10003 paid, minus 3 × 4000
    const j = JSON.parse((await cli(['balance', '--json'])).stdout);
    expect(j).toEqual({ va: sb.accounts[0]!.va, merchantBalance: 18004, memberBalance: 0, unsettledBalance: 0, escrowBalance: 0 });
  });

  it('channels: a table with fees, --method, --legacy, and a cache for pay', async () => {
    const r = await cli(['channels']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^va\tbca\tBCA\tRp 4\.000\tavailable$/m);
    expect(r.stdout).toMatch(/^cc\tcc\tCredit Card\t2\.9% \+ Rp 2\.000\tavailable$/m);
    expect(r.stdout).toMatch(/^cod\trpx\tRPX \(COD\)\t3% \(min Rp 5\.000\)\tavailable$/m);
    const legacy = await cli(['channels', '--legacy', '--method', 'qris', '--json']);
    expect(JSON.parse(legacy.stdout)).toEqual([expect.objectContaining({ method: 'qris', channel: 'mpm', fee: 0.7, feeType: 'PERCENT' })]);
    const dir = join(home.home, '.cache', 'paycli', 'channels');
    expect(existsSync(dir)).toBe(true);
    expect((await cli(['channels', '--method', 'nope'])).code).toBe(2);
  });
});

describe('paycli channels against a gateway without the GET route', () => {
  it('falls back to POST payment-method-list on 404, saying so', async () => {
    const { createServer } = await import('node:http');
    const seen: string[] = [];
    const server = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      req.resume();
      req.on('end', () => {
        if (req.method === 'GET')
          return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"Status":404,"Success":false,"Message":"route not found","Data":null}');
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            Status: 200,
            Success: true,
            Message: 'Success',
            Data: [
              {
                Code: 'va',
                Description: 'Virtual Account',
                Channels: [
                  { Code: 'bri', Description: 'BRI', PaymentIntrucionsDoc: '', TransactionFee: { ActualFee: 3500, ActualFeeType: 'FLAT', AdditionalFee: 0 } },
                ],
              },
            ],
          }),
        );
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const home = tempHome();
    try {
      const port = (server.address() as { port: number }).port;
      const r = await runCli(['channels'], { env: { PAYCLI_ENV: 'local', PAYCLI_BASE_URL: `http://127.0.0.1:${port}/api` }, home: home.home });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain('GET payment-channels answered 404; using POST payment-method-list');
      expect(r.stdout).toMatch(/^va\tbri\tBRI\tRp 3\.500\tavailable$/m);
      expect(seen).toEqual(['GET /api/v2/payment-channels', 'POST /api/v2/payment-method-list']);
    } finally {
      home.cleanup();
      await new Promise((r) => server.close(r));
    }
  });
});

describe("cached channels feed pay's prompt and the completions", () => {
  it('completes the available cached channels of the --method, else the built-in table', async () => {
    const home = tempHome();
    try {
      const env = { XDG_CACHE_HOME: join(home.home, 'cache') };
      const before = await runCli(['__complete', 'channels', '--', 'pay', '--method', 'cstore'], { env, home: home.home });
      expect(before.stdout).toBe('alfamart\nindomaret\n');
      const { writeChannelCache, channelCacheFile } = await import('../../src/core/api/channel-cache.js');
      const row = {
        method: 'cstore',
        methodName: 'Convenience Store',
        name: 'Alfamart',
        feeType: 'FLAT',
        fee: 5000,
        additionalFee: 0,
        status: 'active',
        health: 'online',
      };
      await writeChannelCache(
        channelCacheFile(join(home.home, 'cache', 'paycli'), 'sandbox', 'https://sandbox.ipaymu.com/api'),
        [
          { ...row, channel: 'alfamart' },
          { ...row, channel: 'indomaret', name: 'Indomaret', health: 'offline' },
        ],
        new Date(),
      );
      const after = await runCli(['__complete', 'channels', '--', 'pay', '--method', 'cstore'], { env, home: home.home });
      expect(after.stdout).toBe('alfamart\n');
    } finally {
      home.cleanup();
    }
  });

  it("pay's channel prompt lists cached channels with fees, and the table without a cache", async () => {
    const { channelChoices } = await import('../../src/cli/channel-choices.js');
    const { writeChannelCache, channelCacheFile } = await import('../../src/core/api/channel-cache.js');
    const home = tempHome();
    try {
      const ctx = { env: { XDG_CACHE_HOME: join(home.home, 'c') }, homedir: home.home };
      const session = { config: async () => ({ env: { value: 'local' }, baseUrl: { value: 'http://127.0.0.1:4010/api' } }) };
      const env = { ctx, session } as unknown as Parameters<typeof channelChoices>[0];
      expect((await channelChoices(env, 'ewallet')).map((c) => c.name)).toEqual(['dana — DANA', 'shopeepay — ShopeePay']);
      const row = { method: 'ewallet', methodName: 'E-Wallet', feeType: 'PERCENT', fee: 1.5, additionalFee: 0, status: 'active', health: 'online' };
      await writeChannelCache(
        channelCacheFile(join(home.home, 'c', 'paycli'), 'local', 'http://127.0.0.1:4010/api'),
        [
          { ...row, channel: 'dana', name: 'DANA' },
          { ...row, channel: 'shopeepay', name: 'ShopeePay', status: 'inactive' },
          { ...row, channel: 'ovo', name: 'OVO' },
        ],
        new Date(),
      );
      expect(await channelChoices(env, 'ewallet')).toEqual([{ value: 'dana', name: 'dana — DANA · fee 1.5%' }]);
    } finally {
      home.cleanup();
    }
  });
});
