import { expect, it } from 'vitest';
import { payVa } from '../helpers/argv.js';
import { runCli } from '../helpers/cli.js';
import { localEnv } from '../helpers/sandbox.js';
import { type Terminal, terminalSuite } from '../helpers/tmux.js';

// Second review, item 4: at 80 columns an error line and a prompt's validation message wrap at
// spaces (never `Rupiah ar` / `e whole numbers`, never inside an amount); piped, one line.

const suite = terminalSuite(80);
const { run, term } = suite;

/** The rows of the screen as the terminal shows them (not joined), without trailing blanks. */
async function rows(t: Terminal): Promise<string[]> {
  return (await t.screen(false)).split('\n').map((l) => l.trimEnd());
}

/** Every row break inside `text` falls at a space: the rows, re-joined at one space, contain it whole. */
function brokenAtSpaces(screenRows: string[], text: string): void {
  const joined = screenRows.map((l) => l.trim()).join(' ');
  expect(joined, screenRows.join('\n')).toContain(text);
}

const HOW = 'Rupiah are whole numbers: write 25000, 25.000 or Rp 25.000 (dots group thousands; there are no decimals)';

run('error and prompt text at 80 columns (tmux)', () => {
  it('an error line wraps at spaces; piped it is one line', async () => {
    const t = await term(`pay --method va --channel bca --name Putu --phone 08123456789 --email p@mail.com --notify-url http://127.0.0.1:9/cb --item K:1:2.50`);
    expect(await t.exitCode()).toBe(2);
    const screen = await rows(t);
    const at = screen.findIndex((l) => l.startsWith('error: '));
    expect(at, screen.join('\n')).toBeGreaterThanOrEqual(0);
    const end = screen.findIndex((l, i) => i > at && l.startsWith('hint: '));
    const error = screen.slice(at, end < 0 ? screen.indexOf('', at) : end);
    expect(error.length).toBeGreaterThan(1);
    for (const l of error) expect([...l].length).toBeLessThanOrEqual(80);
    brokenAtSpaces(error, `a fractional amount; ${HOW}`);
    expect(screen.join('\n')).not.toMatch(/Rupiah ar\n|Rp\n|25\.\n/);
    const piped = await runCli([...payVa({ name: 'Putu', email: 'p@mail.com' }), '--notify-url', 'http://127.0.0.1:9/cb', '--item', 'K:1:2.50'], {
      env: localEnv(suite.sb),
      home: suite.home.home,
    });
    expect(piped.stderr.split('\n')[0]).toMatch(new RegExp(`^error: .*${HOW.replace(/[().;]/g, '\\$&')}$`));
  });

  it("the price prompt's validation message wraps at spaces", async () => {
    const t = await term('pay --method va --channel bca --name Putu --phone 08123456789 --email p@mail.com --notify-url http://127.0.0.1:9/cb');
    await t.answer(/Product/, 'Kopi');
    await t.answer(/Quantity/);
    await t.answer(/Unit price/, '2.50');
    await t.waitFor(/decimals\)/);
    const screen = await rows(t);
    const at = screen.findIndex((l) => l.includes('> invalid price'));
    expect(at, screen.join('\n')).toBeGreaterThanOrEqual(0);
    const message = screen.slice(at, at + 3).filter((l) => l !== '');
    expect(message.length).toBeGreaterThan(1);
    for (const l of message) expect([...l].length).toBeLessThanOrEqual(80);
    brokenAtSpaces(message, HOW);
    expect(screen.join('\n')).not.toMatch(/Rupiah ar\n|Rp\n|25\.\n/);
    await t.keys('C-c');
    expect(await t.exitCode()).toBe(130);
  });
});
