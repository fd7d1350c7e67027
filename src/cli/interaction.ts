import type { CliContext } from './context.js';

/** Prompts only when stdin and stderr are TTYs and --no-input is absent. */
export function canPrompt(ctx: CliContext, opts: { input?: boolean }): boolean {
  return ctx.stdinIsTTY && ctx.stderrIsTTY && opts.input !== false;
}
