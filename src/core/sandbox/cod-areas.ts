import type { RegionIndex } from './regions.js';

/**
 * COD delivery areas and shipping rates in the emulator (docs/emulator-fidelity.md, "COD logistics").
 *
 * An area is a village (kelurahan/desa) of the region data the emulator already indexes for the Area
 * API; its id is the village's code as a number (`3173051001`). The answer's item has the fields of
 * the gateway's saved answer (its Postman collection, "Direct Payment COD" → area):
 * `id`, `label` (`VILLAGE, DISTRICT, CITY, ZIP`), `subdistrict_name`, `district_name`, `city_name`,
 * `zip_code`. The region data has no postal codes: `zip_code` is `""` (an assumption).
 */
export interface CodAreaItem {
  id: number;
  label: string;
  subdistrict_name: string;
  district_name: string;
  city_name: string;
  zip_code: string;
}

interface Village {
  code: string;
  /** Upper-case `VILLAGE, DISTRICT, CITY` for the search. */
  label: string;
  village: string;
  district: string;
  city: string;
}

const built = new WeakMap<RegionIndex, { villages: Village[]; byCode: Map<string, Village> }>();

function villagesOf(index: RegionIndex): { villages: Village[]; byCode: Map<string, Village> } {
  let v = built.get(index);
  if (v) return v;
  const villages: Village[] = [];
  for (const p of index.provinces) {
    for (const c of index.children.get(p.code) ?? []) {
      for (const d of index.children.get(c.code) ?? []) {
        for (const vil of index.children.get(d.code) ?? [])
          villages.push({ code: vil.code, label: `${vil.name}, ${d.name}, ${c.name}`, village: vil.name, district: d.name, city: c.name });
      }
    }
  }
  v = { villages, byCode: new Map(villages.map((x) => [x.code, x])) };
  built.set(index, v);
  return v;
}

/** The fewest characters a search takes (a third-party client of the gateway notes "min. 3 characters"). */
export const AREA_QUERY_MIN = 3;
/** The most areas one search answers. */
export const AREA_RESULTS_MAX = 50;

function item(v: Village): CodAreaItem {
  return { id: Number(v.code), label: v.label, subdistrict_name: v.village, district_name: v.district, city_name: v.city, zip_code: '' };
}

/**
 * Areas whose label contains every word of the query (case-insensitive), best first: the query as
 * a village's or district's whole name, then as a phrase anywhere in the label, then a village whose
 * name starts with its first word, then the rest; at most AREA_RESULTS_MAX.
 */
export function searchAreas(index: RegionIndex, query: string): CodAreaItem[] {
  const words = query
    .toUpperCase()
    .split(/[\s,]+/)
    .filter(Boolean);
  if (words.length === 0) return [];
  const phrase = words.join(' ');
  const tiers: Village[][] = [[], [], [], []];
  for (const v of villagesOf(index).villages) {
    if (!words.every((w) => v.label.includes(w))) continue;
    const tier = v.village === phrase || v.district === phrase ? 0 : v.label.includes(phrase) ? 1 : v.village.startsWith(words[0]!) ? 2 : 3;
    if (tiers[tier]!.length < AREA_RESULTS_MAX) tiers[tier]!.push(v);
    if (tiers[0]!.length >= AREA_RESULTS_MAX) break;
  }
  return tiers.flat().slice(0, AREA_RESULTS_MAX).map(item);
}

/** The area of an id, or undefined. */
export function areaById(index: RegionIndex, id: unknown): CodAreaItem | undefined {
  const code = typeof id === 'number' ? String(id) : typeof id === 'string' ? id.trim() : '';
  if (!/^\d{10}$/.test(code)) return undefined;
  const v = villagesOf(index).byCode.get(code);
  return v && item(v);
}

/** One courier service of the rate model. */
export interface CodRateItem {
  shipping: string;
  shippingService: string;
  name: string;
  price: number;
  etd: string;
}

/**
 * The rate model (an assumption: the gateway publishes no rate answer). Two services named by the
 * gateway's sources — `IDEXPRESS`/`STD` (Postman) and `RPX`/`REG` (docs table) — priced per started
 * kilogram by zone: 0 the same district, 1 the same city, 2 the same province, 3 elsewhere.
 */
const SERVICES: readonly { shipping: string; service: string; name: string; perKg: readonly number[]; etd: readonly string[] }[] = [
  { shipping: 'IDEXPRESS', service: 'STD', name: 'ID Express Standard', perKg: [8000, 10000, 14000, 22000], etd: ['1-2', '1-2', '2-3', '3-6'] },
  { shipping: 'RPX', service: 'REG', name: 'RPX Regular', perKg: [9000, 11000, 16000, 25000], etd: ['1', '1-2', '2-3', '3-5'] },
];

export function zoneOf(from: number, to: number): number {
  const a = String(from);
  const b = String(to);
  if (a.slice(0, 6) === b.slice(0, 6)) return 0;
  if (a.slice(0, 4) === b.slice(0, 4)) return 1;
  if (a.slice(0, 2) === b.slice(0, 2)) return 2;
  return 3;
}

/** The services and prices of a parcel of `weightKg` between two areas. */
export function shippingRates(from: CodAreaItem, to: CodAreaItem, weightKg: number): CodRateItem[] {
  const zone = zoneOf(from.id, to.id);
  const kg = Math.max(1, Math.ceil(weightKg));
  return SERVICES.map((s) => ({ shipping: s.shipping, shippingService: s.service, name: s.name, price: s.perKg[zone]! * kg, etd: `${s.etd[zone]} days` }));
}

/** The longest estimate of a service in days (when the clock delivers a parcel), or undefined for an unknown service. */
export function deliveryDays(shipping: string, service: string, from: number | undefined, to: number | undefined): number | undefined {
  const s = SERVICES.find((x) => x.shipping === shipping.toUpperCase() && x.service === service.toUpperCase());
  if (!s) return undefined;
  const zone = from !== undefined && to !== undefined ? zoneOf(from, to) : 3;
  return Number(s.etd[zone]!.split('-').at(-1));
}

/** Whether the rate model knows a courier and service (what direct payment accepts for COD). */
export function knownService(shipping: string, service: string): boolean {
  return SERVICES.some((x) => x.shipping === shipping.toUpperCase() && x.service === service.toUpperCase());
}
