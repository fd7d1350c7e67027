import type { Command } from 'commander';
import type { CliContext } from './context.js';
import type { Outcome } from './exit-codes.js';
import type { Output } from './output.js';
import type { CommonOptions, Session } from './session.js';

/** What a command handler receives. */
export interface CommandEnv<O = object> {
  ctx: CliContext;
  out: Output;
  session: Session;
  opts: CommonOptions & O;
  /** The whole command tree (completion scripts are generated from it). */
  tree(): Promise<Command>;
}

/**
 * A command implementation: returns its outcome (`ok` or what went wrong; exit-codes.ts maps it to
 * the exit code; it never calls process.exit). Its option type `O` is checked against its
 * definition by `bind` (command-kit.ts).
 */
export type Handler<O = object> = (env: CommandEnv<O>, ...args: any[]) => Promise<Outcome>;
