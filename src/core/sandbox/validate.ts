import {
  CHANNEL_NAMES,
  METHOD_NAMES,
  channelsOf,
  contactError,
  dimension,
  expiry,
  isAbsent,
  PAYMENT_LIMITS as LIMITS,
  quantity,
  rupiahAmount,
  type FieldErrors,
} from '../payment-rules.js';
import { BodyReader } from './body-reader.js';
import { isWebUrl } from './web-url.js';
import type { Shipment } from './state.js';

/**
 * The emulator's reading of a direct-payment request, following what the gateway accepts from its
 * own SDKs and samples (docs/emulator-fidelity.md gives the source of each rule), which is looser
 * than what `paycli pay` sends:
 * - `null` is the same as absent for every field (the Go SDK sends `"expired":null`, the PHP SDK
 *   `"comments":null`, `"weight":[]`…);
 * - `product`/`qty`/`price` are needed only for COD; when sent they are checked all the same;
 * - QRIS takes channel `qris` as well as `mpm`; `expiredType` takes `seconds` too;
 * - numbers may come as numeric strings (the PHP and Node SDKs send `"100000"`).
 * Amounts are whole Rupiah within `LIMITS`; an expiry is a whole number of its unit and at most
 * `LIMITS.maxExpiryMs` long (the rules: payment-rules.ts, shared with redirect payments and
 * `paycli pay`). Anything else is a 400 in the gateway's shape, never a wrong payment.
 */
/** Channels the gateway takes beyond the documented table, per method. */
const EXTRA_CHANNELS: Record<string, string[]> = { qris: ['qris'] };

export interface PaymentRequest {
  name: string;
  phone: string;
  email: string;
  amount: number;
  notifyUrl: string;
  method: string;
  channel: string;
  channelName: string;
  expiresInMs: number;
  referenceId: string;
  comments?: string;
  feeDirection: 'MERCHANT' | 'BUYER';
  /** `escrow: true`: held as escrow (7) when paid, until released. */
  escrow: boolean;
  items: { product: string; qty: number; price: number }[];
  /** COD: the parcel's shipping fields. */
  shipment?: Shipment;
}

/**
 * The expiry a payment gets when the request sends none, per method/channel where the gateway's
 * sources state one (docs' direct-payment field table: BCA VA fixed at 12 hours, Alfamart at 24
 * hours, BRI VA at most 2 and BSI VA at most 3 hours; QRIS: 5 minutes in the documentation, 24
 * hours in the Postman collection, the documentation is followed); otherwise 24 hours (the
 * Postman collection's default). See docs/gateway.md, "Statuses".
 */
export const DEFAULT_EXPIRY_MS: Record<string, number> = {
  'va/bca': 12 * 3_600_000,
  'va/bri': 2 * 3_600_000,
  'va/bsi': 3 * 3_600_000,
  'cstore/alfamart': 24 * 3_600_000,
  'qris/mpm': 5 * 60_000,
  'qris/qris': 5 * 60_000,
};
export const FALLBACK_EXPIRY_MS = 24 * 3_600_000;

/** The default expiry of a method and channel (DEFAULT_EXPIRY_MS, else 24 hours). */
export function defaultExpiryMs(method: string, channel: string): number {
  return DEFAULT_EXPIRY_MS[`${method}/${channel}`] ?? FALLBACK_EXPIRY_MS;
}

export type ReadResult = { ok: true; request: PaymentRequest } | { ok: false; errors: FieldErrors };

/** The buyer and the merchant's own fields: names, contact, notify URL, reference, comments. */
function readBuyer(r: BodyReader) {
  const name = r.text('name', true);
  const phone = r.text('phone', true);
  const email = r.text('email', true);
  const notifyUrl = r.text('notifyUrl', true, LIMITS.maxUrl);
  const referenceId = r.text('referenceId', false) ?? '';
  const comments = r.text('comments', false);
  const badEmail = email === undefined ? undefined : contactError('email', email);
  if (badEmail) r.add('email', badEmail);
  const badPhone = phone === undefined ? undefined : contactError('phone', phone);
  if (badPhone) r.add('phone', badPhone);
  if (notifyUrl !== undefined && !isWebUrl(notifyUrl)) r.add('notifyUrl', 'notifyUrl harus berupa URL.');
  return { name, phone, email, notifyUrl, referenceId, comments };
}

