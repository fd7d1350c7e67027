import { CHANNEL_NAMES, METHOD_NAMES, channelsOf, type FieldErrors } from '../payment-rules.js';

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
 * `LIMITS.maxExpiryMs` long. Anything else is a 400 in the gateway's shape, never a wrong payment.
 */
export const LIMITS = {
  maxAmount: 999_999_999_999,
  maxQty: 1_000_000,
  maxDimension: 1_000_000,
  maxExpiryMs: 366 * 86_400_000,
  maxText: 255,
  maxUrl: 2048,
} as const;

export const EXPIRY_UNITS_MS: Record<string, number> = { days: 86_400_000, hours: 3_600_000, minutes: 60_000, seconds: 1000 };

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
  items: { product: string; qty: number; price: number }[];
}

export type ReadResult = { ok: true; request: PaymentRequest } | { ok: false; errors: FieldErrors };

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const PHONE = /^(\+62|62|0)\d{6,14}$/;
const NUMERIC = /^\s*-?\d+(\.\d+)?\s*$/;

/**
 * A buyer's phone or e-mail checked as direct payment checks it: the gateway's Indonesian error for
 * `field` (`phone tidak valid.`), or undefined when it is valid. The hosted redirect page uses it too.
 */
export function contactError(kind: 'phone' | 'email', value: string, field: string = kind): string | undefined {
  const ok = kind === 'email' ? EMAIL.test(value) : PHONE.test(value.replace(/[\s-]/g, ''));
  return ok ? undefined : `${field} tidak valid.`;
}

function absent(v: unknown): boolean {
  return v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0);
}

/** A number from a JSON number or a numeric string; NaN for anything else. */
function num(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && NUMERIC.test(v)) return Number(v);
  return Number.NaN;
}

