import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import type { CliContext } from '../../src/cli/context.js';
import { run } from '../../src/cli/run.js';

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface TestCtxOptions {
  env?: Record<string, string | undefined>;
  stdin?: string;
  tty?: boolean;
  home?: string;
  cwd?: string;
  now?: () => Date;
  signal?: AbortSignal;
}

/** A temporary home directory, removed by the returned cleanup. */
export function tempHome(): { home: string; cleanup: () => void } {
  const home = mkdtempSync(join(tmpdir(), 'paycli-test-'));
  return { home, cleanup: () => rmSync(home, { recursive: true, force: true }) };
}

/** Builds a context with captured streams; the caller reads `out()`/`err()`. */
export function testContext(o: TestCtxOptions = {}): { ctx: CliContext; out: () => string; err: () => string } {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let outText = '';
  let errText = '';
  stdout.on('data', (c: Buffer) => (outText += c.toString('utf8')));
  stderr.on('data', (c: Buffer) => (errText += c.toString('utf8')));
  const home = o.home ?? '/nonexistent-home';
  const ctx: CliContext = {
    stdin: Readable.from(o.stdin === undefined ? [] : [Buffer.from(o.stdin)]),
    stdout,
    stderr,
    stdinIsTTY: o.tty ?? false,
    stdoutIsTTY: o.tty ?? false,
    stderrIsTTY: o.tty ?? false,
    env: { ...o.env },
    cwd: o.cwd ?? home,
    homedir: home,
    now: o.now ?? (() => new Date()),
    interrupts: () => o.signal ?? new AbortController().signal,
  };
  return { ctx, out: () => outText, err: () => errText };
}

/** Runs paycli in-process; never throws. */
export async function runCli(argv: string[], o: TestCtxOptions = {}): Promise<RunResult> {
  const { ctx, out, err } = testContext(o);
  const code = await run(argv, ctx);
  await new Promise((r) => setImmediate(r));
  return { code, stdout: out(), stderr: err() };
}
