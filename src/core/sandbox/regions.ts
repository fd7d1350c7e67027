import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Region } from '../api/areas.js';

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

function parseRows(text: string, onRow: (code: string, parent: string, name: string) => void, hasParent: boolean): number {
  let n = 0;
  let start = text.indexOf('\n') + 1; // skip the header
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const line = text.charCodeAt(end - 1) === 13 ? text.slice(start, end - 1) : text.slice(start, end);
    start = end + 1;
    if (line === '') continue;
    const c1 = line.indexOf(',');
    const c2 = hasParent ? line.indexOf(',', c1 + 1) : c1;
    const code = line.slice(0, c1).replace(/\./g, '');
    const parent = hasParent ? line.slice(c1 + 1, c2).replace(/\./g, '') : '';
    let name = line.slice(c2 + 1).trim();
    if (name.startsWith('"') && name.endsWith('"')) name = name.slice(1, -1).replace(/""/g, '"');
    onRow(code, parent, name.toUpperCase());
    n++;
  }
  return n;
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
