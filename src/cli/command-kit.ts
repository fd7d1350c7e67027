import { type Command as PlainCommand, Option as PlainOption } from 'commander';
import type { Command, OptionValues, Option as TypedOption } from '@commander-js/extra-typings';
import type { CommandEnv } from './command-env.js';
import type { Outcome } from './exit-codes.js';

/**
 * What every command module uses to write its definition: the typed view of a commander command,
 * the flags several commands share, the Examples section, and `bind`, which attaches a handler.
 * A command module holds one top-level command: it exports `commands = { '<name>': define }` (see
 * commands/index.ts), and its handlers sit in the same file.
 */

/**
 * commander's Option with the types of @commander-js/extra-typings (its choices and defaults typed).
 * The types package is never loaded at run time: it would copy commander's exports once more.
 */
export const Option = PlainOption as unknown as typeof TypedOption;

/** A commander command whose option and argument types follow from its definition. */
export type TypedCommand<Args extends unknown[] = unknown[], Opts extends OptionValues = OptionValues> = Command<Args, Opts, OptionValues>;

/**
 * The typed view of a plain commander command (the same object: commander's own classes, with the
 * types of @commander-js/extra-typings). Subcommands created from it carry their argument types, and
 * each `.option()` adds its option to the type.
 */
export function typed(cmd: PlainCommand): Command {
  return cmd as unknown as Command;
}

/**
 * Attaches a handler to a command. The handler's option type is checked against the definition: it
 * must accept the options the definition declares (a handler reading a flag the definition does not
 * declare, or with another type, does not compile).
 */
export type Bind = <Args extends unknown[], Opts extends OptionValues>(
  cmd: TypedCommand<Args, Opts>,
  handler: (env: CommandEnv<NoInfer<Opts>>, ...args: never[]) => Promise<Outcome>,
) => void;

/** Defines one top-level command (with its subcommands) on the root program. */
export type Define = (program: PlainCommand, bind: Bind) => void;

/** Commands whose own `--timeout` is a duration to run for, not the request timeout. */
export const RUN_DURATION_TIMEOUT = new WeakSet<object>();

/** Collects a repeatable option's values. */
export const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** `--timeout`: the request timeout of commands that call the API. */
export function timeoutFlag<A extends unknown[], O extends OptionValues>(cmd: TypedCommand<A, O>) {
  return cmd.option('--timeout <duration>', 'request timeout: 30s, 500ms, 2m (a bare number is milliseconds; PAYCLI_TIMEOUT; default 30s)');
}

/** `--timeout`, `--dry-run` and `--curl`: the flags of every signed API call. */
export function apiFlags<A extends unknown[], O extends OptionValues>(cmd: TypedCommand<A, O>) {
  return sendNothingFlags(timeoutFlag(cmd));
}

/** `--dry-run` and `--curl`: show the signed request (or a curl command) instead of sending it. */
export function sendNothingFlags<A extends unknown[], O extends OptionValues>(cmd: TypedCommand<A, O>) {
  return cmd
    .option('--dry-run', 'print the signed request; send nothing')
    .option('--curl', 'print an equivalent curl command (secrets as $PAYCLI_* placeholders); send nothing');
}

/** `--store`: the event store of `listen`, `trigger` and `events`. */
export function storeFlag<A extends unknown[], O extends OptionValues>(cmd: TypedCommand<A, O>) {
  return cmd.option('--store <file>', 'the event store, a SQLite file (default $XDG_DATA_HOME/paycli/events.db)');
}

/**
 * A shell command as help lines of at most `width` columns: long ones continue with ` \` at a
 * space outside quotes, so each example still pastes into a shell as one command.
 */
export function shellLines(command: string, width = 80, first = '  $ ', rest = '      '): string[] {
  const tokens = command.match(/(?:[^\s"']+|"[^"]*"|'[^']*')+/g) ?? [command];
  // A flag stays on the line of its value.
  const words: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    const next = tokens[i + 1];
    if (/^--?[a-z]/i.test(t) && next !== undefined && !/^-/.test(next) && next !== '|' && next !== '…') {
      words.push(`${t} ${next}`);
      i++;
    } else words.push(t);
  }
  const lines: string[] = [];
  let line = first;
  for (const word of words) {
    const candidate = line === first || line === rest ? line + word : `${line} ${word}`;
    if ([...candidate].length + 2 > width && line !== first && line !== rest) {
      lines.push(`${line} \\`);
      line = rest + word;
    } else line = candidate;
  }
  lines.push(line);
  return lines;
}

/** The example lines of each command, as given to `examples` (docs/commands/ is generated from them). */
export const EXAMPLES = new WeakMap<object, readonly string[]>();

/** Adds an Examples section to a command's help, laid out only when that help is shown. */
export function examples<C extends { addHelpText(position: 'after', text: () => string): unknown }>(cmd: C, lines: string[]): C {
  EXAMPLES.set(cmd, lines);
  cmd.addHelpText('after', () => `\nExamples:\n${lines.flatMap((l) => shellLines(l)).join('\n')}\n`);
  return cmd;
}
