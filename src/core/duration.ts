/**
 * Durations given on the command line: `500ms`, `2s`, `1m`, `1h`, `7d` or bare milliseconds.
 *
 * Node's timers take at most 2^31 − 1 ms (about 24.8 days); a longer delay fires at once with a
 * warning. A duration that feeds a timer is therefore refused above that maximum by default.
 */

/** The longest delay `setTimeout` honours: 2^31 − 1 ms (24 days, 20 h, 31 min, 23.647 s). */
export const TIMER_MAX_MS = 2 ** 31 - 1;

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

export interface DurationOptions {
  /** The longest duration accepted, in ms (default: TIMER_MAX_MS). */
  maxMs?: number;
}

/** A readable form of the timer maximum, used in error messages. */
export function describeMaxMs(maxMs: number): string {
  return maxMs === TIMER_MAX_MS ? `${TIMER_MAX_MS}ms (about 24.8 days, the longest timer Node.js allows)` : `${maxMs}ms`;
}

/** Parses one duration into whole milliseconds; throws an Error naming the limit when out of range. */
export function parseDuration(text: string, options: DurationOptions = {}): number {
  const maxMs = options.maxMs ?? TIMER_MAX_MS;
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(text);
  if (!m) throw new Error(`invalid duration "${text}" (examples: 500ms, 2s, 1m, 7d)`);
  const ms = Math.round(Number(m[1]) * UNITS[m[2] ?? 'ms']!);
  if (!(ms <= maxMs)) throw new Error(`duration "${text}" is too long: the maximum is ${describeMaxMs(maxMs)}`);
  return ms;
}

/** Parses `500ms,1s,2s,1m` into milliseconds, each within the same limit. */
export function parseDurationList(text: string, options: DurationOptions = {}): number[] {
  return text.split(',').map((part) => parseDuration(part.trim(), options));
}

/** A duration for people: `1d 1h`, `25m`, `3s`, `500ms` (the two largest units). */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const parts: string[] = [];
  let rest = Math.floor(ms / 1000);
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3600],
    ['m', 60],
    ['s', 1],
  ] as const) {
    const n = Math.floor(rest / size);
    rest -= n * size;
    if (n > 0 || parts.length > 0) parts.push(`${n}${unit}`);
  }
  return (
    parts
      .filter((p) => !/^0/.test(p))
      .slice(0, 2)
      .join(' ') || '0s'
  );
}