/** The method and channel (QRIS also takes channel `qris`). */
function readChannel(r: BodyReader): { method: unknown; channel: string | undefined } {
  const method = r.body.paymentMethod;
  let channel: string | undefined;
  if (isAbsent(method)) r.add('paymentMethod', 'paymentMethod wajib diisi.');
  else if (typeof method !== 'string' || !METHOD_NAMES.includes(method))
    r.add('paymentMethod', `paymentMethod tidak valid. Pilihan: ${METHOD_NAMES.join(', ')}.`);
  if (isAbsent(r.body.paymentChannel)) r.add('paymentChannel', 'paymentChannel wajib diisi.');
  else if (typeof method === 'string' && METHOD_NAMES.includes(method)) {
    const allowed = [...channelsOf(method), ...(EXTRA_CHANNELS[method] ?? [])];
    if (typeof r.body.paymentChannel !== 'string' || !allowed.includes(r.body.paymentChannel)) {
      r.add('paymentChannel', `paymentChannel tidak valid untuk ${method}. Pilihan: ${allowed.join(', ')}.`);
    } else channel = r.body.paymentChannel;
  }
  return { method, channel };
}

/** The amount: whole Rupiah within the limit. */
function readAmount(r: BodyReader): number | undefined {
  if (isAbsent(r.body.amount)) {
    r.add('amount', 'amount wajib diisi.');
    return undefined;
  }
  return r.checked('amount', rupiahAmount('amount', r.body.amount));
}

/** The expiry and who bears the fee. */
function readTerms(r: BodyReader, method: unknown, channel: string | undefined): { expiresInMs: number; feeDirection: 'MERCHANT' | 'BUYER' } {
  let expiresInMs = 0;
  const expires = expiry(r.body.expired, r.body.expiredType);
  // No expiry sent: the channel's own default where the sources give one (DEFAULT_EXPIRY_MS).
  if (expires.ok)
    expiresInMs = isAbsent(r.body.expired)
      ? typeof method === 'string' && channel !== undefined
        ? defaultExpiryMs(method, channel)
        : FALLBACK_EXPIRY_MS
      : expires.ms;
  else for (const [f, messages] of Object.entries(expires.errors)) for (const m of messages) r.add(f, m);
  let feeDirection: 'MERCHANT' | 'BUYER' = 'MERCHANT';
  if (!isAbsent(r.body.feeDirection)) {
    const fd = String(r.body.feeDirection).toUpperCase();
    if (fd !== 'MERCHANT' && fd !== 'BUYER') r.add('feeDirection', 'feeDirection tidak valid. Pilihan: MERCHANT, BUYER.');
    else feeDirection = fd;
  }
  return { expiresInMs, feeDirection };
}

/** escrow: a boolean, or the Postman collection's "0"/"1", or "true"/"false". */
function readEscrow(r: BodyReader): boolean {
  const e = r.body.escrow;
  if (isAbsent(e)) return false;
  if (e === true || e === 1 || e === '1' || e === 'true') return true;
  if (!(e === false || e === 0 || e === '0' || e === 'false')) r.add('escrow', 'escrow harus berupa boolean.');
  return false;
}

/** Items: required for COD only; when any is sent, all three arrays must be, with equal lengths. */
function readItems(r: BodyReader, cod: boolean): PaymentRequest['items'] {
  const itemFields = ['product', 'qty', 'price'];
  const items: PaymentRequest['items'] = [];
  if (!cod && itemFields.every((f) => isAbsent(r.body[f]))) return items;
  const arrays: Record<string, unknown[]> = {};
  for (const f of itemFields) {
    const v = r.body[f];
    if (isAbsent(v)) r.add(f, `${f} wajib diisi.`);
    else if (!Array.isArray(v)) r.add(f, `${f} harus berupa array.`);
    else arrays[f] = v;
  }
  const products = arrays.product;
  if (products) {
    if (products.some((p) => typeof p !== 'string' || p.trim() === '')) r.add('product', 'product harus berupa teks.');
    for (const f of ['qty', 'price']) if (arrays[f] && arrays[f]!.length !== products.length) r.add(f, `${f} harus berjumlah sama dengan product.`);
  }
  const qtys = (arrays.qty ?? []).map((q, i) => r.checked(`qty.${i}`, quantity(`qty.${i}`, q)));
  const prices = (arrays.price ?? []).map((p, i) => r.checked(`price.${i}`, rupiahAmount(`price.${i}`, p)));
  if (products && !r.hasErrorIn(/^(product|qty|price)/)) products.forEach((p, i) => items.push({ product: String(p), qty: qtys[i]!, price: prices[i]! }));
  return items;
}

