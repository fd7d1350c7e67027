import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { payVa } from '../helpers/argv.js';
import { runCli } from '../helpers/cli.js';
import { localEnv } from '../helpers/sandbox.js';
import { terminalSuite } from '../helpers/tmux.js';

// Issue 19 items 4, 5 and 8 in a real terminal (tmux): events list, the sandbox and listen banners
// fit 80 columns and say their times are WIB; Ctrl-C stops `transaction --wait` at once.

const suite = terminalSuite(80);
const { run, term } = suite;

/** capture-pane -J joins wrapped lines, so a line wider than the pane shows up as a longer line. */
function fits(screen: string): void {
  const long = screen.split('\n').filter((l) => [...l].length > 80);
  expect(long, long.join('\n')).toEqual([]);
}

run('80 columns and WIB (tmux)', () => {
  it('events list fits, with amounts and times whole', async () => {
    const store = join(suite.home.home, 'events.jsonl');
    const body = 'trx_id=1000001&status=berhasil&status_code=1&sid=x&reference_id=R&amount=1500000&via=va&channel=bca';
    const event = (i: number, verdict: string, duplicate: boolean) =>
      JSON.stringify({
        id: `evt_mwr4960kc75119000${i}`,
        receivedAt: '2026-11-22T00:46:17.000Z',
        source: 'listen',
        method: 'POST',
        path: '/',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body,
        verdict,
        variant: null,
        reason: verdict === 'valid' ? null : 'signed with the API key as the secret',
        duplicate,
        trx_id: '1000001',
        status: 'berhasil',
        answer: verdict === 'valid' ? 200 : 401,
      });
    mkdirSync(suite.home.home, { recursive: true });
    writeFileSync(store, [event(1, 'valid', false), event(2, 'invalid', true), event(3, 'valid-variant', false)].join('\n') + '\n');
    const t = await term(`events list --store ${store}`);
    expect(await t.exitCode()).toBe(0);
    const screen = await t.screen();
    fits(screen);
    expect(screen).toMatch(/TIME \(WIB\)/);
    expect(screen).toContain('11-22 07:46'); // 00:46 UTC is 07:46 WIB
    expect(screen).toContain('Rp 1.500.000');
    expect(screen).toMatch(/evt_mwr4960kc751190002 .*invalid\s+401 dup/); // the last column wraps, never a number
    // A pipe gets every column, tab-separated, the time in full (WIB).
    const piped = await runCli(['events', 'list', '--store', store], { home: suite.home.home });
    expect(piped.stdout.split('\n')[0]).toBe('evt_mwr4960kc751190001\t2026-11-22 07:46:17\tlisten\t1000001\tberhasil\tRp 1.500.000\tvalid\t\t200');
  });

  it('the sandbox and listen banners fit and say the times are WIB', async () => {
    const sandboxTerm = await term(
      `sandbox --port 0 --data-dir ${join(suite.home.home, 'a-rather-long-data-directory-name-for-the-emulator-state-under-home')}`,
    );
    const s = await sandboxTerm.waitFor(/Ctrl-C to stop/);
    fits(s);
    expect(s).toContain('log times  WIB (Asia/Jakarta)');
    await sandboxTerm.keys('C-c');
    expect(await sandboxTerm.exitCode()).toBe(130);
    const listenTerm = await term('listen --port 0 --no-persist --va 1179000899');
    const l = await listenTerm.waitFor(/Ctrl-C to stop/);
    fits(l);
    expect(l).toContain('Times are WIB (Asia/Jakarta)');
    await listenTerm.keys('C-c');
    expect(await listenTerm.exitCode()).toBe(130);
  });

  it('Ctrl-C stops transaction --wait at once under the spinner (exit 130)', async () => {
    const made = await runCli([...payVa(), '--item', 'Kopi:1:10000', '--notify-url', 'http://127.0.0.1:9/cb', '--json'], {
      home: suite.home.home,
      env: localEnv(suite.sb),
    });
    expect(made.code, made.stderr).toBe(0);
    const id = String(JSON.parse(made.stdout).TransactionId);
    const t = await term(`transaction ${id} --wait --interval 1m --timeout 1h`);
    await t.waitFor(/transaction \d+: pending/); // the first check answered: Ctrl-C now interrupts the wait, not that request
    await t.keys('C-c');
    // Ctrl-C ended the wait (--interval 1m, --timeout 1h: nothing else ends it with 130).
    expect(await t.exitCode()).toBe(130);
    const screen = await t.screen();
    expect(screen).toMatch(/· pending/);
    expect(screen).not.toMatch(/internal error|report it/);
  });

  it('Ctrl-C stops test-handler at once while a check waits for the handler (exit 130)', async () => {
    const { createServer } = await import('node:http');
    const held: import('node:http').ServerResponse[] = [];
    let hits = 0;
    const hanging = createServer((_req, res) => {
      hits++;
      held.push(res); // never answers
    });
    await new Promise<void>((r) => hanging.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(hanging.address() as import('node:net').AddressInfo).port}/cb`;
      const t = await term(`test-handler ${url} --deadline 1m --va 1179000899`);
      const until = Date.now() + 10_000;
      while (hits === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
      expect(hits).toBe(1);
      await t.keys('C-c');
      expect(await t.exitCode()).toBe(130);
      // Ended during the first check, not after its 1 min deadline: no next check was sent.
      expect(hits).toBe(1);
      expect(await t.screen()).not.toMatch(/internal error|report it/);
    } finally {
      for (const res of held) res.destroy();
      hanging.closeAllConnections();
      await new Promise((r) => hanging.close(r));
    }
  });
});
