import { describe, expect, it } from 'vitest';
import { table, visibleLength } from '../../src/cli/layout.js';
import { Output } from '../../src/cli/output.js';
import { runCli, testContext } from '../helpers/cli.js';

// Second review: a number in a column of mixed cells is never cut (table), and error lines wrap at
// spaces on a terminal (never inside a word or an amount) and stay one line off a terminal.

const QRIS =
  '00020101021226670016COM.NOBUBANK.WWW01189360050300000898240214350521028703300303UMI51440014ID.CO.QRIS.WWW0215ID20232822584560303UMI520454995303360540410005802ID5914paycli sandbox6007Denpasar61051234562070703A0163041D6F';

describe('table: numbers in a mixed column', () => {
  const header = ['ID', 'STATUS', 'METHOD', 'AMOUNT', 'PAYMENT NO', 'REFERENCE', 'CALLBACKS'];
  const rows = [
    ['100001', 'pending', 'va/bca', 'Rp 10.000', '8868000000100001', 'ORD-1', '-'],
    ['100002', 'pending', 'qris/mpm', 'Rp 10.000', QRIS, 'ORD-2', '-'],
  ];

  it('keeps the VA number whole next to a QRIS string and shortens the string instead', () => {
    for (const width of [100, 80, 74]) {
      const text = table(rows, header, undefined, { width });
      for (const line of text.split('\n')) expect(visibleLength(line), line).toBeLessThanOrEqual(width);
      expect(text).toContain('8868000000100001');
      expect(text).not.toContain('88680000001…');
      expect(text).toMatch(/00020101021\S*…/);
      expect(text).toContain('Rp 10.000');
    }
  });
});

describe('error lines and the terminal width', () => {
  const message = /Rupiah are whole numbers/;
  it('wraps at spaces on an 80-column terminal, never inside a word or an amount', async () => {
    const r = await runCli(['pay', '--item', 'K:1:2.50', '--no-color'], { tty: true, env: { PAYCLI_ENV: 'sandbox' } });
    expect(r.code).toBe(2);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines) expect([...line].length, line).toBeLessThanOrEqual(80);
    // Joining the lines at one space gives the one-line message back: every break was at a space.
    const error = lines
      .filter((l) => !l.startsWith('hint: '))
      .map((l, i) => (i === 0 ? l : l.trimStart()))
      .join(' ');
    const piped = await runCli(['pay', '--item', 'K:1:2.50'], { env: { PAYCLI_ENV: 'sandbox' } });
    expect(error).toBe(piped.stderr.split('\n')[0]);
    expect(r.stderr).not.toMatch(/Rupiah ar\n|Rp\n/);
  });

  it('is one line per message off a terminal', async () => {
    const r = await runCli(['pay', '--item', 'K:1:2.50'], { env: { PAYCLI_ENV: 'sandbox' } });
    expect(r.code).toBe(2);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines[0]).toMatch(message);
    expect(lines[0]!.length).toBeGreaterThan(80);
    expect(lines.every((l) => /^(error|hint): /.test(l))).toBe(true);
  });

  it('wraps a warning at spaces on a terminal of 50 columns, one line off a terminal', async () => {
    const text = 'the cached channel list is 3 days old; total Rp 1.500.000 may differ from what the gateway charges';
    for (const tty of [true, false]) {
      const { ctx, err } = testContext({ tty });
      ctx.columns = 50;
      (await Output.create(ctx, { color: false })).warn(text);
      const lines = err().trimEnd().split('\n');
      if (!tty) expect(lines).toEqual([`warning: ${text}`]);
      else {
        expect(lines.length).toBeGreaterThan(1);
        for (const l of lines) expect([...l].length).toBeLessThanOrEqual(50);
        expect(lines.map((l) => l.trim()).join(' ')).toBe(`warning: ${text}`);
        expect(err()).toContain('Rp 1.500.000');
      }
    }
  });
});
