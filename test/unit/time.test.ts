import { describe, expect, it } from 'vitest';
import { formatJakarta, isoJakarta, jakartaTimestamp, parseWib } from '../../src/core/time.js';

describe('Jakarta time (core/time.ts)', () => {
  it('formats UTC instants in WIB (UTC+7) and parses them back', () => {
    const d = new Date('2026-11-22T17:30:05Z');
    expect(formatJakarta(d)).toBe('2026-11-23 00:30:05');
    expect(jakartaTimestamp(d)).toBe('20261123003005');
    expect(isoJakarta(d)).toBe('2026-11-23T00:30:05+07:00');
    expect(parseWib(formatJakarta(d))?.toISOString()).toBe(d.toISOString());
    expect(parseWib('2026-11-23T00:30:05')?.toISOString()).toBe(d.toISOString());
  });

  it('refuses what is not a WIB date-time', () => {
    for (const bad of ['2026-11-23', '23/11/2026 00:30:05', '', null, 20261123]) expect(parseWib(bad)).toBeUndefined();
  });
});
