import { stripVTControlCharacters } from 'node:util';
import { isPaycliError, PaycliError } from '../core/errors.js';
import { formatRupiah } from '../core/money.js';
import { escapeControl } from '../core/terminal-text.js';
import { formatJakarta } from '../core/time.js';
import type { CliContext } from './context.js';
import { EXIT, EXIT_BY_KIND } from './exit-codes.js';

export interface GlobalFlags {
  json?: boolean;
  color?: boolean;
  debug?: boolean;
  input?: boolean;
  yes?: boolean;
}

/** Decides color (README, "Configuration"): NO_COLOR, --no-color, TERM=dumb and non-TTY turn it off; FORCE_COLOR forces it. */
export function colorLevel(ctx: CliContext, flags: GlobalFlags, isTTY: boolean): 0 | 1 | 2 | 3 {
  if (flags.color === false) return 0;
  const force = ctx.env.FORCE_COLOR;
  if (force !== undefined && force !== '0' && force !== 'false') return force === '2' ? 2 : force === '3' ? 3 : 1;
  if (ctx.env.NO_COLOR !== undefined && ctx.env.NO_COLOR !== '') return 0;
  if (ctx.env.TERM === 'dumb' || !isTTY) return 0;
  return 1;
}

/** The styles commands use; plain identity functions when color is off. */
export type Colors = Record<'bold' | 'dim' | 'red' | 'green' | 'yellow' | 'cyan', (s: string) => string>;
const STYLES = ['bold', 'dim', 'red', 'green', 'yellow', 'cyan'] as const;
const PLAIN: Colors = Object.fromEntries(STYLES.map((k) => [k, (s: string) => s])) as Colors;

/**
 * The only escape sequences human output lets through: the SGR codes of the styles above, exactly
 * as chalk writes them (bold/dim on 1/2 off 22; red, green, yellow, cyan on 31/32/33/36 off 39).
 */