/** COD: dimensions (kg, cm; required except height, checked wherever sent) and the delivery area and address. */
function readDelivery(r: BodyReader, cod: boolean, items: PaymentRequest['items']): Shipment | undefined {
  for (const f of ['weight', 'width', 'height', 'length']) {
    const v = r.body[f];
    if (isAbsent(v)) {
      if (cod && f !== 'height') r.add(f, `${f} wajib diisi.`);
      continue;
    }
    if (!Array.isArray(v)) {
      r.add(f, `${f} harus berupa array.`);
      continue;
    }
    if (Array.isArray(r.body.product) && v.length !== r.body.product.length) r.add(f, `${f} harus berjumlah sama dengan product.`);
    v.forEach((x, i) => r.checked(`${f}.${i}`, dimension(`${f}.${i}`, x)));
  }
  return cod ? codShipment(r, items) : undefined;
}

/**
 * A COD payment's shipping fields. The gateway's docs table (`cod.en.mdx`, `direct-payment.en.mdx`)
 * marks `deliveryArea`, `deliveryAddress`, `shipping` and `shippingService` required for COD; its
 * Postman collection calls `shipping`/`shippingService` "conditional — from API Shipping Calculate"
 * and sends `pickupArea` too. `deliveryArea` is a 5-digit postal code in the docs and an area id of
 * the COD area search in the collection (`17473`): both are taken.
 */
function codShipment(r: BodyReader, items: PaymentRequest['items']): Shipment | undefined {
  const area = r.text('deliveryArea', true);
  const address = r.text('deliveryAddress', true);
  const shipping = r.text('shipping', true);
  const service = r.text('shippingService', true);
  const pickupArea = r.text('pickupArea', false);
  const pickupAddress = r.text('pickupAddress', false);
  for (const [f, v] of [
    ['deliveryArea', area],
    ['pickupArea', pickupArea],
  ] as const) {
    if (v !== undefined && !/^\d{1,12}$/.test(v)) r.add(f, `${f} harus berupa kode pos atau id area.`);
  }
  const weights = Array.isArray(r.body.weight)
    ? r.body.weight.map((w) => (typeof w === 'number' ? w : typeof w === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(w) ? Number(w) : Number.NaN))
    : [];
  const weightKg = items.reduce((sum, it, i) => sum + (Number.isFinite(weights[i]) ? weights[i]! : 0) * it.qty, 0);
  if (area === undefined || address === undefined || shipping === undefined || service === undefined) return undefined;
  return {
    shipping: shipping.toUpperCase(),
    shippingService: service.toUpperCase(),
    deliveryArea: area,
    deliveryAddress: address,
    ...(pickupArea !== undefined ? { pickupArea } : {}),
    ...(pickupAddress !== undefined ? { pickupAddress } : {}),
    weightKg,
  };
}

/** Reads and checks a direct-payment body; field errors in the gateway's Indonesian wording. */
export function readPaymentRequest(raw: Record<string, unknown>): ReadResult {
  const r = new BodyReader(raw);
  // Read in the order the gateway lists its errors.
  const buyer = readBuyer(r);
  const amount = readAmount(r);
  const { method, channel } = readChannel(r);
  const { expiresInMs, feeDirection } = readTerms(r, method, channel);
  const escrow = readEscrow(r);
  const cod = method === 'cod';
  const items = readItems(r, cod);
  const shipment = readDelivery(r, cod, items);
  if (Object.keys(r.errors).length > 0) return { ok: false, errors: r.errors };
  return {
    ok: true,
    request: {
      name: buyer.name!,
      phone: buyer.phone!,
      email: buyer.email!,
      amount: amount!,
      notifyUrl: buyer.notifyUrl!,
      method: method as string,
      channel: channel!,
      channelName: channel === 'qris' ? 'QRIS' : (CHANNEL_NAMES[channel!] ?? channel!),
      expiresInMs,
      referenceId: buyer.referenceId,
      comments: buyer.comments,
      feeDirection,
      escrow,
      items,
      ...(shipment ? { shipment } : {}),
    },
  };
}
