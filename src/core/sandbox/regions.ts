import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Region } from '../api/areas.js';
import { readCsv } from '../csv.js';

/**
 * Indonesian regions from the `idn-area-data` package (ODbL): codes without dots, names upper-case,
 * provinces sorted by name, other levels in the package's natural order. The package has no postal
 * codes, so villages carry `postal_code: null` (the spec's value when unknown).
 *
 * Read when first asked, never at start: provinces, cities and districts (~200 KB) at the first
 * lookup; the villages (2.8 MB, 83 763 of them) as text with the line range of each district, a
 * district's villages parsed when that district is asked for; the counts by counting lines. Building all of them as objects took
 * ~170 ms and ~75 MiB, paid by every emulator start whether or not an area was ever looked up.
 */
export interface RegionIndex {
  readonly provinces: Region[];
  /** The regions under a code (a province's cities, a city's districts, a district's villages). */
  readonly children: { get(parent: string): Region[] | undefined };
  readonly counts: { provinces: number; cities: number; districts: number; villages: number };
}

function dataDir(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('idn-area-data/package.json')), 'data');
}

const undotted = (code: string) => code.replace(/\./g, '');

/** Rows of one data file (header skipped): code and parent without dots, the name upper-case. */
function parseRows(text: string, onRow: (code: string, parent: string, name: string) => void, hasParent: boolean): number {
  const rows = readCsv(text);
  for (let i = 1; i < rows.length; i++) {
    const c = rows[i]!.cells;
    onRow(undotted(c[0]!), hasParent ? undotted(c[1]!) : '', c[hasParent ? 2 : 1]!.trim().toUpperCase());
  }
  return Math.max(0, rows.length - 1);
}

/** The villages file as text, with where each district's lines are (they are contiguous in it). */
interface VillageText {
  text: string;
  ranges: Map<string, [number, number]>;
}

function indexVillages(text: string): VillageText {
  const ranges = new Map<string, [number, number]>();
  let current: [number, number] | undefined;
  let dotted = ''; // the current district's code as the file writes it
  let at = text.indexOf('\n') + 1; // after the header
  while (at > 0 && at < text.length) {
    const nl = text.indexOf('\n', at);
    const end = nl < 0 ? text.length : nl + 1;
    const c1 = text.indexOf(',', at);
    // A name with a quote goes through the CSV reader like the rest: its parent still sits between the first two commas.
    if (c1 >= 0 && c1 < end) {
      if (current && text.startsWith(dotted, c1 + 1) && text.charCodeAt(c1 + 1 + dotted.length) === 44) current[1] = end;
      else {
        const c2 = text.indexOf(',', c1 + 1);
        dotted = text.slice(c1 + 1, c2 < 0 || c2 > end ? end : c2);
        const district = undotted(dotted);
        if (ranges.has(district)) throw new Error(`region data: the villages of district ${district} are not contiguous`);
        ranges.set(district, (current = [at, end]));
      }
    }
    at = end;
  }
  return { text, ranges };
}

/** Records of a data file without parsing it (the emulator's start-up banner names the counts): its lines but the header. */
function countRows(file: string): number {
  const buf = readFileSync(file);
  let lines = 0;
  for (let i = buf.indexOf(10); i !== -1; i = buf.indexOf(10, i + 1)) lines++;
  if (buf.length > 0 && buf[buf.length - 1] !== 10) lines++;
  return Math.max(0, lines - 1);
}

class LazyRegions implements RegionIndex {
  private upper?: { provinces: Region[]; children: Map<string, Region[]> };
  private counted?: RegionIndex['counts'];
  private villageText?: VillageText;
  private readonly villages = new Map<string, Region[]>();

  constructor(private readonly dir: string) {}

  private get top() {
    if (this.upper) return this.upper;
    const read = (f: string) => readFileSync(join(this.dir, f), 'utf8');
    const children = new Map<string, Region[]>();
    const add = (parent: string, region: Region) => {
      const list = children.get(parent);
      if (list) list.push(region);
      else children.set(parent, [region]);
    };
    const provinces: Region[] = [];
    parseRows(read('provinces.csv'), (code, _parent, name) => provinces.push({ code, name }), false);
    parseRows(read('regencies.csv'), (code, parent, name) => add(parent, { code, name }), true);
    parseRows(read('districts.csv'), (code, parent, name) => add(parent, { code, name }), true);
    provinces.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return (this.upper = { provinces, children });
  }

  private get villageIndex(): VillageText {
    return (this.villageText ??= indexVillages(readFileSync(join(this.dir, 'villages.csv'), 'utf8')));
  }

  get provinces(): Region[] {
    return this.top.provinces;
  }

  get counts(): RegionIndex['counts'] {
    const at = (f: string) => countRows(join(this.dir, f));
    return (this.counted ??= { provinces: at('provinces.csv'), cities: at('regencies.csv'), districts: at('districts.csv'), villages: at('villages.csv') });
  }

  readonly children = {
    get: (parent: string): Region[] | undefined => {
      const upper = this.top.children.get(parent);
      if (upper) return upper;
      const cached = this.villages.get(parent);
      if (cached) return cached;
      const { text, ranges } = this.villageIndex;
      const range = ranges.get(parent);
      if (!range) return undefined;
      const list: Region[] = [];
      parseRows(`code,district_code,name\n${text.slice(range[0], range[1])}`, (code, _parent, name) => list.push({ code, name, postal_code: null }), true);
      this.villages.set(parent, list);
      return list;
    },
  };
}

let shared: RegionIndex | undefined;

/** The region data of this process (read lazily, see RegionIndex). */
export function loadRegions(): Promise<RegionIndex> {
  shared ??= new LazyRegions(dataDir());
  return Promise.resolve(shared);
}

/** The regions one lookup returns; unknown or childless codes give an empty list. */
export function lookupRegions(index: RegionIndex, level: string, code?: string): Region[] {
  if (level === 'province') return index.provinces;
  const expectedLength: Record<string, number> = { city: 2, district: 4, village: 6 };
  if (code === undefined || code.length !== expectedLength[level]) return [];
  return index.children.get(code) ?? [];
}
