// The emulator's region index is read lazily (a district's villages parsed when asked for): it must
// answer exactly what reading every file whole answers, for every province, city and district.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readCsv } from '../../src/core/csv.js';
import { loadRegions, lookupRegions } from '../../src/core/sandbox/regions.js';

const DATA = join(dirname(createRequire(import.meta.url).resolve('idn-area-data/package.json')), 'data');

/** The whole files parsed at once, as the emulator did before the index became lazy. */
function eager() {
  const rows = (f: string) =>
    readCsv(readFileSync(join(DATA, f), 'utf8'))
      .slice(1)
      .map((r) => r.cells);
  const undot = (s: string) => s.replace(/\./g, '');
  const children = new Map<string, { code: string; name: string; postal_code?: null }[]>();
  const add = (parent: string, r: { code: string; name: string; postal_code?: null }) =>
    (children.get(parent) ?? children.set(parent, []).get(parent)!).push(r);
  const provinces = rows('provinces.csv').map((c) => ({ code: undot(c[0]!), name: c[1]!.trim().toUpperCase() }));
  provinces.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const f of ['regencies.csv', 'districts.csv']) for (const c of rows(f)) add(undot(c[1]!), { code: undot(c[0]!), name: c[2]!.trim().toUpperCase() });
  const villages = rows('villages.csv');
  for (const c of villages) add(undot(c[1]!), { code: undot(c[0]!), name: c[2]!.trim().toUpperCase(), postal_code: null });
  return { provinces, children, villages: villages.length };
}

describe('the region index (read lazily)', () => {
  it('answers every lookup as reading the files whole does, and counts the same', async () => {
    const index = await loadRegions();
    const whole = eager();
    expect(lookupRegions(index, 'province')).toEqual(whole.provinces);
    let villages = 0;
    for (const p of whole.provinces) {
      expect(lookupRegions(index, 'city', p.code)).toEqual(whole.children.get(p.code) ?? []);
      for (const c of whole.children.get(p.code) ?? []) {
        expect(lookupRegions(index, 'district', c.code)).toEqual(whole.children.get(c.code) ?? []);
        for (const d of whole.children.get(c.code) ?? []) {
          const got = lookupRegions(index, 'village', d.code);
          expect(got).toEqual(whole.children.get(d.code) ?? []);
          villages += got.length;
        }
      }
    }
    expect(villages).toBe(whole.villages);
    expect(index.counts).toEqual({ provinces: whole.provinces.length, cities: 514, districts: 7277, villages: whole.villages });
    // A name with a quote inside it (the data has some) is read as the whole-file reader reads it.
    expect(whole.villages).toBeGreaterThan(80_000);
    expect([...whole.children.values()].flat().some((r) => r.name.includes('"'))).toBe(true);
    expect(lookupRegions(index, 'village', '999999')).toEqual([]);
    expect(lookupRegions(index, 'city', '1101')).toEqual([]);
  });
});
