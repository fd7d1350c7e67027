import { homedir } from 'node:os';
import { fstatSync, statSync, writeSync } from 'node:fs';
import { fsError } from '../core/fs-errors.js';
import type { CliContext, TextSink } from './context.js';
import { run } from './run.js';

/**
 * Whether a standard stream is a terminal, without creating the process stream (and loading node:tty
 * and node:net, or the stream machinery, with it) when it is a pipe, a file or /dev/null: only a
 * character device can be a terminal, and /dev/null is the one such device that commonly is not.
 */
function isTerminal(fd: 0 | 1 | 2): boolean {
  try {
    const info = fstatSync(fd);
    if (!info.isCharacterDevice()) return false;
    if (process.platform !== 'win32' && info.rdev === statSync('/dev/null').rdev) return false;
  } catch {
    return false;
  }
  return Boolean((fd === 0 ? process.stdin : fd === 1 ? process.stdout : process.stderr).isTTY);
}

/** `paycli … | head` is fine: a closed stdout ends the run quietly; a full disk is a one-line error. */
function onStdoutError(err: NodeJS.ErrnoException): void {
  if (err.code === 'EPIPE') process.exit(0);
  throw fsError(err, 'standard output');
}

/**
 * stdout as synchronous writes to descriptor 1 — what Node itself does for files, pipes and terminals
 * on Linux — without loading Node's stream machinery (~1.3 ms of every run that prints). If the
 * descriptor is non-blocking and full (EAGAIN), the rest of the run writes through process.stdout.
 * Windows always uses process.stdout.
 */
function stdoutSink(): TextSink {
  let stream: NodeJS.WriteStream | undefined;
  const viaStream = (chunk: string | Uint8Array) => {
    if (!stream) {
      stream = process.stdout;
      stream.on('error', onStdoutError);
    }
    return stream.write(chunk);
  };
  if (process.platform === 'win32') return { write: viaStream };
  return {
    write(text: string) {
      if (stream) return stream.write(text);
      let rest: Uint8Array = Buffer.from(text, 'utf8');
      while (rest.length > 0) {
        try {
          rest = rest.subarray(writeSync(1, rest));
        } catch (err) {
          const code = (err as NodeJS.ErrnoException).code;
          if (code === 'EAGAIN') return viaStream(rest);
          onStdoutError(err as NodeJS.ErrnoException);
        }
      }
      return true;
    },
  };
}

/** Builds the real context from `process` and runs paycli. Used only by bin/paycli.js. */
export async function main(argv: string[]): Promise<number> {
  let controller: AbortController | undefined;
  const tty: Partial<Record<0 | 1 | 2, boolean>> = {};
  const isTTY = (fd: 0 | 1 | 2) => (tty[fd] ??= isTerminal(fd));
  const ctx: CliContext = {
    // Node creates process.stdin/stderr on first access (~1.5 ms with the stream machinery), so they
    // are reached only when a command reads or writes them.
    get stdin() {
      return process.stdin;
    },
    stdout: stdoutSink(),
    get stderr() {
      return process.stderr;
    },
    get stdinIsTTY() {
      return isTTY(0);
    },
    get stdoutIsTTY() {
      return isTTY(1);
    },
    get stderrIsTTY() {
      return isTTY(2);
    },
    env: process.env,
    cwd: process.cwd(),
    // What os.homedir() returns on POSIX when HOME is set (libuv reads it first), without loading node:os.
    homedir: process.platform !== 'win32' && process.env.HOME ? process.env.HOME : homedir(),
    now: () => new Date(),
    get columns() {
      return isTTY(1) ? process.stdout.columns : undefined;
    },
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
  return run(argv, ctx);
}
