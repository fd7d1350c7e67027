import { homedir } from 'node:os';
import type { CliContext } from './context.js';
import { run } from './run.js';

/** Builds the real context from `process` and runs paycli. Used only by bin/paycli.js. */
export async function main(argv: string[]): Promise<number> {
  let controller: AbortController | undefined;
  const ctx: CliContext = {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    stdinIsTTY: Boolean(process.stdin.isTTY),
    stdoutIsTTY: Boolean(process.stdout.isTTY),
    stderrIsTTY: Boolean(process.stderr.isTTY),
    env: process.env,
    cwd: process.cwd(),
    homedir: homedir(),
    now: () => new Date(),
    columns: process.stdout.columns,
    interrupts() {
      if (!controller) {
        controller = new AbortController();
        const stop = (signal: NodeJS.Signals) => {
          if (controller!.signal.aborted) process.exit(130); // a second Ctrl-C ends at once
          controller!.abort(signal);
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      }
      return controller.signal;
    },
  };
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0); // `paycli … | head` is fine
  });
  return run(argv, ctx);
}
