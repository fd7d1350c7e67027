import { Command, Help } from 'commander';
import type { CliContext } from './context.js';
import type { CommandEnv } from './command-env.js';
import { RUN_DURATION_TIMEOUT, type Bind, type Define } from './command-kit.js';
import { EXIT_TABLE, exitCodeOf, type Outcome } from './exit-codes.js';
import { colorLevel, Output, terminalWidth } from './output.js';
import type { CommonOptions } from './session.js';
import { VERSION } from './version.js';
import { UsageError } from '../core/errors.js';
import { REGISTRY, TOP_LEVEL_COMMANDS } from './commands/index.js';
import { HEADS, headTerm, topCommand } from './commands/heads.js';

export interface RunState {
  code: number;
  commanderMessage?: string;
}

const ROOT_EPILOGUE = `
Environment:
  PAYCLI_VA, PAYCLI_API_KEY, PAYCLI_ENV, PAYCLI_BASE_URL, PAYCLI_PROFILE,
  PAYCLI_TIMEOUT, PAYCLI_NOTIFY_URL, NO_COLOR, FORCE_COLOR, HTTPS_PROXY,
  NO_PROXY, XDG_CONFIG_HOME, XDG_CACHE_HOME, XDG_DATA_HOME

Exit codes:
${EXIT_TABLE.map(([c, m]) => `  ${String(c).padEnd(4)}${m}`).join('\n')}

Start here:
  $ paycli demo                      the whole flow on the built-in emulator
  $ paycli sandbox                   run the emulator, then in another terminal:
  $ paycli --env local areas province
  $ paycli config init               store your sandbox VA and API key
`;

/**
 * The top-level command a command line runs, when it can be told without parsing: the first word that
 * is neither an option nor the value of a global option. Undefined when there is none, when it is not
 * a command, or when --help comes first (the root help lists every command).
 */
export function topLevelCommandOf(argv: readonly string[], valueOptions: ReadonlySet<string>): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '-h' || arg === '--help' || arg === '--') return undefined;
    if (arg.startsWith('-')) {
      if (valueOptions.has(arg)) i++;
      continue;
    }
    return (TOP_LEVEL_COMMANDS as readonly string[]).includes(arg) ? arg : undefined;
  }
  return undefined;
}

/**
 * Whether a command line needs no command's definition, only the root help's view of each command
 * (commands/heads.ts): the root help (`--help` before any word), a bare `paycli` (the root help on
 * stderr), and a first word that is no command and not `help` (a typo: its suggestion needs only the
 * names). `--` and `help` (which may name a command) get the whole tree.
 */
export function needsOnlyHeads(argv: readonly string[], valueOptions: ReadonlySet<string>): boolean {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '-h' || arg === '--help') return true;
    if (arg === '--') return false;
    if (arg.startsWith('-')) {
      if (valueOptions.has(arg)) i++;
      continue;
    }
    return arg !== 'help' && !(TOP_LEVEL_COMMANDS as readonly string[]).includes(arg);
  }
  return true;
}

/**
 * The commander tree, from the registry (commands/index.ts). With `argv`, only the module of the
 * top-level command it names is imported and defined (with its subcommands), when that can be told;
 * a command line that needs only the root help or the command names (`needsOnlyHeads`) gets a
 * shallow tree made from commands/heads.ts without loading any command module (the same root help,
 * byte for byte); anything else (`help <command>`, completion scripts) gets the whole tree.
 */
