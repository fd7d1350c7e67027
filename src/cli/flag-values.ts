import { UsageError } from '../core/errors.js';

// Parsers of flag values that several commands share.

/** Parses `--port`; 0 means any free port. */
export function parsePort(value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535) throw new UsageError(`invalid --port "${value}": expected 0–65535`);
  return n;
}
