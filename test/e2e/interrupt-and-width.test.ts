import { allTxns } from '../helpers/sandbox.js';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { payVa } from '../helpers/argv.js';
import { runCli } from '../helpers/cli.js';
import { terminalSuite } from '../helpers/tmux.js';

// Issue 19 items 4 and 5, in a real terminal (tmux): Ctrl-C at a prompt or during a request is
// exit 130 without "internal error"; human output fits 80 columns.

const suite = terminalSuite();
const { run, term } = suite;
let hanging: Server;
let hangingUrl: string;
const held: ServerResponse[] = [];
let hits = 0;

beforeAll(async () => {
  hanging = createServer((req, res) => {
    hits++;
    req.resume();
    held.push(res); // never answered: the request is in flight until the client gives up
  });
  await new Promise<void>((r) => hanging.listen(0, '127.0.0.1', r));
  hangingUrl = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}/api`;
});
afterAll(async () => {
  for (const res of held) res.destroy();
  hanging.closeAllConnections();
  await new Promise((r) => hanging.close(r));
});

const NO_APOLOGY = /internal error|report it|at .*\.js:\d+/;

run('Ctrl-C (tmux)', () => {
  it('at the pay prompts: exit 130, no internal error', async () => {
    const t = await term('pay --notify-url http://127.0.0.1:9/cb');
    await t.waitFor(/Payment method/);
    await t.keys('C-c');
    expect(await t.exitCode()).toBe(130);
    expect(await t.screen()).not.toMatch(NO_APOLOGY);
  });

  it('at areas pick, config init and the production confirmation', async () => {
    const before = suite.sb.state.count();
    for (const [args, prompt, env] of [
      ['areas pick --no-cache', /Province/, {}],
      ['config init', /Environment/, { PAYCLI_ENV: '', PAYCLI_BASE_URL: '' }],
      [
        'pay --method va --channel bca --name A --phone 08123456789 --email a@b.co --item A:1:1000 --notify-url http://127.0.0.1:9/',
        /Send it\?/,
        { PAYCLI_ENV: 'production', PAYCLI_VA: '1179000899', PAYCLI_API_KEY: 'SANDBOX-PAYCLI-LOCAL-0000-KEY' },
      ],
    ] as const) {
      const t = await term(args, env);
      await t.waitFor(prompt);
      await t.keys('C-c');
      expect(await t.exitCode(), args).toBe(130);
      expect(await t.screen()).not.toMatch(NO_APOLOGY);
    }
    expect(suite.sb.state.count()).toBe(before);
  });

  it('aborts an in-flight payment at once and says how to check whether it was created', async () => {
    const before = hits;
    const t = await term(
      'pay --method va --channel bca --name A --phone 08123456789 --email a@b.co --item A:1:1000 --notify-url http://127.0.0.1:9/ --reference-id CTRL-C-1 --timeout 60000',
      {
        PAYCLI_ENV: 'sandbox',
        PAYCLI_BASE_URL: hangingUrl,
        PAYCLI_VA: '1179000899',
        PAYCLI_API_KEY: 'SANDBOX-PAYCLI-LOCAL-0000-KEY',
      },
    );
    await t.waitFor(/creating va\/bca payment/);
    const until = Date.now() + 5000;
    while (hits === before && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    expect(hits).toBe(before + 1);
    await t.keys('C-c');
    // Aborted, not timed out (a timeout is exit 5), and the payment POST was sent once.
    expect(await t.exitCode()).toBe(130);
    expect(hits).toBe(before + 1);
    const screen = await t.screen();
    expect(screen).toContain('interrupted');
    expect(screen).toMatch(/the payment may have been created: look for reference CTRL-C-1 in\s+`paycli history --from \d{4}-\d{2}-\d{2}`/);
    expect(screen).not.toMatch(NO_APOLOGY);
  });

  it('aborts an in-flight lookup', async () => {
    const t = await term('areas province --no-cache --timeout 60000', {
      PAYCLI_ENV: 'sandbox',
      PAYCLI_BASE_URL: hangingUrl,
      PAYCLI_VA: '1179000899',
      PAYCLI_API_KEY: 'K-1234567890',
    });
    await t.waitFor(/GET areas\/province/);
    await t.keys('C-c');
    expect(await t.exitCode()).toBe(130);
    expect(await t.screen()).not.toMatch(NO_APOLOGY);
  });
});

run('the price prompt reads Rupiah as Indonesians write them (tmux)', () => {
  it('25.000 typed at the prompt is twenty-five thousand; 25,50 is refused as it is typed', async () => {
    const t = await term(
      'pay --method va --channel bca --name A --phone 08123456789 --email a@b.co --notify-url http://127.0.0.1:9/cb --reference-id PROMPT-25K',
    );
    await t.answer(/Product/, 'Kopi');
    await t.answer(/Quantity/, '2');
    await t.answer(/Unit price/, '25,50');
    await t.waitFor(/a fractional amount; Rupiah are whole numbers/);
    for (let i = 0; i < 5; i++) await t.keys('BSpace');
    await t.type('Rp 25.000');
    await t.keys('Enter');
    const screen = await t.waitFor(/payment created/);
    expect(screen).toMatch(/total +Rp 50\.000/); // 2 × Rp 25.000
    expect(await t.exitCode()).toBe(0);
    const txn = allTxns(suite.sb.state).find((x) => x.referenceId === 'PROMPT-25K')!;
    expect(txn.amount).toBe(50000);
  });
});

run('80 columns (tmux)', () => {
  const fits = (screen: string) => {
    // capture-pane -J joins wrapped lines, so a line wider than the pane shows up as a longer line.
    const long = screen.split('\n').filter((l) => [...l].length > 80);
    expect(long, long.join('\n')).toEqual([]);
  };

  it('doctor, whoami, config list and config profiles fit', async () => {
    await runCli(['config', 'init', '--env', 'local', '--va', '1179000899', '--api-key', 'SANDBOX-PAYCLI-LOCAL-0000-KEY'], { home: suite.home.home });
    for (const args of ['doctor --offline', 'whoami', 'config list --show-origin', 'config profiles']) {
      const t = await term(args, {}, 80);
      await t.exitCode();
      fits(await t.screen());
    }
  });

  it('demo fits', async () => {
    const t = await term('demo', {}, 80);
    expect(await t.exitCode()).toBe(0);
    const screen = await t.screen();
    fits(screen);
    expect(screen).toContain('all 12 steps passed');
    expect(screen).toMatch(/total Rp 175\.000/);
  });

  it('sandbox list fits, with amounts whole', async () => {
    for (let i = 0; i < 3; i++) {
      const r = await runCli(
        [
          ...payVa(),
          '--item',
          'Kopi:1:1.025.000',
          '--notify-url',
          'http://127.0.0.1:9/cb',
          '--reference-id',
          `A-VERY-LONG-REFERENCE-ID-FOR-ORDER-${i}-FROM-THE-SHOP`,
          '--json',
        ],
        { home: suite.home.home, env: { PAYCLI_ENV: 'local', PAYCLI_BASE_URL: suite.sb.apiUrl } },
      );
      expect(r.code, r.stderr).toBe(0);
    }
    const t = await term(`sandbox list --sandbox-url ${suite.sb.apiUrl.replace(/\/api$/, '')}`, {}, 80);
    expect(await t.exitCode()).toBe(0);
    const screen = await t.screen();
    fits(screen);
    expect(screen).toContain('Rp 1.025.000');
  });
});
