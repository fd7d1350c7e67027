/**
 * paycli's one CSV dialect (RFC 4180 with one addition): fields separated by `,`, records by `\n`
 * (the reader also takes `\r\n`), a field quoted with `"` (inner quotes doubled) when it holds a
 * `,`, a `;` (spreadsheets in locales with a decimal comma split on it), a quote, a line break, or
 * leading or trailing blanks. `readCsv` is the exact inverse of `csvRecord`: quotes are resolved
 * before records are split, so a quoted line break or separator stays inside its field.
 */

export class CsvError extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(message);
  }
}

const NEEDS_QUOTES = /[",;\r\n]|^\s|\s$/;

/** One field as the dialect writes it. */
export function csvField(value: unknown): string {
  const s = value === null || value === undefined ? '' : String(value);
  return NEEDS_QUOTES.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** One record (no line end). A record of one empty field is written `""`, so it is not a blank line. */
export function csvRecord(cells: readonly unknown[]): string {
  if (cells.length === 1 && csvField(cells[0]) === '') return '""';
  return cells.map(csvField).join(',');
}

/** A whole document: one record per line, each ended by `\n`. */
export function csvDocument(rows: readonly (readonly unknown[])[]): string {
  return rows.map((r) => csvRecord(r) + '\n').join('');
}

/** A record read back, with the 1-based line it starts on. */
export interface CsvRow {
  line: number;
  cells: string[];
}

/**
 * Reads a document of the dialect (a leading byte-order mark and blank lines are skipped; a quote
 * inside an unquoted field is kept). Text after a closing quote or an unclosed quote is a CsvError.
 */
export function readCsv(text: string): CsvRow[] {
  const rows: CsvRow[] = [];
  const s = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  let line = 1;
  let i = 0;
  let quote = s.indexOf('"'); // the next quote at or after i (-1: none left)
  while (i < s.length) {
    const start = line;
    const c0 = s.charCodeAt(i);
    // A blank line (the writer never writes one) is skipped.
    if (c0 === 10 || (c0 === 13 && s.charCodeAt(i + 1) === 10)) {
      i += c0 === 13 ? 2 : 1;
      line++;
      continue;
    }
    if (quote >= 0 && quote < i) quote = s.indexOf('"', i);
    // A record without a quote is split as it is (most records; same result, several times faster).
    const nl = s.indexOf('\n', i);
    const end = nl < 0 ? s.length : nl;
    if (quote < 0 || quote > end) {
      rows.push({ line: start, cells: s.slice(i, nl >= 0 && end > i && s.charCodeAt(end - 1) === 13 ? end - 1 : end).split(',') });
      i = nl < 0 ? s.length : nl + 1;
      line++;
      continue;
    }
    const cells: string[] = [];
    for (;;) {
      let cell = '';
      if (s[i] === '"') {
        i++;
        for (;;) {
          if (i >= s.length) throw new CsvError(`line ${start}: a quoted field is not closed`, start);
          const ch = s[i]!;
          if (ch === '"') {
            if (s[i + 1] === '"') {
              cell += '"';
              i += 2;
              continue;
            }
            i++;
            break;
          }
          if (ch === '\n') line++;
          cell += ch;
          i++;
        }
        if (i < s.length && s[i] !== ',' && s[i] !== '\n' && !(s[i] === '\r' && s[i + 1] === '\n')) {
          throw new CsvError(`line ${line}: text after a closing quote`, line);
        }
      } else {
        const from = i;
        // A quote inside an unquoted field is kept as it is (the writer never writes one; some data files do).
        for (let c = s.charCodeAt(i); i < s.length && c !== 44 && c !== 10 && !(c === 13 && s.charCodeAt(i + 1) === 10); c = s.charCodeAt(++i));
        cell = s.slice(from, i);
      }
      cells.push(cell);
      if (s[i] === ',') {
        i++;
        continue;
      }
      if (s[i] === '\r') i++;
      if (s[i] === '\n') {
        i++;
        line++;
      }
      break;
    }
    rows.push({ line: start, cells });
  }
  return rows;
}

/** A document with a header record: each later record as an object keyed by the header's names. */
export function readCsvObjects(text: string): { line: number; row: Record<string, string> }[] {
  const [header, ...rest] = readCsv(text);
  if (!header) return [];
  return rest.map(({ line, cells }) => {
    if (cells.length > header.cells.length) throw new CsvError(`line ${line}: ${cells.length} fields, the header has ${header.cells.length}`, line);
    return { line, row: Object.fromEntries(header.cells.map((h, j) => [h, cells[j] ?? ''])) };
  });
}
