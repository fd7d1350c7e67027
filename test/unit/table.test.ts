import { describe, expect, it } from 'vitest';
import { table, truncate, visibleLength, wrap } from '../../src/cli/layout.js';

// Issue 19 item 5: human tables fit the terminal; numbers and amounts are never split.

describe('width-aware tables', () => {
  const rows = [
    [
      'evt_mwr4960kc751190001',
      '2026-11-22 00:46:17',
      '100001',
      'Rp 102.000',
      'invalid: signed with the API key as the secret; callbacks are signed with the merchant VA',
    ],
    ['evt_mwr4960kc751190002', '2026-11-22 00:46:18', '100002', 'Rp 1.500.000', 'valid'],
  ];
  const header = ['ID', 'RECEIVED (WIB)', 'TRX', 'AMOUNT', 'VERDICT'];

  it('fits 80 columns by wrapping the last free-text column, keeping amounts whole', () => {
    const text = table(rows, header, undefined, { width: 80 });
    for (const line of text.split('\n')) expect(visibleLength(line), line).toBeLessThanOrEqual(80);
    expect(text).toContain('Rp 102.000');
    expect(text).toContain('Rp 1.500.000');
    expect(text).toContain('2026-11-22 00:46:17');
    const lines = text.split('\n');
    expect(lines.length).toBeGreaterThan(3);
    // Continuation lines start under the last column.
    const col = lines[1]!.indexOf('invalid');
    expect(lines[2]!.slice(0, col).trim()).toBe('');
  });

  it('shortens a middle free-text column with … when it is the widest', () => {
    const text = table(
      [['1', 'a very long product name that goes on and on and on and on and on', 'Rp 25.000', 'ok']],
      ['N', 'PRODUCT', 'PRICE', 'STATE'],
      undefined,
      { width: 40 },
    );
    for (const line of text.split('\n')) expect(visibleLength(line)).toBeLessThanOrEqual(40);
    expect(text).toContain('…');
    expect(text).toContain('Rp 25.000');
  });

  it('never shortens the first column (ids), dates or amounts', () => {
    const text = table(
      [['evt_mwr4960kc751190001', '2026-11-22 00:46:17', 'Rp 102.000', 'PAYCLI-20261122072704-89e5-with-a-long-tail', 'ok']],
      ['ID', 'RECEIVED', 'AMOUNT', 'REFERENCE', 'X'],
      undefined,
      { width: 80 },
    );
    expect(text).toContain('evt_mwr4960kc751190001');
    expect(text).toContain('2026-11-22 00:46:17');
    expect(text).toContain('Rp 102.000');
    expect(text).toContain('PAYCLI-2026');
    for (const line of text.split('\n')) expect(visibleLength(line)).toBeLessThanOrEqual(80);
  });

  it('lays out 150 000 rows (a spread of every row into Math.max overflowed the stack)', () => {
    const rows = Array.from({ length: 150_000 }, (_, i) => [`evt_${i}`, 'a free text cell that is long', `Rp ${i}`]);
    const out = table(rows, ['ID', 'TEXT', 'AMOUNT'], undefined, { width: 30 });
    expect(out.split('\n')).toHaveLength(150_001);
  });

  it('leaves tables alone without a width, and drops trailing blanks', () => {
    expect(table([['a', 'b', '']], ['X', 'Y', 'Z'])).toBe('X  Y  Z\na  b');
  });

  it('counts colored cells by what is visible', () => {
    expect(visibleLength('\u001b[32m✓\u001b[39m')).toBe(1);
    expect(truncate('abcdef', 4)).toBe('abc…');
    expect(wrap('total Rp 102.000 today', 12)).toEqual(['total', 'Rp 102.000', 'today']);
  });
});
