import type { Readable, Writable } from 'node:stream';
import type { Dispatcher } from 'undici';

/** Where results go: only `write` is used, so a captured stream or a plain file-descriptor writer fits. */
export interface TextSink {
  write(text: string): unknown;
}

/**
 * Everything a command may touch of the outside world. `bin/paycli.js` builds it from `process`;
 * tests build it with captured streams, a fixed clock and a temporary home.
 */
export interface CliContext {
  stdin: Readable;
  stdout: TextSink;
  stderr: Writable;
  stdinIsTTY: boolean;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  env: Record<string, string | undefined>;
  cwd: string;
  homedir: string;
  now(): Date;
  /** Called by long-running commands (listen, sandbox): aborted on SIGINT/SIGTERM. */
  interrupts(): AbortSignal;
  /** An undici dispatcher for API calls (tests, proxies); the default agent otherwise. */
  dispatcher?: Dispatcher;
  /** Terminal width for tables, when known. */
  columns?: number;
}
