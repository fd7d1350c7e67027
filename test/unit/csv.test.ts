import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CsvError, csvDocument, csvRecord, readCsv, readCsvObjects } from '../../src/core/csv.js';

/** Fields made mostly of the characters that matter to the dialect, so the edges come up often. */
const field = fc.oneof(
  fc.string(),
  fc.array(fc.constantFrom(',', ';', '"', '\n', '\r', '\r\n', ' ', 'a', 'é', '😀', '='), { maxLength: 8 }).map((a) => a.join('')),
);

describe('the CSV dialect', () => {
  it('reads back exactly what it writes (any fields, any number of records)', () => {
    fc.assert(
      fc.property(fc.array(fc.array(field, { minLength: 1, maxLength: 6 }), { maxLength: 8 }), (rows) => {
        expect(readCsv(csvDocument(rows)).map((r) => r.cells)).toEqual(rows);
      }),
      { numRuns: 2000 },
    );
  });

  it('quotes ; as well as , quotes, line breaks and edge blanks; leaves plain text alone', () => {
    expect(csvRecord(['ORDER;7', 'a,b', 'say "hi"', 'two\nlines', ' pad', 'plain', null, 50000])).toBe(
      '"ORDER;7","a,b","say ""hi""","two\nlines"," pad",plain,,50000',
    );
    expect(csvRecord([''])).toBe('""');
  });

  it('resolves quotes before splitting lines, and numbers records by the line they start on', () => {
    const rows = readCsv('ref,name\r\n"A\nB",x\n\nC,"y"\n');
    expect(rows).toEqual([
      { line: 1, cells: ['ref', 'name'] },
      { line: 2, cells: ['A\nB', 'x'] },
      { line: 5, cells: ['C', 'y'] },
    ]);
  });

  it('an unclosed quote or text after a closing quote is an error with its line', () => {
    expect(() => readCsv('a\n"open,b\n')).toThrow(CsvError);
    expect(() => readCsv('a\n"x"y,b\n')).toThrow(/line 2/);
  });

  it('reads objects by header and refuses a record longer than the header', () => {
    expect(readCsvObjects('\uFEFFreference,amount\nORDER;7,5\n"ORDER;8"\n')).toEqual([
      { line: 2, row: { reference: 'ORDER;7', amount: '5' } },
      { line: 3, row: { reference: 'ORDER;8', amount: '' } },
    ]);
    expect(() => readCsvObjects('a\n1,2\n')).toThrow(/2 fields, the header has 1/);
  });
});
