import { stripVTControlCharacters } from 'node:util';
import { escapeControl } from '../core/terminal-text.js';

// Text laid out for a terminal: made safe, measured, wrapped, and tables. Pure: the width and the
// plain mode of a run are the Output's (output.ts), passed in.

/**
 * The only escape sequences human output lets through: the SGR codes of the styles above, exactly
 * as chalk writes them (bold/dim on 1/2 off 22; red, green, yellow, cyan on 31/32/33/36 off 39).
 */
const OWN_SGR = /(\u001b\[(?:1|2|22|31|32|33|36|39)m)/;

/**
 * Text as it may reach a terminal: every control character made visible (escapeControl; line
 * feeds and tabs kept), except paycli's own style codes when `keepStyles` (the stream is colored).
 * Text from outside (gateway answers, region names, handler bodies, stored events) therefore cannot
 * drive the terminal whichever command prints it. A style code text from outside carries itself
 * is only let through on a colored stream, and only if it is one of the six above.
 */
export function terminalSafe(text: string, keepStyles = false): string {
  if (!keepStyles) return escapeControl(text, { multiline: true });
  return text
    .split(OWN_SGR)
    .map((part, i) => (i % 2 === 1 ? part : escapeControl(part, { multiline: true })))
    .join('');
}

/** Text without colour codes or other terminal control sequences. */
function plainText(text: string): string {
  return stripVTControlCharacters(text);
}

/** The number of terminal columns a cell takes (color codes take none). */
export function visibleLength(text: string): number {
  return [...plainText(text)].length;
}

/** Shortens text to `width` columns with a trailing `…` (colors are dropped from a shortened cell). */
export function truncate(text: string, width: number): string {
  if (visibleLength(text) <= width) return text;
  const chars = [...plainText(text)];
  return width <= 1 ? '…'.slice(0, width) : chars.slice(0, width - 1).join('') + '…';
}

/**
 * Wraps text into lines of at most `width` columns at spaces; a word is split only when it alone is
 * wider than a line. Numbers and amounts (`Rp 102.000`) keep their spaces' neighbours together.
 */
export function wrap(text: string, width: number): string[] {
  const plain = visibleLength(text) === [...text].length ? text : plainText(text);
  if ([...plain].length <= width) return [text];
  const words = plain.replace(/\bRp (?=\d)/g, 'Rp\u00a0').split(' ');
  const lines: string[] = [];
  let line = '';
  for (let word of words) {
    while ([...word].length > width) {
      if (line) {
        lines.push(line);
        line = '';
      }
      lines.push([...word].slice(0, width).join(''));
      word = [...word].slice(width).join('');
    }
    if (!line) line = word;
    else if ([...line].length + 1 + [...word].length <= width) line += ' ' + word;
    else {
      lines.push(line);
      line = word;
    }
  }
  if (line) lines.push(line);
  return lines.map((l) => l.replace(/\u00a0/g, ' '));
}

/**
 * `prefix` + `text`, with `text` wrapped at spaces to `width` and its continuation lines indented
 * under it; unchanged when there is no width (undefined).
 */
export function fitLineTo(width: number | undefined, prefix: string, text: string): string {
  // Escaped before it is measured, so that a control character's visible escape is wrapped too.
  text = terminalSafe(text, true);
  const room = width === undefined ? undefined : width - visibleLength(prefix);
  if (room === undefined || room < 20) return prefix + text;
  const pad = ' '.repeat(visibleLength(prefix));
  return text
    .split('\n')
    .flatMap((line) => wrap(line, room))
    .map((line, i) => (i === 0 ? prefix : pad) + line)
    .join('\n');
}

/** A cell that is a number, an amount, a date or a time: never shortened. */
const NUMERIC_CELL = /^(Rp )?[\d.,:+\-/]*\d[\d.,:+\-/]*( ?(ms|s|%|WIB|UTC))?$|^(\d{4}-)?\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2})?( ?(WIB|UTC))?$/;

/**
 * Aligns rows into columns (no borders), for human tables. Rows fit `opts.width` (none: no
 * limit): when they do not, free-text columns (words with spaces) shrink
 * first, widest first, then other text columns; never the first (usually an id); the last column
 * wraps at spaces onto indented continuation lines (a single long word in it is shortened), another
 * is shortened with `…`. A cell that is a number, an amount, a date or a time is never cut, even
 * in a column whose other cells are text: other cells and columns shorten instead. `opts.plain`:
 * tab-separated rows instead (what a script reads off a terminal).
 */
