import { Command } from 'commander';
import type { CliContext } from './context.js';
import type { CommandEnv } from './command-env.js';
import { RUN_DURATION_TIMEOUT, type Bind, type Define } from './command-kit.js';
import { EXIT_TABLE } from './exit-codes.js';
import { colorLevel, Output } from './output.js';
import type { CommonOptions } from './session.js';
import { VERSION } from './version.js';
import { REGISTRY, TOP_LEVEL_COMMANDS } from './commands/index.js';

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
 * The commander tree, from the registry (commands/index.ts). With `argv`, only the module of the
 * top-level command it names is imported and defined (with its subcommands), when that can be told;
 * anything else (root help, a typo for did-you-mean) gets the whole tree.
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
      getOutHelpWidth: () => ctx.columns ?? 80,
      getErrHelpWidth: () => ctx.columns ?? 80,
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
        const env = { ctx, out, session, opts, tree: () => buildProgram(ctx, { code: 0 }) } as CommandEnv<never>;
        state.code = await (handler as unknown as (env: CommandEnv<never>, ...rest: unknown[]) => Promise<number>)(env, ...positional);
      } catch (err) {
        state.code = out.fail(err);
      } finally {
        await session.close().catch(() => undefined);
      }
    });
  };

  const valueOptions = new Set(program.options.filter((o) => o.required || o.optional).flatMap((o) => [o.long, o.short].filter((f): f is string => Boolean(f))));
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

