import { parseDuration } from '../core/duration.js';
import { UsageError } from '../core/errors.js';

/**
 * A duration flag (`--timeout`, `--interval`, `--deadline`, …): `500ms`, `30s`, `5m`, `2h`, `7d`,
 * or a bare number of milliseconds, above 0 and within what a timer can wait; `fallback` when the
 * flag is absent. Every command reads its time flags through this one parser.
 */
export function durationFlag(value: string | undefined, flag: string, fallback: number): number {
  if (value === undefined) return fallback;
  let ms: number;
  try {
    ms = parseDuration(String(value).trim());
  } catch (err) {
    throw new UsageError(`invalid ${flag}: ${(err as Error).message}`);
  }
  if (ms <= 0) throw new UsageError(`invalid ${flag} "${value}": it must be longer than 0`);
  return ms;
}
