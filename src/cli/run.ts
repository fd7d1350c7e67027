import { CommanderError } from 'commander';
import { UsageError } from '../core/errors.js';
import type { CliContext } from './context.js';
import { EXIT, exitCodeOf } from './exit-codes.js';
import { Output } from './output.js';
import { buildProgram, type RunState } from './program.js';

/**
 * Runs paycli with the given arguments (without `node` and the script) and returns the exit code.
 * Never throws and never exits the process.
 */
export async function run(argv: string[], ctx: CliContext): Promise<number> {
  const early = { json: argv.includes('--json'), debug: argv.includes('--debug'), color: argv.includes('--no-color') ? false : undefined };
  const state: RunState = { code: EXIT.ok, commanderMessage: undefined };
  let program;
  try {
    program = await buildProgram(ctx, state, argv);
    await program.parseAsync(argv, { from: 'user' });
    return state.code;
  } catch (err) {
    const out = await Output.create(ctx, early);
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version') return EXIT.ok;
      // A group without its subcommand (`paycli areas`): commander printed the help on stderr.
      if (err.code === 'commander.help') return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
      const raw = (state.commanderMessage ?? err.message).trim().split('\n');
      const message = raw[0]!.replace(/^error:\s*/, '');
      const suggestion = raw
        .slice(1)
        .join(' ')
        .replace(/^\((.*)\)$/, '$1');
      return exitCodeOf(out.fail(new UsageError(message, { hint: suggestion || 'see `paycli --help` or `paycli <command> --help`' })));
    }
    return exitCodeOf(out.fail(err));
  }
}
