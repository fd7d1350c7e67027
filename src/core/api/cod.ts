import { NetworkError, UsageError } from '../errors.js';
import { excerpt } from '../http/envelope.js';

/**
 * COD logistics (docs/merchant-api.md, "COD logistics"). The gateway's three sources give each
 * operation a different path: its Postman collection (the only one with a saved answer), its docs
 * page (`cod.en.mdx`) and its PHP SDK's `Config.php`. paycli tries them in that fixed order and
 * moves on only when a path answers 404 or 405, as `channels` does with its legacy route.
 */
export type CodOperation = 'area' | 'rate' | 'label' | 'track' | 'pickup';

export interface CodRoute {
  method: 'GET' | 'POST';
  /** Relative to the API root; `{trx}` is replaced by the transaction id. */
  path: string;
  /** Where the path comes from. */
  source: 'Postman collection' | 'docs page' | 'PHP SDK';
  /** GET: the parameters travel in the query and are signed as their JSON (the collection's rule). */
  query?: boolean;
}

export const COD_ROUTES: Readonly<Record<CodOperation, readonly CodRoute[]>> = Object.freeze({
  area: [
    { method: 'GET', path: 'v2/cod/area', source: 'Postman collection', query: true },
    { method: 'POST', path: 'v2/payment/area', source: 'docs page' },
    { method: 'POST', path: 'v2/cod/getarea', source: 'PHP SDK' },
  ],
  rate: [
    { method: 'POST', path: 'v2/cod/shipping-calculate', source: 'Postman collection' },
    { method: 'POST', path: 'v2/payment/shipping', source: 'docs page' },
    { method: 'POST', path: 'v2/cod/getrate', source: 'PHP SDK' },
  ],
  label: [
    { method: 'GET', path: 'v2/cod/download-label/{trx}', source: 'Postman collection' },
    { method: 'POST', path: 'v2/payment/label', source: 'docs page' },
    { method: 'POST', path: 'v2/cod/getawb', source: 'PHP SDK' },
  ],
  track: [
    { method: 'POST', path: 'v2/cod/tracking', source: 'Postman collection' },
    { method: 'POST', path: 'v2/payment/tracking', source: 'docs page' },
  ],
  pickup: [
    { method: 'POST', path: 'v2/cod/pickup', source: 'Postman collection' },
    { method: 'POST', path: 'v2/payment/pickup', source: 'docs page' },
  ],
});

export type CodParams = Record<string, string | number>;

export interface CodRequest {
  method: 'GET' | 'POST';
  /** The path with its query. */
  path: string;
  /** What the signature covers: the body, or for a GET with a query the query's JSON. */
  signed?: string;
  /** What is sent as the body (none for GET). */
  body?: string;
}

/**
 * The request for one route. The parameters keep the names of the Postman collection
 * (`destination_area_id`, `transaction_id`, …). A POST sends them as JSON; a GET puts them in its
 * query and signs their JSON, as the collection's pre-request script does; `{trx}` in a path takes
 * the transaction id out of the parameters.
 */
export function codRequest(route: CodRoute, params: CodParams): CodRequest {
  const rest: CodParams = { ...params };
  let path = route.path;
  if (path.includes('{trx}')) {
    path = path.replace('{trx}', encodeURIComponent(String(rest.transaction_id)));
    delete rest.transaction_id;
  }
  if (route.method === 'POST') {
    const body = JSON.stringify(params);
    return { method: 'POST', path, signed: body, body };
  }
  const entries = Object.entries(rest);
  if (entries.length === 0) return { method: 'GET', path };
  const query = new URLSearchParams(entries.map(([k, v]) => [k, String(v)])).toString();
  return { method: 'GET', path: `${path}?${query}`, signed: JSON.stringify(Object.fromEntries(entries.map(([k, v]) => [k, String(v)]))) };
}

/** A place COD ships from or to, as the area search answers it. */
export interface CodArea {
  id: number;
  label: string;
  subdistrict: string;
  district: string;
  city: string;
  postalCode: string;
}

function malformedArea(status: number, text: string, what: string): NetworkError {
  return new NetworkError(`malformed answer from the COD area search: HTTP ${status} with ${what}: ${excerpt(text)}`, {
    hint: 'the area search answers a lower-case envelope {status, success, message, data}; check --base-url',
  });
}

/**
 * The area search's answer: the lower-case envelope `{status, success, message, data: [...]}` of the
 * collection's saved answer (not the `Status/Data` envelope of the other endpoints), each item with
 * `id`, `label`, `subdistrict_name`, `district_name`, `city_name`, `zip_code`. Anything else is a
 * malformed answer (exit 5).
 */
export function readCodAreas(status: number, text: string): CodArea[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw malformedArea(status, text, 'a body that is not JSON');
  }
  const o = json as Record<string, unknown>;
  if (o === null || typeof o !== 'object' || Array.isArray(o) || typeof o.status !== 'number' || typeof o.success !== 'boolean' || !Array.isArray(o.data)) {
    throw malformedArea(status, text, 'JSON that is not the lower-case {status, success, message, data} envelope');
  }
  return o.data.map((item, i) => {
    const a = item as Record<string, unknown>;
    const id = typeof a?.id === 'number' ? a.id : typeof a?.id === 'string' && /^\d+$/.test(a.id) ? Number(a.id) : NaN;
    if (!Number.isSafeInteger(id) || typeof a.label !== 'string') throw malformedArea(status, text, `an area without an id and label (item ${i + 1})`);
    const s = (k: string) => (typeof a[k] === 'string' || typeof a[k] === 'number' ? String(a[k]) : '');
    return { id, label: a.label, subdistrict: s('subdistrict_name'), district: s('district_name'), city: s('city_name'), postalCode: s('zip_code') };
  });
}

