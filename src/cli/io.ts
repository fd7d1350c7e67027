import { readFileSync } from 'node:fs';
import { UsageError } from '../core/errors.js';
import { fsError } from '../core/fs-errors.js';
import type { CliContext } from './context.js';

/** Reads all of stdin as text. */
export async function readStdin(ctx: CliContext): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of ctx.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

/** Reads a file argument, `-` meaning stdin; a missing file is a usage error. */
export async function readInput(ctx: CliContext, file: string | undefined, what: string): Promise<string> {
  if (file === undefined || file === '-') {
    if (file === undefined && ctx.stdinIsTTY) throw new UsageError(`no ${what} given`, { hint: `pass a FILE, - for stdin, or pipe it in` });
    return readStdin(ctx);
  }
  try {
    // Synchronous: one small file, and node:fs/promises costs ~0.7 ms to load on this path.
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw fsError(err, `${what} ${file}`);
  }
}
