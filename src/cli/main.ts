import { homedir } from 'node:os';
import { fstatSync } from 'node:fs';

/**
 * Whether a standard stream is a terminal, without loading node:tty (and with it node:net) when the
 * stream is a pipe or a file: only a character device can be a terminal.
 */
function isTerminal(fd: 0 | 2): boolean {
  try {
    if (!fstatSync(fd).isCharacterDevice()) return false;
  } catch {
    return false;
  }
  return Boolean((fd === 0 ? process.stdin : process.stderr).isTTY);
}
import type { CliContext } from './context.js';
import { run } from './run.js';

/** Builds the real context from `process` and runs paycli. Used only by bin/paycli.js. */
export async function main(argv: string[]): Promise<number> {
  let controller: AbortController | undefined;
  const ctx: CliContext = {
    // Node creates process.stdin/stderr on first access (~1.5 ms with the stream machinery), so they
    // are reached only when a command reads or writes them.
    get stdin() {
      return process.stdin;
    },
    stdout: process.stdout,
    get stderr() {
      return process.stderr;
    },
    get stdinIsTTY() {
      return isTerminal(0);
    },
    stdoutIsTTY: Boolean(process.stdout.isTTY),
    get stderrIsTTY() {
      return isTerminal(2);
    },
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
