import { parseDuration } from '../duration.js';
import type { DeliveryFaults } from './outbox.js';

/**
 * Faults the emulator injects, from `--faults`: on callbacks (duplicate, delay=DURATION,
 * concurrent-duplicate=N) and on the API, for the merchant's own client (api-500=RATE,
 * api-timeout=RATE, api-slow=DURATION, each optionally scoped to a path with `@/v2/payment/direct`).
 * A faulted API request is answered (or dropped) before any route runs: it changes no state.
 */
export interface ApiFault {
  kind: 'api-500' | 'api-timeout' | 'api-slow';
  /** Share of matching requests that fail (api-500, api-timeout), 0–1. */
  rate: number;
  /** api-slow: the delay before the request is handled. */
  delayMs: number;
  /** Only requests whose path starts with this (with or without the `/api` prefix). */
  path?: string;
}

export interface Faults {
  delivery: DeliveryFaults;
  api: ApiFault[];
}

function rateOf(text: string, name: string): number {
  if (!/^(0(\.\d+)?|1(\.0+)?|\.\d+)$/.test(text)) throw new Error(`${name} needs a rate between 0 and 1 (e.g. ${name}=0.3), not "${text}"`);
  return Number(text);
}

/** Parses `--faults`; throws an Error saying what is wrong. */
export function parseFaults(text: string): Faults {
  const delivery: DeliveryFaults = {};
  const api: ApiFault[] = [];
  for (const raw of text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [name, valueAndPath] = raw.includes('=') ? [raw.slice(0, raw.indexOf('=')), raw.slice(raw.indexOf('=') + 1)] : [raw, undefined];
    if (name === 'duplicate' && valueAndPath === undefined) delivery.duplicate = true;
    else if (name === 'delay' && valueAndPath !== undefined) delivery.delayMs = parseDuration(valueAndPath);
    else if (name === 'concurrent-duplicate') {
      const n = Number(valueAndPath ?? '1');
      if (!Number.isInteger(n) || n < 1 || n > 50) throw new Error(`concurrent-duplicate needs a count from 1 to 50, not "${valueAndPath}"`);
      delivery.concurrentDuplicates = n;
    } else if ((name === 'api-500' || name === 'api-timeout' || name === 'api-slow') && valueAndPath !== undefined) {
      const at = valueAndPath.indexOf('@');
      const value = at < 0 ? valueAndPath : valueAndPath.slice(0, at);
      const path = at < 0 ? undefined : valueAndPath.slice(at + 1);
      if (path !== undefined && !path.startsWith('/')) throw new Error(`the path of ${name} must start with /, not "${path}"`);
      if (name === 'api-slow') api.push({ kind: name, rate: 1, delayMs: parseDuration(value), ...(path ? { path } : {}) });
      else api.push({ kind: name, rate: rateOf(value, name), delayMs: 0, ...(path ? { path } : {}) });
    } else throw new Error(`unknown fault "${raw}"`);
  }
  return { delivery, api };
}

/** Whether a fault applies to a request path (`/api/v2/payment/direct` matches `@/v2/payment/direct` too). */
export function faultMatches(f: ApiFault, path: string): boolean {
  if (!path.startsWith('/api/')) return false;
  if (!f.path) return true;
  const p = f.path.replace(/\/+$/, '');
  return path === p || path.startsWith(`${p}/`) || path === `/api${p}` || path.startsWith(`/api${p}/`);
}

/** What happens to one API request: nothing, a delay, a 500, or no answer at all. */
export type FaultVerdict = { delayMs: number; fail?: 'api-500' | 'api-timeout' };

/** Draws the faults for one request (random per `random()`, injectable for tests). */
export function drawFaults(faults: readonly ApiFault[], path: string, random: () => number = Math.random): FaultVerdict {
  let delayMs = 0;
  let fail: FaultVerdict['fail'];
  for (const f of faults) {
    if (!faultMatches(f, path)) continue;
    if (f.kind === 'api-slow') delayMs += f.delayMs;
    else if (!fail && random() < f.rate) fail = f.kind;
  }
  return fail ? { delayMs, fail } : { delayMs };
}
