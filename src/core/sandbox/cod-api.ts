import type { ServerResponse } from 'node:http';
import { formatJakarta } from '../time.js';
import { AREA_QUERY_MIN, areaById, searchAreas, shippingRates } from './cod-areas.js';
import { pdfDocument } from './pdf.js';
import type { RegionIndex } from './regions.js';
import type { Transaction } from './state.js';
import { awbOf } from './cod-clock.js';

export { SHIPMENT_STAGES, type ShipmentEvent, type ShipmentStage } from './records.js';
export { awbOf, trackingOf } from './cod-clock.js';
import { envelope } from './views.js';

/**
 * COD logistics in the emulator (docs/merchant-api.md, "COD logistics"): every path the gateway's
 * three sources give (its Postman collection, its docs page `cod.en.mdx`, its PHP SDK's `Config.php`)
 * reaches the same handler, so whichever paycli (or a merchant's own client) tries first answers.
 * Parameters keep the collection's names (`area`, `destination_area_id`, `pickup_area_id`, `weight`,
 * `amount`, `transaction_id`, `awb`, `pickup_date`, `pickup_time`, `pickup_vehicle`).
 */
export type CodOperation = 'area' | 'rate' | 'label' | 'track' | 'pickup';

/** `METHOD path` → operation; `{trx}` stands for a transaction id in the path. */
const ROUTES: Readonly<Record<string, CodOperation>> = {
  'GET /api/v2/cod/area': 'area',
  'POST /api/v2/cod/area': 'area',
  'POST /api/v2/payment/area': 'area',
  'POST /api/v2/cod/getarea': 'area',
  'GET /api/v2/cod/getarea': 'area',
  'POST /api/v2/cod/shipping-calculate': 'rate',
  'POST /api/v2/payment/shipping': 'rate',
  'POST /api/v2/cod/getrate': 'rate',
  'GET /api/v2/cod/download-label/{trx}': 'label',
  'POST /api/v2/payment/label': 'label',
  'POST /api/v2/cod/getawb': 'label',
  'POST /api/v2/cod/tracking': 'track',
  'GET /api/v2/cod/tracking': 'track',
  'POST /api/v2/payment/tracking': 'track',
  'POST /api/v2/cod/pickup': 'pickup',
  'POST /api/v2/payment/pickup': 'pickup',
};

/** The operation of a path and method, and the transaction id a path carries; undefined when not COD logistics. */
export function codRoute(method: string, path: string): { op: CodOperation; trx?: string } | { op: 'method' } | undefined {
  const clean = path.replace(/\/+$/, '');
  const label = /^\/api\/v2\/cod\/download-label\/([^/]+)$/.exec(clean);
  const key = label ? '/api/v2/cod/download-label/{trx}' : clean;
  const op = ROUTES[`${method} ${key}`];
  if (op) return label ? { op, trx: label[1] } : { op };
  return Object.keys(ROUTES).some((k) => k.endsWith(` ${key}`)) ? { op: 'method' } : undefined;
}

/** The transaction id of an emulator waybill number, or undefined. */
export function trxOfAwb(awb: string): number | undefined {
  const m = /^PAYCLI(\d{10})$/i.exec(awb.trim());
  return m ? Number(m[1]) : undefined;
}

/** The lower-case envelope of the area search (the collection's saved answer). */
function areaEnvelope(res: ServerResponse, status: number, message: string, data: unknown[]): void {
  const body = JSON.stringify({ status, success: status < 400, status_title: status < 400 ? 'success' : 'error', message, data });
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
}

const invalid = (res: ServerResponse, errors: Record<string, string[]>): void => envelope(res, 400, 'error - invalid request', null, { Error: errors });

const text = (v: unknown): string => (typeof v === 'string' ? v.trim() : typeof v === 'number' ? String(v) : '');

/** Area search: `area` (or `keyword`/`search`, the spellings third-party clients send), 3 characters at least. */
export function areaAnswer(res: ServerResponse, regions: RegionIndex, params: Record<string, unknown>): void {
  const q = text(params.area ?? params.keyword ?? params.search);
  if (q.length < AREA_QUERY_MIN) {
    areaEnvelope(res, 400, `area minimal ${AREA_QUERY_MIN} karakter.`, []);
    return;
  }
  areaEnvelope(res, 200, 'Success', searchAreas(regions, q.slice(0, 100)));
}

/** Shipping rates between two areas for a weight (kg) and the goods' value. */
export function rateAnswer(res: ServerResponse, regions: RegionIndex, params: Record<string, unknown>): void {
  const errors: Record<string, string[]> = {};
  const from = areaById(regions, params.pickup_area_id);
  const to = areaById(regions, params.destination_area_id);
  if (!from) errors.pickup_area_id = ['pickup_area_id tidak ditemukan.'];
  if (!to) errors.destination_area_id = ['destination_area_id tidak ditemukan.'];
  const weight = Number(text(params.weight));
  if (!(weight > 0) || weight > 1000) errors.weight = ['weight harus berupa angka lebih dari 0 (kg).'];
  const amount = Number(text(params.amount));
  if (!Number.isFinite(amount) || amount <= 0) errors.amount = ['amount harus berupa angka lebih dari 0.'];
  if (Object.keys(errors).length > 0) invalid(res, errors);
  else envelope(res, 200, 'Success', shippingRates(from!, to!, weight));
}

/** The shipping label of a COD payment: a one-page PDF with the waybill, the parties and the goods. */
export function labelPdf(t: Transaction, merchantName: string): Buffer {
  const s = t.shipment;
  const lines = [
    { text: `${s?.shipping ?? 'COD'} ${s?.shippingService ?? ''}`.trim(), size: 16 },
    { text: `AWB ${awbOf(t.id)}`, size: 14 },
    { text: `COD Rp ${t.amount.toLocaleString('id-ID')}`, size: 14 },
    { text: `Trx ${t.id} - ${formatJakarta(new Date(t.createdAt))} WIB` },
    { text: '' },
    { text: `From: ${merchantName}` },
    { text: `${s?.pickupAddress ?? ''}`.slice(0, 60) },
    { text: `Area ${s?.pickupArea ?? '-'}` },
    { text: '' },
    { text: `To: ${t.buyer.name} ${t.buyer.phone}` },
    { text: `${s?.deliveryAddress ?? ''}`.slice(0, 60) },
    { text: `Area ${s?.deliveryArea ?? '-'}` },
    { text: '' },
    ...t.items.slice(0, 8).map((i) => ({ text: `${i.qty} x ${i.product}`.slice(0, 60) })),
    { text: '' },
    { text: 'paycli sandbox - not a real shipment', size: 8 },
  ];
  return pdfDocument(lines, `Label ${awbOf(t.id)}`);
}
