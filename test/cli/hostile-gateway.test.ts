import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fitLineTo, terminalSafe, visibleLength } from '../../src/cli/layout.js';
import { checkBalanceData, checkChannelsData, checkHistoryData, checkTransactionData } from '../../src/core/api/merchant.js';
import { REDIRECT_KAOS } from '../helpers/argv.js';
import { runCli, tempHome } from '../helpers/cli.js';
import { EMULATOR_DEFAULT_API_KEY, EMULATOR_DEFAULT_VA, sandbox, localEnv } from '../helpers/sandbox.js';

// Issue 13 items 9, 18, 19: a gateway (or anything answering in its place) that sends terminal
// control sequences, or answers that are not the endpoint's envelope; and the VA in human output.

/** An OSC retitle, a screen clear, an 8-bit CSI, a bidi override and a BEL. */
const HOSTILE = '\u001b]0;owned\u0007X\u001b[2J\u009b31mY\u202eZ';
const SHOWN = '\\e]0;owned\\x07X\\e[2J\\x9b31mY\\u202eZ';
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028-\u202e\u2066-\u2069]/;

const envelope = (data: unknown) => JSON.stringify({ Status: 200, Success: true, Message: 'Success', Data: data });

describe('control characters from the gateway never reach the terminal', () => {
  let server: Server;
  let base: string;
  const answers = new Map<string, string>();
  const home = tempHome();
  beforeAll(async () => {
    server = createServer((req, r) => {
      req.resume();
      req.on('end', () => {
        const path = new URL(req.url ?? '/', 'http://x').pathname.replace(/^\/api\//, '');
        r.writeHead(200, { 'content-type': 'application/json' }).end(answers.get(path) ?? envelope(null));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
    answers.set('areas/province', envelope([{ code: '51', name: HOSTILE }]));
    answers.set(
      'v2/history',
      envelope({
        Transaction: [{ TransactionId: 7, Status: 1, ReferenceId: HOSTILE, PaymentChannel: HOSTILE, CreatedDate: '2026-11-20 10:00:00', Amount: 1000 }],
        Pagination: { total: 1, count: 1, per_page: 20, current_page: 1, total_pages: 1 },
      }),
    );
    answers.set(
      'v2/payment-channels',
      envelope([
        {
          Code: 'va',
          Name: HOSTILE,
          Channels: [{ Code: 'bca', Name: HOSTILE, FeatureStatus: HOSTILE, TransactionFee: { ActualFee: 4000, ActualFeeType: 'FLAT' } }],
        },
      ]),
    );
    answers.set('v2/balance', envelope({ Va: '1179000899', MerchantBalance: 1000, MemberBalance: 0 }));
    answers.set(
      'v2/transaction',
      envelope({ TransactionId: 7, Status: 2, StatusDesc: HOSTILE, ReferenceId: HOSTILE, BuyerName: HOSTILE, Via: HOSTILE, Amount: 1000 }),
    );
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
    home.cleanup();
  });
  const env = (extra: Record<string, string> = {}) => ({
    PAYCLI_BASE_URL: base,
    PAYCLI_VA: '1179000899',
    PAYCLI_API_KEY: 'SANDBOX-PAYCLI-LOCAL-0000-KEY',
    ...extra,
  });

  const commands: string[][] = [['areas', 'province', '--no-cache'], ['history'], ['channels'], ['transaction', '7']];
  for (const tty of [false, true]) {
    it(`escapes them in tables and lines (${tty ? 'terminal' : 'pipe'})`, async () => {
      for (const argv of commands) {
        const r = await runCli(argv, { env: env(tty ? { FORCE_COLOR: '1' } : {}), home: home.home, tty });
        expect(r.code, argv.join(' ')).toBe(0);
        // On a terminal, paycli's own colours are the only escape sequences (the spinner writes none off a real TTY).
        const own = (t: string) => t.replace(/\u001b\[(1|2|22|31|32|33|36|39)m/g, '');
        expect(own(r.stdout), argv.join(' ')).not.toMatch(RAW_CONTROL);
        expect(own(r.stderr), argv.join(' ')).not.toMatch(RAW_CONTROL);
        expect(own(r.stdout), argv.join(' ')).toContain('X\\e[2J');
      }
    });
  }

  it("keeps paycli's own colours on a colored terminal, and nothing else", () => {
    expect(terminalSafe('\u001b[32mvalid\u001b[39m', true)).toBe('\u001b[32mvalid\u001b[39m');
    expect(terminalSafe('\u001b[32mvalid\u001b[39m', false)).toBe('\\e[32mvalid\\e[39m');
    expect(terminalSafe('\u001b[8mhidden\u001b[2J', true)).toBe('\\e[8mhidden\\e[2J');
    expect(terminalSafe('a\nb\tc\rd', true)).toBe('a\nb\tc\\rd');
  });

  it('wraps a line by the width of its escaped text', () => {
    const lines = fitLineTo(40, '  buyer    ', `${'\u001b[2J'.repeat(5)} Putu Ayu ${'\u009b'.repeat(8)} putu@mail.com`).split('\n');
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines) expect(visibleLength(line)).toBeLessThanOrEqual(40);
    expect(lines.join('')).not.toMatch(RAW_CONTROL);
  });

  it('--json keeps the text as received', async () => {
    const r = await runCli(['areas', 'province', '--no-cache', '--json'], { env: env(), home: home.home });
    expect(JSON.parse(r.stdout)).toEqual([{ code: '51', name: HOSTILE }]);
  });

  it("escapes the gateway's Message and field errors in an error, which stays one line", async () => {
    answers.set('v2/balance', JSON.stringify({ Status: 400, Success: false, Message: `${HOSTILE}\nline two`, Error: { [HOSTILE]: [HOSTILE] }, Data: null }));
    try {
      const r = await runCli(['balance'], { env: env(), home: home.home });
      expect(r.code).toBe(3);
      expect(r.stderr).not.toMatch(RAW_CONTROL);
      // One error line (and paycli's hint), however many line breaks the gateway sent.
      expect(
        r.stderr
          .trimEnd()
          .split('\n')
          .map((l) => l.split(':')[0]),
      ).toEqual(['error', 'hint']);
      expect(r.stderr).toContain(`error: the gateway answered 400: "${SHOWN}\\nline two"`);
    } finally {
      answers.set('v2/balance', envelope({ Va: '1179000899', MerchantBalance: 1000, MemberBalance: 0 }));
    }
  });

  it('region names are escaped in tables and cached as received', async () => {
    const r = await runCli(['areas', 'province', '--no-cache'], { env: env(), home: home.home });
    expect(r.stdout).toBe(`51\t${SHOWN}\n`);
    const dir = join(home.home, '.cache', 'paycli', 'areas');
    const cached = readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((d) => d.isFile())
      .map((d) => readFileSync(join(d.parentPath, d.name), 'utf8'));
    expect(cached.some((text) => text.includes(JSON.stringify(HOSTILE).slice(1, -1)))).toBe(true);
  });

  it('history --csv: as received to a pipe or file, escaped on a terminal', async () => {
    const piped = await runCli(['history', '--csv'], { env: env(), home: home.home });
    expect(piped.code).toBe(0);
    expect(piped.stdout.split('\n')[1]).toContain(HOSTILE);
    const shown = await runCli(['history', '--csv'], { env: env(), home: home.home, tty: true });
    expect(shown.stdout).not.toMatch(RAW_CONTROL);
    expect(shown.stdout).toContain(SHOWN);
  });
});

describe("answers that are not the endpoint's envelope are exit 5", () => {
  let server: Server;
  let base: string;
  let answer = '';
  const home = tempHome();
  beforeAll(async () => {
    server = createServer((req, r) => {
      req.resume();
      req.on('end', () => r.writeHead(200, { 'content-type': 'application/json' }).end(answer));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
    home.cleanup();
  });
  const env = { PAYCLI_BASE_URL: '', PAYCLI_VA: '1179000899', PAYCLI_API_KEY: 'SANDBOX-PAYCLI-LOCAL-0000-KEY' };

  const bad = ['{"Status":200,"Data":null}', '{"Status":200,"Success":true,"Data":{"weird":1}}', '{"Status":200,"Data":"str"}'];
  const commands: [string[], string][] = [
    [['transaction', '7'], 'v2/transaction'],
    [['balance'], 'v2/balance'],
    [['history'], 'v2/history'],
    [['channels'], 'v2/payment-channels'],
    [['areas', 'province', '--no-cache'], 'areas/province'],
    [['pay', '--redirect', ...REDIRECT_KAOS], 'v2/payment'],
  ];
  it('says "malformed response" with the HTTP status and an excerpt', async () => {
    for (const text of bad) {
      answer = text;
      for (const [argv, path] of commands) {
        const r = await runCli(argv, { env: { ...env, PAYCLI_BASE_URL: base }, home: home.home });
        const what = `${argv.join(' ')} ← ${text}`;
        expect(r.code, what).toBe(5);
        expect(r.stdout, what).toBe('');
        expect(
          r.stderr.split('\n').find((l) => l.startsWith('error: ')),
          what,
        ).toMatch(
          new RegExp(`^error: malformed response from ${base.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}/${path}: HTTP 200 with .+: "\\{\\\\"Status\\\\":200`),
        );
      }
    }
  });

  it('an empty region list is still "no provinces", exit 0', async () => {
    answer = envelope([]);
    const r = await runCli(['areas', 'province', '--no-cache'], { env: { ...env, PAYCLI_BASE_URL: base }, home: home.home });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('no provinces');
  });

  it('the checks accept every shape the readers read', () => {
    expect(checkTransactionData({ TransactionId: '7', Status: '-2' })).toBeUndefined();
    expect(checkTransactionData({ TransactionId: 7 })).toBe('has no integer Status');
    expect(checkHistoryData({ Transaction: [], Pagination: { total: 0 } })).toBeUndefined();
    expect(checkHistoryData({ Transaction: null, Pagination: { total: 0 } })).toBeUndefined();
    expect(checkHistoryData({ Results: [{ TransactionId: 1, Status: 1 }], Total: 1 })).toBeUndefined();
    expect(checkHistoryData({ Results: [{ TransactionId: 1 }] })).toBe('has a transaction that has no integer Status (item 1)');
    expect(checkBalanceData({ Va: '1', MerchantBalance: '1000', MemberBalance: '0' })).toBeUndefined();
    expect(checkBalanceData({ MerchantBalance: 'lots' })).toBe('has no numeric MerchantBalance');
    expect(checkChannelsData([])).toBeUndefined();
    expect(checkChannelsData([{ Code: 'va', PaymentMethod: [{ Code: 'bca' }] }])).toBeUndefined();
    expect(checkChannelsData([{ Code: 'va' }])).toBe('has a method without a list of channels (va)');
  });
});

describe('the VA is masked in human output and request previews', () => {
  it('balance, balance --dry-run and balance --curl (which still works)', async () => {
    const sb = await sandbox();
    const home = tempHome();
    try {
      const env = localEnv(sb);
      const va = EMULATOR_DEFAULT_VA;
      const r = await runCli(['balance'], { env, home: home.home });
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`balance of VA …${va.slice(-4)}`);
      expect(r.stdout).not.toContain(va);
      const json = await runCli(['balance', '--json'], { env, home: home.home });
      expect(JSON.parse(json.stdout).va).toBe(va); // the user's own result, for scripts
      const dry = await runCli(['balance', '--dry-run'], { env, home: home.home });
      expect(dry.code).toBe(0);
      expect(dry.stdout).toContain(`{"account":"…${va.slice(-4)}"}`);
      expect(dry.stdout + dry.stderr).not.toContain(va);
      const dryJson = await runCli(['balance', '--dry-run', '--json'], { env, home: home.home });
      expect(dryJson.stdout).not.toContain(va);
      const curl = await runCli(['balance', '--curl'], { env, home: home.home });
      expect(curl.stdout).not.toContain(va);
      // The in-process emulator answers, so the shell runs asynchronously.
      const { stdout } = await promisify(execFile)('bash', ['-c', curl.stdout], {
        env: { PATH: process.env.PATH, PAYCLI_VA: va, PAYCLI_API_KEY: EMULATOR_DEFAULT_API_KEY },
        encoding: 'utf8',
        timeout: 10_000,
      });
      const answer = JSON.parse(stdout);
      expect(answer).toMatchObject({ Status: 200, Success: true, Data: { MerchantBalance: expect.any(Number) } });
    } finally {
      home.cleanup();
      await sb.close();
    }
  });
});