/** One courier service of a shipping-rate answer. */
export interface CodRate {
  /** The `shipping` value a COD payment takes (`IDEXPRESS`, `RPX`). */
  shipping: string;
  /** The `shippingService` value (`STD`, `REG`). */
  service: string;
  name: string;
  price: number;
  estimate: string;
}

const pick = (o: Record<string, unknown>, ...keys: string[]): unknown => {
  for (const k of keys) if (o[k] !== undefined && o[k] !== null) return o[k];
  return undefined;
};

/**
 * The services of a shipping-rate answer. No real answer of this endpoint is public: paycli reads
 * the emulator's shape (`shipping`, `shippingService`, `name`, `price`, `etd`) and the common
 * spellings of courier APIs (`courier`, `service`, `cost`, `estimate`) alike (an assumption,
 * docs/emulator-fidelity.md).
 */
export function readCodRates(data: unknown): CodRate[] {
  const list = Array.isArray(data) ? data : Array.isArray((data as { rates?: unknown })?.rates) ? (data as { rates: unknown[] }).rates : undefined;
  if (!list) throw new NetworkError(`malformed shipping-rate answer: Data is not a list of services: ${excerpt(JSON.stringify(data) ?? String(data))}`);
  return list.map((item) => {
    const r = (item ?? {}) as Record<string, unknown>;
    const shipping = String(pick(r, 'shipping', 'courier', 'shipping_name', 'Shipping') ?? '');
    const service = String(pick(r, 'shippingService', 'shipping_service', 'service', 'Service') ?? '');
    return {
      shipping,
      service,
      name: String(pick(r, 'name', 'service_name', 'description', 'Name') ?? `${shipping} ${service}`.trim()),
      price: Number(pick(r, 'price', 'cost', 'rate', 'shipping_cost', 'Price') ?? NaN),
      estimate: String(pick(r, 'etd', 'estimate', 'estimation', 'Etd') ?? ''),
    };
  });
}

/** A tracking answer: the AWB, the state and the history, newest first when the gateway gives one. */
export interface CodTracking {
  awb: string;
  status: string;
  history: { at: string; status: string; note: string }[];
}

export function readCodTracking(data: unknown): CodTracking {
  const d = (data ?? {}) as Record<string, unknown>;
  const rawHistory = pick(d, 'history', 'History', 'manifest', 'tracking');
  const history = Array.isArray(rawHistory)
    ? rawHistory.map((h) => {
        const e = (h ?? {}) as Record<string, unknown>;
        return {
          at: String(pick(e, 'at', 'date', 'datetime', 'Date') ?? ''),
          status: String(pick(e, 'status', 'Status', 'code') ?? ''),
          note: String(pick(e, 'note', 'description', 'desc', 'Description') ?? ''),
        };
      })
    : [];
  return { awb: String(pick(d, 'awb', 'Awb', 'AWB') ?? ''), status: String(pick(d, 'status', 'Status', 'last_status') ?? ''), history };
}

/** Pickup vehicles the gateway names (Postman: `Motor`, `Mobil`). */
export const PICKUP_VEHICLES = ['Motor', 'Mobil'] as const;

/** The pickup request's parameters, checked: a date (YYYY-MM-DD), a time (HH:MM, WIB) and a vehicle. */
export function pickupParams(trx: string, date: string, time: string, vehicle: string): CodParams {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || Number.isNaN(Date.parse(`${date}T00:00:00Z`)) || new Date(`${date}T00:00:00Z`).toISOString().slice(0, 10) !== date) {
    throw new UsageError(`invalid --date "${date}": a day as YYYY-MM-DD (WIB)`);
  }
  if (!/^([01]\d|2[0-3]):[0-5]\d$/.test(time)) throw new UsageError(`invalid --time "${time}": HH:MM, 24-hour (WIB)`);
  const v = PICKUP_VEHICLES.find((x) => x.toLowerCase() === vehicle.toLowerCase());
  if (!v) throw new UsageError(`invalid --vehicle "${vehicle}": ${PICKUP_VEHICLES.join(' or ')}`);
  return { transaction_id: transactionId(trx), pickup_date: date, pickup_time: time, pickup_vehicle: v };
}

/** A transaction id (digits) as the number the COD endpoints take. */
export function transactionId(trx: string): number {
  if (!/^\d{1,15}$/.test(trx)) throw new UsageError(`invalid transaction id "${trx}": digits`);
  return Number(trx);
}

/** The shipping-rate parameters: two area ids, the weight in kg, the goods' value in whole Rupiah. */
export function rateParams(from: string, to: string, weightKg: string, amount: string): CodParams {
  for (const [flag, v] of [
    ['--from', from],
    ['--to', to],
  ] as const)
    if (!/^\d{1,12}$/.test(v)) throw new UsageError(`invalid ${flag} "${v}": an area id from \`paycli cod area\``);
  const weight = Number(weightKg);
  if (!/^\d+(\.\d+)?$/.test(weightKg) || !(weight > 0) || weight > 1000)
    throw new UsageError(`invalid --weight "${weightKg}": kilograms above 0 (1000 at most)`);
  if (!/^\d{1,12}$/.test(amount) || Number(amount) <= 0) throw new UsageError(`invalid --amount "${amount}": the goods' value in whole Rupiah`);
  return { destination_area_id: Number(to), pickup_area_id: Number(from), weight, amount: Number(amount) };
}
