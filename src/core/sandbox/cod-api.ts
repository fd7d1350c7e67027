import type { ServerResponse } from 'node:http';
import { statusInfo } from '../statuses.js';
import { formatJakarta } from '../time.js';
import { AREA_QUERY_MIN, areaById, searchAreas, shippingRates } from './cod-areas.js';
import { pdfDocument } from './pdf.js';
import type { RegionIndex } from './regions.js';
import type { Transaction } from './state.js';
import type { ShipmentEvent, ShipmentStage } from './records.js';

export { SHIPMENT_STAGES, type ShipmentEvent, type ShipmentStage } from './records.js';
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
  'GET /api/v2/cod/area': 'area', 'POST /api/v2/cod/area': 'area', 'POST /api/v2/payment/area': 'area', 'POST /api/v2/cod/getarea': 'area', 'GET /api/v2/cod/getarea': 'area',
  'POST /api/v2/cod/shipping-calculate': 'rate', 'POST /api/v2/payment/shipping': 'rate', 'POST /api/v2/cod/getrate': 'rate',
  'GET /api/v2/cod/download-label/{trx}': 'label', 'POST /api/v2/payment/label': 'label', 'POST /api/v2/cod/getawb': 'label',
  'POST /api/v2/cod/tracking': 'track', 'GET /api/v2/cod/tracking': 'track', 'POST /api/v2/payment/tracking': 'track',
  'POST /api/v2/cod/pickup': 'pickup', 'POST /api/v2/payment/pickup': 'pickup',
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

/** The waybill number of a COD payment in the emulator (one per payment, from its id). */
export function awbOf(id: number): string {
  return `PAYCLI${String(id).padStart(10, '0')}`;
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

const STAGE_WORDS: Record<ShipmentStage | 'waiting' | 'cancelled' | 'stopped', { status: string; note: string }> = {
  waiting: { status: 'waiting for pickup', note: 'order received; the courier has not picked the parcel up yet' },
  picked_up: { status: 'picked up', note: 'the courier picked the parcel up from the merchant' },
  in_transit: { status: 'in transit', note: 'the parcel is on its way to the buyer' },
  delivered: { status: 'delivered', note: 'delivered; the buyer paid the courier' },
  cancelled: { status: 'cancelled', note: 'the payment ended before the parcel left' },
  stopped: { status: 'cancelled', note: 'the payment ended while the parcel was on its way; it does not move on' },
};

/** The tracking answer's `Data`: the waybill, the current state and the history (newest first), times on the emulator's clock. */
export function trackingOf(t: Transaction, events: readonly ShipmentEvent[]): { awb: string; transaction_id: number; status: string; history: { at: string; status: string; note: string }[] } {
  const steps: { at: number; key: keyof typeof STAGE_WORDS }[] = [{ at: t.createdAt, key: 'waiting' }, ...events.map((e) => ({ at: e.at, key: e.stage }))];
  const delivered = events.some((e) => e.stage === 'delivered');
  // Paid another way (the payment page, `sandbox pay`): delivered when paid.
  const paid = statusInfo(t.status).paid || t.paidAt !== undefined;
  if (paid && !delivered) steps.push({ at: t.paidAt ?? t.createdAt, key: 'delivered' });
  // Expired, cancelled, failed: the parcel stops where it was.
  else if (!paid && t.status !== 'pending') steps.push({ at: t.endedAt ?? t.expiresAt, key: events.length > 0 ? 'stopped' : 'cancelled' });
  const history = steps.map((s) => ({ at: formatJakarta(new Date(s.at)), status: STAGE_WORDS[s.key].status, note: STAGE_WORDS[s.key].note })).reverse();
  return { awb: awbOf(t.id), transaction_id: t.id, status: history[0]!.status, history };
}
