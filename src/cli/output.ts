import { isPaycliError, PaycliError } from '../core/errors.js';
import type { CliContext } from './context.js';
import { EXIT, EXIT_BY_KIND } from './exit-codes.js';

export interface GlobalFlags {
  json?: boolean;
  color?: boolean;
  debug?: boolean;
  input?: boolean;
  yes?: boolean;
}

/** Decides color per cli.md section 2: NO_COLOR, --no-color, TERM=dumb and non-TTY turn it off; FORCE_COLOR forces it. */
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

  /** `c` styles stdout, `e` styles stderr; each follows its own stream's color decision. */
  private constructor(readonly ctx: CliContext, readonly flags: GlobalFlags, readonly c: Colors, readonly e: Colors) {
    this.json = Boolean(flags.json);
    this.debug = Boolean(flags.debug);
  }

  static async create(ctx: CliContext, flags: GlobalFlags): Promise<Output> {
    return new Output(ctx, flags, await colors(colorLevel(ctx, flags, ctx.stdoutIsTTY)), await colors(colorLevel(ctx, flags, ctx.stderrIsTTY)));
  }

  /** A result line (or block) on stdout. */
  out(text: string): void {
    this.ctx.stdout.write(text.endsWith('\n') ? text : text + '\n');
  }

  /** One JSON document (or NDJSON line) on stdout. */
  data(value: unknown, pretty = true): void {
    this.ctx.stdout.write(JSON.stringify(value, null, pretty ? 2 : undefined) + '\n');
  }

  /** Progress and notes on stderr; silent with --json. */
  info(text: string): void {
    if (!this.json) this.ctx.stderr.write(text + '\n');
  }

  warn(text: string): void {
    if (this.json) this.ctx.stderr.write(JSON.stringify({ warning: text }) + '\n');
    else this.ctx.stderr.write(this.e.yellow('warning: ') + text + '\n');
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
      this.ctx.stderr.write(this.e.red('error: ') + message + '\n');
      if (hint) this.ctx.stderr.write(this.e.dim('hint: ') + hint + '\n');
    }
    if (this.debug && err instanceof Error && err.stack) this.ctx.stderr.write(err.stack + '\n' + (err.cause instanceof Error ? `cause: ${err.cause.stack}\n` : ''));
    return code;
  }
}

/** Aligns rows into columns (no borders), for human tables. */
export function table(rows: string[][], header?: string[], style?: (s: string) => string): string {
  const all = header ? [header, ...rows] : rows;
  if (all.length === 0) return '';
  const widths: number[] = [];
  for (const row of all) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, [...cell].length)));
  const line = (row: string[]) => row.map((cell, i) => (i === row.length - 1 ? cell : cell + ' '.repeat(widths[i]! - [...cell].length))).join('  ');
  const lines = all.map(line);
  if (header && style) lines[0] = style(lines[0]!);
  return lines.join('\n');
}

/** Rupiah with Indonesian thousands separators: `Rp 102.000`. */
export function rupiah(amount: number | string): string {
  const n = Number(amount);
  if (!Number.isFinite(n)) return String(amount);
  return 'Rp ' + Math.round(n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, '.');
}