export async function buildProgram(ctx: CliContext, state: RunState, argv?: readonly string[]): Promise<Command> {
  const program = new Command('paycli');
  program
    .description('The command-line companion for iPaymu API v2 merchants: regions, payments, callbacks and a local gateway emulator.')
    .version(VERSION, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .option('--json', 'machine-readable output: one JSON document on stdout (NDJSON for streams)')
    .option('--no-color', 'disable colors (also NO_COLOR, TERM=dumb)')
    .option('--no-input', 'never prompt; a missing value is an error')
    .option('--debug', 'print stack traces of errors')
    .option('-y, --yes', 'confirm production payments without asking')
    .option('--env <name>', 'environment: sandbox, production or local (PAYCLI_ENV; default sandbox)')
    .option('--profile <name>', 'named profile from the user config (PAYCLI_PROFILE)')
    .option('--va <va>', 'merchant virtual account number (PAYCLI_VA)')
    .option('--api-key <key>', 'API key (discouraged: shell history; prefer PAYCLI_API_KEY or --api-key-file)')
    .option('--api-key-file <file>', 'read the API key from a file')
    .option('--base-url <url>', 'API root including /api (PAYCLI_BASE_URL)')
    // Every subcommand's --help also lists the global flags it accepts (--json, --env, --va, …).
    .configureHelp({ showGlobalOptions: true })
    .addHelpText('after', ROOT_EPILOGUE)
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: (s) => ctx.stdout.write(s),
      writeErr: (s) => ctx.stderr.write(s),
      outputError: (s) => {
        state.commanderMessage = s;
      },
      getOutHelpWidth: () => terminalWidth(ctx.columns),
      getErrHelpWidth: () => terminalWidth(ctx.columns),
      // Our own color decision, from the context: commander's default would create process.stdout.
      getOutHasColors: () => colorLevel(ctx, {}, ctx.stdoutIsTTY) > 0,
      getErrHasColors: () => colorLevel(ctx, {}, ctx.stderrIsTTY) > 0,
    });

  // Runs a handler: output and session are made when the command runs, never for --help.
  const bind: Bind = (cmd, handler) => {
    cmd.action(async (...args: unknown[]) => {
      const self = args[args.length - 1] as Command;
      const positional = args.slice(0, -2);
      const opts = self.optsWithGlobals() as CommonOptions;
      const out = await Output.create(ctx, opts);
      // Loaded here, not at the top: `--help` and `--version` never need configuration or HTTP.
      const { Session } = await import('./session.js');
      const session = new Session(ctx, out, RUN_DURATION_TIMEOUT.has(self) ? { ...opts, timeout: undefined } : opts);
      try {
        const stray = strayParentOption(self);
        if (stray) throw stray;
        const env = { ctx, out, session, opts, tree: () => buildProgram(ctx, { code: 0 }) } as CommandEnv<never>;
        state.code = exitCodeOf(await (handler as unknown as (env: CommandEnv<never>, ...rest: unknown[]) => Promise<Outcome>)(env, ...positional));
      } catch (err) {
        state.code = exitCodeOf(out.fail(err));
      } finally {
        await session.close().catch(() => undefined);
      }
    });
  };

  const valueOptions = new Set(
    program.options.filter((o) => o.required || o.optional).flatMap((o) => [o.long, o.short].filter((f): f is string => Boolean(f))),
  );
  if (argv && needsOnlyHeads(argv, valueOptions)) {
    for (const entry of REGISTRY) {
      program.commandsGroup(entry.group);
      topCommand(program, entry.name);
    }
    // The heads carry no options: the `[options]` of a command's line comes from its head.
    program.configureHelp({
      showGlobalOptions: true,
      subcommandTerm(this: Help, cmd) {
        const head = cmd.parent === program ? (HEADS as Partial<Record<string, (typeof HEADS)[keyof typeof HEADS]>>)[cmd.name()] : undefined;
        return head ? headTerm(head) : Help.prototype.subcommandTerm.call(this, cmd);
      },
    });
    return program;
  }
  const only = argv && topLevelCommandOf(argv, valueOptions);
  const entries = REGISTRY.filter((c) => only === undefined || c.name === only);
  const modules = await Promise.all(entries.map((c) => c.load()));
  entries.forEach((entry, i) => {
    program.commandsGroup(entry.group);
    const define = (modules[i]!.commands as Partial<Record<string, Define>>)[entry.name];
    if (!define) throw new Error(`commands/index.ts: the module of \`${entry.name}\` does not define it`);
    define(program, bind);
  });
  for (const cmd of allCommands(program)) {
    cmd.exitOverride();
    cmd.showSuggestionAfterError(true);
  }
  return program;
}

function* allCommands(cmd: Command): Generator<Command> {
  for (const sub of cmd.commands) {
    yield sub;
    yield* allCommands(sub);
  }
}

/** The command's words after `paycli` (`sandbox list`). */
function commandWords(cmd: Command): string {
  const words: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) words.unshift(c.name());
  return words.join(' ');
}

/**
 * An option of a command above `cmd` (never the root program's: those are global) given on the
 * command line while `cmd` runs. Commander accepts it anywhere, and it does nothing there:
 * `paycli sandbox list --port 4020` listed the emulator on 4010. A usage error; for `--port` on a
 * command that talks to a running emulator, the hint says how to aim at one (--sandbox-url).
 */
export function strayParentOption(cmd: Command): UsageError | undefined {
  for (let parent = cmd.parent; parent?.parent; parent = parent.parent) {
    for (const option of parent.options) {
      const key = option.attributeName();
      if (parent.getOptionValueSource(key) !== 'cli') continue;
      // A subcommand that declares the same flag uses it (commander hands it to the parent, and
      // the handler reads it with the parent's options): `sandbox seed --data-dir DIR`.
      if (option.long && cmd.options.some((o) => o.long === option.long)) continue;
      const flag = option.long ?? option.short ?? key;
      const value = parent.getOptionValue(key);
      const hint =
        key === 'port' && cmd.options.some((o) => o.long === '--sandbox-url')
          ? `to reach the emulator listening on port ${String(value)}, pass --sandbox-url http://127.0.0.1:${String(value)} (or set PAYCLI_SANDBOX_URL)`
          : `${flag} is for \`paycli ${commandWords(parent)}\` itself; see \`paycli ${commandWords(cmd)} --help\``;
      return new UsageError(`${flag} does nothing for \`paycli ${commandWords(cmd)}\`: it is an option of \`paycli ${commandWords(parent)}\``, { hint });
    }
  }
  return undefined;
}