/** Reads and checks a direct-payment body; field errors in the gateway's Indonesian wording. */
export function readPaymentRequest(raw: Record<string, unknown>): ReadResult {
  const body: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(raw)) if (v !== null) body[k] = v;
  const errors: FieldErrors = {};
  const add = (field: string, message: string) => (errors[field] ??= []).push(message);

  const text = (field: string, required: boolean, max: number = LIMITS.maxText): string | undefined => {
    const v = body[field];
    if (absent(v)) {
      if (required) add(field, `${field} wajib diisi.`);
      return undefined;
    }
    if (typeof v !== 'string' && typeof v !== 'number') {
      add(field, `${field} harus berupa teks.`);
      return undefined;
    }
    const s = String(v);
    if (s.length > max) add(field, `${field} maksimal ${max} karakter.`);
    return s;
  };
  /** A whole number in [min, max]; numeric strings accepted. */
  const whole = (field: string, v: unknown, min: number, max: number): number | undefined => {
    const n = num(v);
    if (!Number.isFinite(n)) add(field, `${field} harus berupa angka.`);
    else if (!Number.isInteger(n)) add(field, `${field} harus berupa bilangan bulat.`);
    else if (n < min) add(field, `${field} minimal ${min}.`);
    else if (n > max) add(field, `${field} maksimal ${max}.`);
    else return n;
    return undefined;
  };

  const name = text('name', true);
  const phone = text('phone', true);
  const email = text('email', true);
  const notifyUrl = text('notifyUrl', true, LIMITS.maxUrl);
  const referenceId = text('referenceId', false) ?? '';
  const comments = text('comments', false);
  const badEmail = email === undefined ? undefined : contactError('email', email);
  if (badEmail) add('email', badEmail);
  const badPhone = phone === undefined ? undefined : contactError('phone', phone);
  if (badPhone) add('phone', badPhone);
  if (notifyUrl !== undefined && !isWebUrl(notifyUrl)) add('notifyUrl', 'notifyUrl harus berupa URL.');

  let amount: number | undefined;
  if (absent(body.amount)) add('amount', 'amount wajib diisi.');
  else amount = whole('amount', body.amount, 1, LIMITS.maxAmount);

  const method = body.paymentMethod;
  let channel: string | undefined;
  if (absent(method)) add('paymentMethod', 'paymentMethod wajib diisi.');
  else if (typeof method !== 'string' || !METHOD_NAMES.includes(method)) add('paymentMethod', `paymentMethod tidak valid. Pilihan: ${METHOD_NAMES.join(', ')}.`);
  if (absent(body.paymentChannel)) add('paymentChannel', 'paymentChannel wajib diisi.');
  else if (typeof method === 'string' && METHOD_NAMES.includes(method)) {
    const allowed = [...channelsOf(method), ...(EXTRA_CHANNELS[method] ?? [])];
    if (typeof body.paymentChannel !== 'string' || !allowed.includes(body.paymentChannel)) {
      add('paymentChannel', `paymentChannel tidak valid untuk ${method}. Pilihan: ${allowed.join(', ')}.`);
    } else channel = body.paymentChannel;
  }

  let unitMs = EXPIRY_UNITS_MS.hours!;
  if (!absent(body.expiredType)) {
    const unit = String(body.expiredType);
    if (typeof body.expiredType !== 'string' || !(unit in EXPIRY_UNITS_MS)) add('expiredType', `expiredType tidak valid. Pilihan: ${Object.keys(EXPIRY_UNITS_MS).join(', ')}.`);
    else unitMs = EXPIRY_UNITS_MS[unit]!;
  }
  let expiresInMs = 24 * EXPIRY_UNITS_MS.hours!;
  if (!absent(body.expired)) {
    const maxUnits = Math.floor(LIMITS.maxExpiryMs / unitMs);
    const n = whole('expired', body.expired, 1, maxUnits);
    if (n !== undefined) expiresInMs = n * unitMs;
  }

  let feeDirection: 'MERCHANT' | 'BUYER' = 'MERCHANT';
  if (!absent(body.feeDirection)) {
    const fd = String(body.feeDirection).toUpperCase();
    if (fd !== 'MERCHANT' && fd !== 'BUYER') add('feeDirection', 'feeDirection tidak valid. Pilihan: MERCHANT, BUYER.');
    else feeDirection = fd;
  }

  // Items: required for COD only; when any is sent, all three must be, with equal lengths.
  const cod = method === 'cod';
  const itemFields = ['product', 'qty', 'price'];
  const sentItems = itemFields.some((f) => !absent(body[f]));
  const items: PaymentRequest['items'] = [];
  if (cod || sentItems) {
    const arrays: Record<string, unknown[]> = {};
    for (const f of itemFields) {
      const v = body[f];
      if (absent(v)) add(f, `${f} wajib diisi.`);
      else if (!Array.isArray(v)) add(f, `${f} harus berupa array.`);
      else arrays[f] = v;
    }
    const products = arrays.product;
    if (products) {
      if (products.some((p) => typeof p !== 'string' || p.trim() === '')) add('product', 'product harus berupa teks.');
      for (const f of ['qty', 'price']) if (arrays[f] && arrays[f]!.length !== products.length) add(f, `${f} harus berjumlah sama dengan product.`);
    }
    const qtys = (arrays.qty ?? []).map((q, i) => whole(`qty.${i}`, q, 1, LIMITS.maxQty));
    const prices = (arrays.price ?? []).map((p, i) => whole(`price.${i}`, p, 1, LIMITS.maxAmount));
    if (products && Object.keys(errors).every((k) => !/^(product|qty|price)/.test(k))) {
      products.forEach((p, i) => items.push({ product: String(p), qty: qtys[i]!, price: prices[i]! }));
    }
  }
  // COD dimensions (kg, cm): required for COD except height; checked wherever they are sent.
  for (const f of ['weight', 'width', 'height', 'length']) {
    const v = body[f];
    if (absent(v)) {
      if (cod && f !== 'height') add(f, `${f} wajib diisi.`);
      continue;
    }
    if (!Array.isArray(v)) {
      add(f, `${f} harus berupa array.`);
      continue;
    }
    if (Array.isArray(body.product) && v.length !== body.product.length) add(f, `${f} harus berjumlah sama dengan product.`);
    v.forEach((x, i) => {
      const n = num(x);
      if (!Number.isFinite(n) || n <= 0 || n > LIMITS.maxDimension) add(`${f}.${i}`, `${f}.${i} harus berupa angka lebih dari 0.`);
    });
  }
  if (cod) {
    const area = text('deliveryArea', true);
    text('deliveryAddress', true);
    if (area !== undefined && !/^\d{5}$/.test(area)) add('deliveryArea', 'deliveryArea harus berupa kode pos 5 digit.');
  }

  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return {
    ok: true,
    request: {
      name: name!, phone: phone!, email: email!, amount: amount!, notifyUrl: notifyUrl!, method: method as string, channel: channel!,
      channelName: channel === 'qris' ? 'QRIS' : (CHANNEL_NAMES[channel!] ?? channel!),
      expiresInMs, referenceId, comments, feeDirection, items,
    },
  };
}

/**
 * Whether a text is an http(s) URL a merchant may give (notifyUrl, returnUrl, cancelUrl): it parses
 * as a URL with a host, and holds no space or control character (they cannot go in a Location
 * header or a request line). Characters outside ASCII are allowed: `locationOf` percent-encodes them.
 */
export function isWebUrl(text: string): boolean {
  if (!/^https?:\/\/[^\s\x00-\x1f\x7f\u0080-\u009f]+$/i.test(text)) return false;
  try {
    return new URL(text).host !== '';
  } catch {
    return false;
  }
}

/**
 * A merchant's URL as a redirect's Location: percent-encoded (and its host in punycode) so that it
 * is ASCII whatever it held; undefined when it is not a web URL (an older journal's session).
 */
export function locationOf(url: string | undefined): string | undefined {
  if (url === undefined || !isWebUrl(url)) return undefined;
  return new URL(url).href;
}
