import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Region } from '../api/areas.js';
import { readCsv } from '../csv.js';

/**
 * Indonesian regions from the `idn-area-data` package (ODbL): codes without dots, names upper-case,
 * provinces sorted by name, other levels in the package's natural order. The package has no postal
 * codes, so villages carry `postal_code: null` (the spec's value when unknown).
 */
export interface RegionIndex {
  provinces: Region[];
  children: Map<string, Region[]>;
  counts: { provinces: number; cities: number; districts: number; villages: number };
}

function dataDir(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('idn-area-data/package.json')), 'data');
}

/** Rows of one data file (header skipped): code and parent without dots, the name upper-case. */
function parseRows(text: string, onRow: (code: string, parent: string, name: string) => void, hasParent: boolean): number {
  const rows = readCsv(text);
  for (let i = 1; i < rows.length; i++) {
    const c = rows[i]!.cells;
    const code = c[0]!.replace(/\./g, '');
    const parent = hasParent ? c[1]!.replace(/\./g, '') : '';
    onRow(code, parent, c[hasParent ? 2 : 1]!.trim().toUpperCase());
  }
  return Math.max(0, rows.length - 1);
}

let shared: Promise<RegionIndex> | undefined;

/** Loads and indexes the region data once per process. */
export function loadRegions(): Promise<RegionIndex> {
  shared ??= (async () => {
    const dir = dataDir();
    const [p, r, d, v] = await Promise.all(['provinces.csv', 'regencies.csv', 'districts.csv', 'villages.csv'].map((f) => readFile(join(dir, f), 'utf8')));
    const children = new Map<string, Region[]>();
    const add = (parent: string, region: Region) => {
      const list = children.get(parent);
      if (list) list.push(region);
      else children.set(parent, [region]);
    };
    const provinces: Region[] = [];
    const counts = {
      provinces: parseRows(p!, (code, _parent, name) => provinces.push({ code, name }), false),
      cities: parseRows(r!, (code, parent, name) => add(parent, { code, name }), true),
      districts: parseRows(d!, (code, parent, name) => add(parent, { code, name }), true),
      villages: parseRows(v!, (code, parent, name) => add(parent, { code, name, postal_code: null }), true),
    };
    provinces.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return { provinces, children, counts };
  })();
  return shared;
}

/** The regions one lookup returns; unknown or childless codes give an empty list. */
export function lookupRegions(index: RegionIndex, level: string, code?: string): Region[] {
  if (level === 'province') return index.provinces;
  const expectedLength: Record<string, number> = { city: 2, district: 4, village: 6 };
  if (code === undefined || code.length !== expectedLength[level]) return [];
  return index.children.get(code) ?? [];
}
