import { allTxns } from '../helpers/sandbox.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { terminalSuite } from '../helpers/tmux.js';
import { decodeQrOnScreen } from '../helpers/screen-qr.js';

const suite = terminalSuite();
const { run, term } = suite;

run('prompts in a real terminal (tmux)', () => {
  it('pay asks for the method, then only its channels, then the buyer and an item', async () => {
    const t = await term('pay --notify-url http://127.0.0.1:9/cb --reference-id TTY-1');
    await t.waitFor(/Payment method/);
    await t.keys('Enter'); // va, the first
    const channels = await t.waitFor(/Channel for va/);
    expect(channels).toContain('bag');
    expect(channels).not.toContain('alfamart');
    await t.keys('Down', 'Enter'); // bca
    await t.answer(/Buyer name/, 'Putu Ayu');
    await t.answer(/Buyer phone/, '12');
    await t.waitFor(/expected an Indonesian mobile number/); // validated as it is typed
    await t.keys('BSpace', 'BSpace');
    await t.type('08123456789');
    await t.keys('Enter');
    await t.answer(/Buyer e-mail/, 'putu@mail.com');
    await t.answer(/Product/, 'Kopi');
    await t.answer(/Quantity/);
    await t.answer(/Unit price/, '25000');
    const screen = await t.waitFor(/payment created/);
    expect(screen).toMatch(/8868\d{12}/);
    expect(screen).toContain('Rp 25.000');
    expect(await t.exitCode()).toBe(0);
    const txn = allTxns(suite.sb.state).find((x) => x.referenceId === 'TTY-1')!;
    expect(txn).toMatchObject({ via: 'va', channel: 'bca', amount: 25000, buyer: { name: 'Putu Ayu', phone: '08123456789' } });
  });

  it('draws the QRIS code in the terminal, and it reads back as the payload', async () => {
    const t = await term('pay --method qris --name A --phone 08123456789 --email a@b.co --item Tiket:1:102000 --notify-url http://127.0.0.1:9/');
    const screen = await t.waitFor(/QRIS payload  000201/);
    expect(screen).toContain('fee Rp 714');
    expect(await t.exitCode()).toBe(0);
    const payload = /QRIS payload  (.+?)\s*$/m.exec(await t.screen())![1]!;
    // What the terminal shows, colours included (capture-pane -e), decoded as a scanner would.
    const shown = await t.screen(false, true);
    expect(shown).not.toContain('\\e['); // no colour code shown as text
    expect(decodeQrOnScreen(shown)).toBe(payload);
  });

  it('areas pick walks the cascade with type-to-filter lists', async () => {
    const t = await term('areas pick --no-cache');
    await t.waitFor(/Province/);
    await t.type('BALI');
    await t.answer(/BALI \(51\)/);
    await t.waitFor(/City/);
    await t.type('KOTA');
    await t.answer(/KOTA DENPASAR \(5171\)/);
    await t.answer(/District/, 'SELATAN');
    await t.answer(/Village/, 'SERANGAN');
    const screen = await t.waitFor(/village\s+5171011001\s+SERANGAN/);
    expect(screen).toMatch(/province\s+51\s+BALI/);
    expect(screen).toMatch(/city\s+5171\s+KOTA DENPASAR/);
    expect(screen).toMatch(/district\s+517101\s+DENPASAR SELATAN/);
    expect(await t.exitCode()).toBe(0);
  });

  it('config init hides the API key as it is typed', async () => {
    const t = await term('config init', { PAYCLI_ENV: '', PAYCLI_BASE_URL: '' });
    await t.answer(/Environment/);
    await t.answer(/Merchant VA/, '1179000899');
    await t.waitFor(/API key/);
    await t.type('TERMINAL-SECRET-KEY-123456');
    const typing = await t.screen();
    expect(typing).not.toContain('TERMINAL-SECRET-KEY-123456');
    await t.keys('Enter');
    const done = await t.waitFor(/saved profile "default"/);
    expect(done).not.toContain('TERMINAL-SECRET-KEY-123456');
    expect(await t.exitCode()).toBe(0);
    const cfg = JSON.parse(readFileSync(join(suite.home.home, '.config', 'paycli', 'config.json'), 'utf8'));
    expect(cfg.profiles.default).toMatchObject({ env: 'sandbox', va: '1179000899', apiKey: 'TERMINAL-SECRET-KEY-123456' });
  });

  it('asks before a production payment and sends nothing when declined', async () => {
    const before = suite.sb.state.count();
    const t = await term('pay --method va --channel bca --name A --phone 08123456789 --email a@b.co --item A:1:1000 --notify-url http://127.0.0.1:9/', {
      PAYCLI_ENV: 'production',
      PAYCLI_VA: '1179000899',
      PAYCLI_API_KEY: 'SANDBOX-PAYCLI-LOCAL-0000-KEY',
    });
    const prompt = await t.waitFor(/PRODUCTION: Rp 1\.000 by va\/bca for VA …0899\. Send it\?/);
    expect(prompt).not.toContain('SANDBOX-PAYCLI-LOCAL-0000-KEY');
    await t.type('n');
    await t.keys('Enter');
    await t.waitFor(/cancelled: nothing was sent/);
    expect(await t.exitCode()).toBe(2);
    expect(suite.sb.state.count()).toBe(before);
  });
});
