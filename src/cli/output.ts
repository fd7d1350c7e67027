import { INTERNAL_ERROR_CODE, isPaycliError, PaycliError } from '../core/errors.js';
import { formatRupiah } from '../core/money.js';
import { escapeControl } from '../core/terminal-text.js';
import { fitLineTo, table, terminalSafe, wrap } from './layout.js';
import { formatJakarta } from '../core/time.js';
import type { CliContext } from './context.js';
import { exitCodeOf, type Outcome } from './exit-codes.js';

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

/** A picture's cells, two rows at a time (top dark, bottom dark): black on white. */
const HALF_BLOCKS = [' ', '▄', '▀', '█'] as const;
const PICTURE_ON = '\u001b[30;47m';
const PICTURE_OFF = '\u001b[0m';

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

  /** The width human tables and fitted lines on stdout take: the terminal's columns, undefined off a terminal (whole rows). */
  readonly tableWidth: number | undefined;
  /** Off a terminal, tables are tab-separated rows without colour or padding (gh's model). */
  readonly tablePlain: boolean;

  /** `c` styles stdout, `e` styles stderr; each follows its own stream's color decision. */
  private constructor(
    readonly ctx: CliContext,
    readonly flags: GlobalFlags,
    readonly c: Colors,
    readonly e: Colors,
  ) {
    this.json = Boolean(flags.json);
    this.debug = Boolean(flags.debug);
    this.errWidth = ctx.stderrIsTTY ? Math.max(40, terminalWidth(ctx.columns)) : undefined;
    this.tableWidth = ctx.stdoutIsTTY ? Math.max(40, terminalWidth(ctx.columns)) : undefined;
    this.tablePlain = !ctx.stdoutIsTTY;
  }

  /** A human table for stdout (layout.ts `table`) at this run's width, or plain rows off a terminal; `opts.width` overrides. */
  table(rows: string[][], header?: string[], style?: (s: string) => string, opts: { width?: number } = {}): string {
    return table(rows, header, style, { width: opts.width ?? this.tableWidth, plain: this.tablePlain && opts.width === undefined });
  }

  /** `prefix` + `text` wrapped at spaces to this run's table width (layout.ts fitLineTo). */
  fitLine(prefix: string, text: string): string {
    return fitLineTo(this.tableWidth, prefix, text);
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

  /** Writes an error per the contract and returns its outcome (its kind; exitCodeOf gives the exit code). */
  fail(err: unknown): Outcome {
    // Ctrl-C at a prompt (@inquirer's ExitPromptError/AbortPromptError): interrupted, exit 130.
    const name = (err as Error | undefined)?.name;
    if (!isPaycliError(err) && (name === 'ExitPromptError' || name === 'AbortPromptError')) err = new PaycliError('interrupted', 'interrupted');
    const pe: PaycliError | undefined = isPaycliError(err) ? err : undefined;
    const outcome: Outcome = pe ? pe.kind : 'internal';
    const message = pe ? pe.message : `internal error: ${(err as Error)?.message ?? String(err)}`;
    const hint = pe?.hint ?? (pe ? undefined : 'run again with --debug and report it');
    if (this.json) {
      const error: Record<string, unknown> = { code: pe?.code ?? INTERNAL_ERROR_CODE, kind: outcome, exitCode: exitCodeOf(outcome), message };
      if (hint) error.hint = hint;
      if (pe?.details !== undefined) error.details = pe.details;
      this.ctx.stderr.write(JSON.stringify({ error }) + '\n');
    } else {
      // An error is one line: its message and hint are escaped whole (line breaks too); on a
      // terminal that line is wrapped at spaces to its width, never inside a word or an amount.
      this.ctx.stderr.write(this.errLine(this.e.red('error: '), escapeControl(message)) + '\n');
      if (hint) this.ctx.stderr.write(this.errLine(this.e.dim('hint: '), escapeControl(hint)) + '\n');
    }
    if (this.debug && err instanceof Error && err.stack)
      this.ctx.stderr.write(err.stack + '\n' + (err.cause instanceof Error ? `cause: ${err.cause.stack}\n` : ''));
    return outcome;
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
