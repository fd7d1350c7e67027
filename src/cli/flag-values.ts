import { UsageError } from '../core/errors.js';

// Parsers of flag values that several commands share.

/** Parses `--port`; 0 means any free port. */
export function parsePort(value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535) throw new UsageError(`invalid --port "${value}": expected 0–65535`);
  return n;
}

/** Parses a whole-number flag from `min` (to `max` when given); undefined when the flag is absent. */
export function wholeNumberFlag(v: string | undefined, flag: string, min: number, max?: number): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v) || Number(v) < min || (max !== undefined && Number(v) > max))
    throw new UsageError(`invalid ${flag} "${v}" (a whole number from ${min}${max !== undefined ? ` to ${max}` : ''})`);
  return Number(v);
}