export function table(rows: string[][], header?: string[], style?: (s: string) => string, opts: { width?: number; plain?: boolean } = {}): string {
  // Cells are escaped before they are measured: a control character is never printed, and its
  // visible escape takes the columns it is shown in.
  rows = rows.map((row) => row.map(safeCell));
  if (opts.plain) return plainTable(rows);
  const all = header ? [header, ...rows] : rows;
  if (all.length === 0) return '';
  // Loops, not Math.max(...rows): a spread takes one argument per row and overflows past ~120 000.
  let columns = 0;
  for (const r of all) columns = Math.max(columns, r.length);
  const widths: number[] = new Array(columns).fill(0);
  for (const row of all) row.forEach((cell, i) => (widths[i] = Math.max(widths[i]!, visibleLength(cell))));
  const limit = opts.width;
  const total = () => widths.reduce((a, b) => a + b, 0) + 2 * (columns - 1);
  if (limit !== undefined && total() > limit) {
    const body = header ? rows : all;
    const plain = (i: number) => body.map((r) => plainText(r[i] ?? ''));
    // A column may shrink down to 8 columns, but never below its widest number: a number, an amount,
    // a date or a time is never cut, even in a column whose other cells are text.
    const floor = widths.map((_, i) => plain(i).reduce((m, c) => (NUMERIC_CELL.test(c) ? Math.max(m, visibleLength(c)) : m), 8));
    const numeric = widths.map((_, i) => plain(i).every((c) => c === '' || NUMERIC_CELL.test(c)));
    const words = widths.map((_, i) => !numeric[i] && plain(i).some((c) => /\s/.test(c)));
    for (const eligible of [(i: number) => words[i] && i > 0, (i: number) => !numeric[i] && i > 0]) {
      for (;;) {
        const over = total() - limit;
        if (over <= 0) break;
        let pick = -1;
        for (let i = 0; i < columns; i++)
          if (eligible(i) && widths[i]! > floor[i]! && (pick < 0 || widths[i]! - floor[i]! > widths[pick]! - floor[pick]!)) pick = i;
        if (pick < 0) break;
        widths[pick] = Math.max(floor[pick]!, widths[pick]! - over);
      }
    }
  }
  const pad = (cell: string, i: number) => cell + ' '.repeat(Math.max(0, widths[i]! - visibleLength(cell)));
  const indent = widths.slice(0, -1).reduce((a, b) => a + b + 2, 0);
  const lines: string[] = [];
  all.forEach((row, r) => {
    const cells = row.map((cell, i) => (i < row.length - 1 ? pad(truncate(cell, widths[i]!), i) : cell));
    const last = cells.length - 1;
    // The last column wraps at spaces; a single word (an id, a reference, a URL) is shortened
    // with … instead of being split across lines.
    const lastLines =
      last !== columns - 1
        ? [cells[last]!]
        : /\s/.test(plainText(cells[last]!).trim())
          ? wrap(cells[last]!, widths[last]!)
          : [truncate(cells[last]!, widths[last]!)];
    let line = [...cells.slice(0, last), lastLines[0]!].join('  ').trimEnd();
    if (r === 0 && header && style) line = style(line);
    lines.push(line);
    for (const more of lastLines.slice(1)) lines.push(' '.repeat(indent) + more);
  });
  return lines.join('\n');
}

/**
 * A table cell with every control character made visible except paycli's own style codes; tabs and
 * line breaks become spaces, so that a row stays one line.
 */
function safeCell(cell: string): string {
  return terminalSafe(cell.replace(/[\t\r\n]+/g, ' '), true);
}

/**
 * The table as a script reads it (gh's model): one line per row, cells separated by a tab, without
 * the header, colour, padding or wrapping; tabs and line breaks inside a cell become spaces so that
 * a row stays one line.
 */
function plainTable(rows: string[][]): string {
  const line = (row: string[]) =>
    row
      .map((cell) =>
        plainText(cell)
          .replace(/[\t\r\n]+/g, ' ')
          .trim(),
      )
      .join('\t');
  return rows.map(line).join('\n');
}
