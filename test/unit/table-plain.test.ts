import { describe, expect, it } from 'vitest';
import { table, visibleLength } from '../../src/cli/layout.js';
import { Output } from '../../src/cli/output.js';
import { testContext } from '../helpers/cli.js';

// Issue 15 item 7: widths are measured on what is visible, and off a terminal a table is plain
// tab-separated rows (gh's table printer): no header, no colour, no padding.

const red = (s: string) => `\u001b[31m${s}\u001b[39m`;
const bold = (s: string) => `\u001b[1m${s}\u001b[22m`;

describe('table measurement and plain rows', () => {
  it('aligns coloured and plain cells alike (colour codes take no columns)', () => {
    const text = table(
      [
        [red('invalid'), '100001', 'Rp 102.000'],
        ['valid', '100002', 'Rp 5.000'],
      ],
      ['VERDICT', 'TRX', 'AMOUNT'],
      bold,
    );
    const lines = text.split('\n').map((l) => l.replace(/\u001b\[[0-9;]*m/g, ''));
    expect(lines).toEqual(['VERDICT  TRX     AMOUNT', 'invalid  100001  Rp 102.000', 'valid    100002  Rp 5.000']);
    // Other terminal controls (an OSC 8 link) take no columns either.
    const link = '\u001b]8;;https://example.com\u0007site\u001b]8;;\u0007';
    expect(visibleLength(link)).toBe(4);
  });

  it('writes tab-separated rows without the header or colour when stdout is not a terminal', async () => {
    const out = await Output.create(testContext({ tty: false }).ctx, {});
    const text = out.table(
      [
        [red('invalid'), '100001', 'Rp 102.000'],
        ['valid', '', 'a\tb\nc'],
      ],
      ['VERDICT', 'TRX', 'AMOUNT'],
      bold,
    );
    expect(text).toBe('invalid\t100001\tRp 102.000\nvalid\t\ta b c');
    // An explicit width still asks for the terminal layout.
    expect(out.table([['1', 'x']], ['A', 'B'], undefined, { width: 80 })).toBe('A  B\n1  x');
    // The mode is the run's own: another Output, on a terminal, lays out the same rows.
    const tty = await Output.create({ ...testContext({ tty: true }).ctx, columns: 80 }, {});
    expect(tty.table([['1', 'x']], ['A', 'B'])).toBe('A  B\n1  x');
    expect(table([['1', 'x']], ['A', 'B'])).toBe('A  B\n1  x');
  });

  it('shortens a single long word in the last column instead of splitting it across lines', () => {
    const text = table([['100002', 'Rp 2.050.000', 'A-LONG-REFERENCE-FOR-ORDER-2-FROM-THE-SHOP']], ['ID', 'AMOUNT', 'REFERENCE'], undefined, { width: 40 });
    const lines = text.split('\n');
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(visibleLength(line)).toBeLessThanOrEqual(40);
    expect(lines[1]).toMatch(/^100002  Rp 2\.050\.000  A-LONG-REFERENC\S*…$/);
  });
});