const OWN_SGR = /(\u001b\[(?:1|2|22|31|32|33|36|39)m)/;

/** A picture's cells, two rows at a time (top dark, bottom dark): black on white. */
const HALF_BLOCKS = [' ', '▄', '▀', '█'] as const;
const PICTURE_ON = '\u001b[30;47m';
const PICTURE_OFF = '\u001b[0m';

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

async function colors(level: 0 | 1 | 2 | 3): Promise<Colors> {
  if (level === 0) return PLAIN; // chalk is loaded only when something will be colored
  const { Chalk } = await import('chalk');
  const chalk = new Chalk({ level });
  return Object.fromEntries(STYLES.map((k) => [k, (s: string) => chalk[k](s)])) as Colors;
}

/**
 * The one writer of a run: results to stdout, everything else to stderr, errors as one line plus
 * a hint (or a JSON object with --json). Commands never write to the streams directly.
 */
export class Output {
  readonly json: boolean;
  readonly debug: boolean;
  /**
   * The width error, warning and prompt-validation text wraps to: the terminal's columns when stderr
   * is a terminal, undefined otherwise (each message then stays one line, for logs and grep).
   */
  readonly errWidth: number | undefined;

  /** `c` styles stdout, `e` styles stderr; each follows its own stream's color decision. */
  private constructor(readonly ctx: CliContext, readonly flags: GlobalFlags, readonly c: Colors, readonly e: Colors) {
    this.json = Boolean(flags.json);
    this.debug = Boolean(flags.debug);
    this.errWidth = ctx.stderrIsTTY ? Math.max(40, terminalWidth(ctx.columns)) : undefined;
  }

  /** `prefix` + `text` for stderr: wrapped at spaces to errWidth (never inside a word or an amount). */
  private errLine(prefix: string, text: string): string {
    return fitLineTo(this.errWidth, prefix, text);
  }

  /**
   * A prompt's validation message (shown by the prompt after `> `), wrapped at spaces to the
   * terminal like errors, its continuation lines under the first; unchanged off a terminal.
   */
  promptText(text: string): string {
    if (this.errWidth === undefined) return text;
    return wrap(text, this.errWidth - 2).join('\n  ');
  }

  static async create(ctx: CliContext, flags: GlobalFlags): Promise<Output> {
    setTableWidth(ctx.stdoutIsTTY ? terminalWidth(ctx.columns) : undefined);
    setTablePlain(!ctx.stdoutIsTTY);
    return new Output(ctx, flags, await colors(colorLevel(ctx, flags, ctx.stdoutIsTTY)), await colors(colorLevel(ctx, flags, ctx.stderrIsTTY)));
  }

  /** Whether stdout / stderr are colored this run (then paycli's own style codes pass terminalSafe). */
  private get outStyled(): boolean {
    return this.c !== PLAIN;
  }
  private get errStyled(): boolean {
    return this.e !== PLAIN;
  }

  /** A result line (or block) on stdout, with control characters from outside made visible. */
  out(text: string): void {
    const safe = terminalSafe(text, this.outStyled);
    this.ctx.stdout.write(safe.endsWith('\n') ? safe : safe + '\n');
  }

  /**
   * Machine-readable text that is not JSON (CSV rows) on stdout: written as it is to a pipe or a
   * file, where a control character is data; made visible like `out` on a terminal.
   */
  records(text: string): void {
    if (this.ctx.stdoutIsTTY) this.out(text);
    else this.ctx.stdout.write(text.endsWith('\n') ? text : text + '\n');
  }

  /** One JSON document (or NDJSON line) on stdout. */
  data(value: unknown, pretty = true): void {
    this.ctx.stdout.write(JSON.stringify(value, null, pretty ? 2 : undefined) + '\n');
  }

  /**
   * A two-colour picture on stdout (the QRIS code a buyer scans): `dark(x, y)` for each of
   * `width` × `height` cells, drawn black on white with half blocks, two rows of cells a line. It
   * is made only of fixed pieces (four characters and two colour codes), so nothing from outside
   * reaches the terminal through it, and it is written as it is: `out` would make its colour codes
   * visible text, and without them a dark terminal shows the code inverted or not at all. Drawn
   * only on a terminal that can show colours at all (not TERM=dumb); the caller checks stdoutIsTTY.
   */
  picture(width: number, height: number, dark: (x: number, y: number) => boolean): void {
    const isDark = (x: number, y: number) => y < height && dark(x, y);
    const rows: string[] = [];
    for (let y = 0; y < height; y += 2) {
      let row = PICTURE_ON;
      for (let x = 0; x < width; x++) row += HALF_BLOCKS[(isDark(x, y) ? 2 : 0) + (isDark(x, y + 1) ? 1 : 0)];
      rows.push(row + PICTURE_OFF);
    }
    this.ctx.stdout.write(rows.join('\n') + '\n');
  }

  /** Whether `picture` can be shown: stdout is a terminal that knows colours (not TERM=dumb). */
  get canDrawPictures(): boolean {
    return this.ctx.stdoutIsTTY && this.ctx.env.TERM !== 'dumb';
  }

  /** Progress and notes on stderr; silent with --json. */
  info(text: string): void {
    if (!this.json) this.ctx.stderr.write(terminalSafe(text, this.errStyled) + '\n');
  }

  warn(text: string): void {
    if (this.json) this.ctx.stderr.write(JSON.stringify({ warning: text }) + '\n');
    else this.ctx.stderr.write(this.errLine(this.e.yellow('warning: '), terminalSafe(text, this.errStyled)) + '\n');
  }

  /** Writes an error per the contract and returns its exit code. */
  fail(err: unknown): number {
    // Ctrl-C at a prompt (@inquirer's ExitPromptError/AbortPromptError): interrupted, exit 130.
    const name = (err as Error | undefined)?.name;
    if (!isPaycliError(err) && (name === 'ExitPromptError' || name === 'AbortPromptError')) err = new PaycliError('interrupted', 'interrupted');
    const pe: PaycliError | undefined = isPaycliError(err) ? err : undefined;
    const code = pe ? EXIT_BY_KIND[pe.kind] : EXIT.internal;
    const message = pe ? pe.message : `internal error: ${(err as Error)?.message ?? String(err)}`;
    const hint = pe?.hint ?? (pe ? undefined : 'run again with --debug and report it');
    if (this.json) {
      const error: Record<string, unknown> = { code: pe?.kind ?? 'internal', exitCode: code, message };
      if (hint) error.hint = hint;
      if (pe?.details !== undefined) error.details = pe.details;
      this.ctx.stderr.write(JSON.stringify({ error }) + '\n');
    } else {
      // An error is one line: its message and hint are escaped whole (line breaks too); on a
      // terminal that line is wrapped at spaces to its width, never inside a word or an amount.
      this.ctx.stderr.write(this.errLine(this.e.red('error: '), escapeControl(message)) + '\n');
      if (hint) this.ctx.stderr.write(this.errLine(this.e.dim('hint: '), escapeControl(hint)) + '\n');
    }
    if (this.debug && err instanceof Error && err.stack) this.ctx.stderr.write(err.stack + '\n' + (err.cause instanceof Error ? `cause: ${err.cause.stack}\n` : ''));
    return code;
  }
}

/**
 * The terminal's width in columns: the reported size when it is a usable one, else 80. A pty whose
 * size was never set (`script`, some CI runners, `docker run -t` before a resize) reports 0, and
 * ora then counted each line as Infinity rows and redrew forever. Every width read goes through here.
 */
export function terminalWidth(columns: number | undefined): number {
  return columns !== undefined && Number.isFinite(columns) && columns >= 1 ? Math.floor(columns) : 80;
}

// The width human tables must fit: the terminal's columns when stdout is a terminal (Output.create
// sets it for the run), none otherwise (a pipe or file gets whole rows).
let tableWidth: number | undefined;
// Whether stdout is not a terminal: tables are then plain tab-separated rows (Output.create sets it).
let tablePlain = false;

/** Off a terminal, `table` writes tab-separated rows without colour or padding (gh's model). */
export function setTablePlain(plain: boolean): void {
  tablePlain = plain;
}

/** The width human tables fit this run (the terminal's columns), or undefined off a terminal. */
export function currentTableWidth(): number | undefined {
  return tableWidth;
}

/** Sets the width `table` fits rows into; undefined means no limit. */
export function setTableWidth(width: number | undefined): void {
  tableWidth = width !== undefined && Number.isFinite(width) && width > 0 ? Math.max(40, Math.floor(width)) : undefined;
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
 * `prefix` + `text`, with `text` wrapped at spaces to the table width (see setTableWidth) and its
 * continuation lines indented under it; unchanged when there is no width.
 */
export function fitLine(prefix: string, text: string): string {
  return fitLineTo(tableWidth, prefix, text);
}

/** fitLine for a given width (stderr's, for banners); undefined means no limit. */
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
 * Aligns rows into columns (no borders), for human tables. Rows fit the table width (see
 * setTableWidth, or `opts.width`): when they do not, free-text columns (words with spaces) shrink
 * first, widest first, then other text columns; never the first (usually an id); the last column
 * wraps at spaces onto indented continuation lines (a single long word in it is shortened), another
 * is shortened with `…`. A cell that is a number, an amount, a date or a time is never cut, even
 * in a column whose other cells are text: other cells and columns shorten instead.
 */
export function table(rows: string[][], header?: string[], style?: (s: string) => string, opts: { width?: number; plain?: boolean } = {}): string {
  // Cells are escaped before they are measured: a control character is never printed, and its
  // visible escape takes the columns it is shown in.
  rows = rows.map((row) => row.map(safeCell));
  if (opts.plain ?? (tablePlain && opts.width === undefined)) return plainTable(rows);
  const all = header ? [header, ...rows] : rows;
  if (all.length === 0) return '';
  const columns = Math.max(...all.map((r) => r.length));
  const widths: number[] = new Array(columns).fill(0);
  for (const row of all) row.forEach((cell, i) => (widths[i] = Math.max(widths[i]!, visibleLength(cell))));
  const limit = opts.width ?? tableWidth;
  const total = () => widths.reduce((a, b) => a + b, 0) + 2 * (columns - 1);
  if (limit !== undefined && total() > limit) {
    const body = header ? rows : all;
    const plain = (i: number) => body.map((r) => plainText(r[i] ?? ''));
    // A column may shrink down to 8 columns, but never below its widest number: a number, an amount,
    // a date or a time is never cut, even in a column whose other cells are text.
    const floor = widths.map((_, i) => Math.max(8, ...plain(i).map((c) => (NUMERIC_CELL.test(c) ? visibleLength(c) : 0))));
    const numeric = widths.map((_, i) => plain(i).every((c) => c === '' || NUMERIC_CELL.test(c)));
    const words = widths.map((_, i) => !numeric[i] && plain(i).some((c) => /\s/.test(c)));
    for (const eligible of [(i: number) => words[i] && i > 0, (i: number) => !numeric[i] && i > 0]) {
      for (;;) {
        const over = total() - limit;
        if (over <= 0) break;
        let pick = -1;
        for (let i = 0; i < columns; i++) if (eligible(i) && widths[i]! > floor[i]! && (pick < 0 || widths[i]! - floor[i]! > widths[pick]! - floor[pick]!)) pick = i;
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
    const lastLines = last !== columns - 1 ? [cells[last]!] : /\s/.test(plainText(cells[last]!).trim()) ? wrap(cells[last]!, widths[last]!) : [truncate(cells[last]!, widths[last]!)];
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
  const line = (row: string[]) => row.map((cell) => plainText(cell).replace(/[\t\r\n]+/g, ' ').trim()).join('\t');
  return rows.map(line).join('\n');
}

/**
 * A moment as human output shows it: `YYYY-MM-DD HH:MM:SS` in WIB (Asia/Jakarta, UTC+7, no
 * daylight saving), the gateway's own time; `part` picks the date and time, the time alone, or a
 * short `MM-DD HH:MM`. Text that is not a date is returned as it is. Labels ("WIB") are the
 * caller's: in a column header or after the value.
 */
export function wib(at: Date | string, part: 'datetime' | 'time' | 'short' = 'datetime'): string {
  const d = at instanceof Date ? at : new Date(at);
  if (Number.isNaN(d.getTime())) return String(at);
  const full = formatJakarta(d);
  return part === 'time' ? full.slice(11) : part === 'short' ? full.slice(5, 16) : full;
}

/** Rupiah with Indonesian thousands separators: `Rp 102.000`. */
export function rupiah(amount: number | string): string {
  const n = Number(amount);
  if (!Number.isFinite(n)) return String(amount);
  return formatRupiah(n);
}
