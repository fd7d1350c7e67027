import { deepFreeze } from './freeze.js';
/**
 * The one table of payment methods and channels (docs/gateway.md, "Payments") and the request rules.
 * The CLI's validation and prompts, the emulator, and the shell completions all read it.
 */
export interface MethodInfo {
  method: string;
  label: string;
  channels: readonly string[];
}

export const PAYMENT_METHODS: readonly MethodInfo[] = deepFreeze([
  { method: 'va', label: 'virtual account', channels: ['bag', 'bca', 'bpd_bali', 'bni', 'cimb', 'mandiri', 'bmi', 'bri', 'bsi', 'permata', 'danamon', 'btn'] },
  { method: 'cstore', label: 'convenience store', channels: ['alfamart', 'indomaret'] },
  { method: 'cod', label: 'cash on delivery', channels: ['rpx'] },
  { method: 'qris', label: 'QRIS', channels: ['mpm'] },
  { method: 'cc', label: 'credit card', channels: ['cc'] },
  { method: 'paylater', label: 'pay later', channels: ['akulaku'] },
  { method: 'ewallet', label: 'e-wallet', channels: ['dana', 'shopeepay'] },
]);

export const METHOD_NAMES: readonly string[] = deepFreeze(PAYMENT_METHODS.map((m) => m.method));
export const EXPIRED_TYPES: readonly string[] = deepFreeze(['days', 'hours', 'minutes']);
export const CALLBACK_STATUSES = deepFreeze({ berhasil: 1, pending: 0, expired: -2 } as const);
export type CallbackStatus = keyof typeof CALLBACK_STATUSES;

/**
 * Display names of channels, as the gateway's PaymentName: a frozen object without a prototype, so a
 * channel named `constructor` or `__proto__` (from a request, a URL) has no name and no entry.
 */
export const CHANNEL_NAMES: Readonly<Record<string, string>> = Object.freeze(
  Object.assign(Object.create(null) as Record<string, string>, {
    bag: 'Bank Artha Graha',
    bca: 'BCA',
    bpd_bali: 'BPD Bali',
    bni: 'BNI',
    cimb: 'CIMB Niaga',
    mandiri: 'Mandiri',
    bmi: 'Bank Muamalat',
    bri: 'BRI',
    bsi: 'BSI',
    permata: 'Permata',
    danamon: 'Danamon',
    btn: 'BTN',
    alfamart: 'Alfamart',
    indomaret: 'Indomaret',
    rpx: 'RPX (COD)',
    mpm: 'QRIS',
    cc: 'Credit Card',
    akulaku: 'Akulaku',
    dana: 'DANA',
    shopeepay: 'ShopeePay',
  }),
);

export function channelsOf(method: string): readonly string[] {
  return PAYMENT_METHODS.find((m) => m.method === method)?.channels ?? [];
}

/** Channel aliases users type; value is [method, channel]. */
export const CHANNEL_ALIASES: Record<string, { method: string; channel: string }> = deepFreeze({
  qris: { method: 'qris', channel: 'mpm' },
});

export interface PaymentItem {
  product: string;
  qty: number;
  price: number;
  weight?: number;
  width?: number;
  height?: number;
  length?: number;
}

/** The direct-payment request body (docs/gateway.md, "Payments"), in the order the CLI sends it. */
export interface DirectPaymentRequest {
  name: string;
  phone: string;
  email: string;
  amount: number;
  notifyUrl: string;
  expired?: number;
  expiredType?: string;
  comments?: string;
  referenceId?: string;
  paymentMethod: string;
  paymentChannel: string;
  product: string[];
  qty: number[];
  price: number[];
  weight?: number[];
  width?: number[];
  height?: number[];
  length?: number[];
  deliveryArea?: string;
  deliveryAddress?: string;
  /** Hold the paid amount as escrow (status 7) until released (Postman Direct Payment form). */
  escrow?: boolean;
  /** COD: the courier and service of a shipping-rate answer (`paycli cod rate`). */
  shipping?: string;
  shippingService?: string;
  /** COD: where the courier picks the parcel up (an area id of `paycli cod area`) and the address. */
  pickupArea?: string;
  pickupAddress?: string;
  /** A child account (child VA) of the merchant the payment is for. */
  account?: string;
}

/** A field error in the gateway's style: field → messages. */
export type FieldErrors = Record<string, string[]>;

// ── The request rules (direct and redirect payments, pay's local check, the emulator) ─────────────

/**
 * Limits of a payment request: amounts and prices are whole Rupiah up to `maxAmount` (an item's
 * qty × price and a redirect payment's total too), quantities whole, dimensions positive, an
 * expiry a whole number of its unit and at most `maxExpiryMs` long.
 */
export const PAYMENT_LIMITS = deepFreeze({
  maxAmount: 999_999_999_999,
  maxQty: 1_000_000,
  maxDimension: 1_000_000,
  maxExpiryMs: 366 * 86_400_000,
  maxText: 255,
  maxUrl: 2048,
} as const);

/** Expiry units in ms: the documented `days`, `hours`, `minutes` (EXPIRED_TYPES), and `seconds`, which the gateway takes too. */
export const EXPIRY_UNITS_MS: Readonly<Record<string, number>> = deepFreeze({ days: 86_400_000, hours: 3_600_000, minutes: 60_000, seconds: 1000 });
/** Without `expired`/`expiredType`: 24 hours. */
export const DEFAULT_EXPIRY = deepFreeze({ expired: 24, unit: 'hours' });

/** Absent: undefined, `null` (the SDKs send `null` for unset fields), an empty text or list. */
export function isAbsent(v: unknown): boolean {
  return v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0);
}

const NUMERIC = /^\s*-?\d+(\.\d+)?\s*$/;

/** A number from a JSON number or a numeric string (the PHP and Node SDKs send `"100000"`); NaN for anything else. */
export function numberOf(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && NUMERIC.test(v)) return Number(v);
  return Number.NaN;
}

/** A field's value checked by a rule: the number, or the gateway's Indonesian message. */
export type RuleResult = { ok: true; value: number } | { ok: false; message: string };

/** A whole number in [min, max] (numbers or numeric strings). */
export function wholeNumber(field: string, v: unknown, min: number, max: number): RuleResult {
  const n = numberOf(v);
  if (!Number.isFinite(n)) return { ok: false, message: `${field} harus berupa angka.` };
  if (!Number.isInteger(n)) return { ok: false, message: `${field} harus berupa bilangan bulat.` };
  if (n < min) return { ok: false, message: `${field} minimal ${min}.` };
  if (n > max) return { ok: false, message: `${field} maksimal ${max}.` };
  return { ok: true, value: n };
}

/** An amount or price: whole Rupiah, 1 to PAYMENT_LIMITS.maxAmount. */
export function rupiahAmount(field: string, v: unknown): RuleResult {
  return wholeNumber(field, v, 1, PAYMENT_LIMITS.maxAmount);
}

/** A quantity: a whole number, 1 to PAYMENT_LIMITS.maxQty. */
export function quantity(field: string, v: unknown): RuleResult {
  return wholeNumber(field, v, 1, PAYMENT_LIMITS.maxQty);
}

/** A COD dimension (kg, cm): above 0, at most PAYMENT_LIMITS.maxDimension (fractions allowed). */
export function dimension(field: string, v: unknown): RuleResult {
  const n = numberOf(v);
  if (!Number.isFinite(n) || n <= 0 || n > PAYMENT_LIMITS.maxDimension) return { ok: false, message: `${field} harus berupa angka lebih dari 0.` };
  return { ok: true, value: n };
}

/**
 * The expiry of a request: `expired` whole units of `expiredType` (default 24 hours; absent
 * values take the default), at most PAYMENT_LIMITS.maxExpiryMs. `units`: the units taken (the
 * emulator takes all of EXPIRY_UNITS_MS; pay offers the documented EXPIRED_TYPES).
 */
export function expiry(
  expired: unknown,
  expiredType: unknown,
  units: readonly string[] = Object.keys(EXPIRY_UNITS_MS),
): { ok: true; ms: number } | { ok: false; errors: FieldErrors } {
  const errors: FieldErrors = {};
  let unit: string = DEFAULT_EXPIRY.unit;
  if (!isAbsent(expiredType)) {
    if (typeof expiredType !== 'string' || !units.includes(expiredType)) errors.expiredType = [`expiredType tidak valid. Pilihan: ${units.join(', ')}.`];
    else unit = expiredType;
  }
  const unitMs = EXPIRY_UNITS_MS[unit]!;
  let ms = DEFAULT_EXPIRY.expired * EXPIRY_UNITS_MS[DEFAULT_EXPIRY.unit]!;
  if (!isAbsent(expired)) {
    const n = wholeNumber('expired', expired, 1, Math.floor(PAYMENT_LIMITS.maxExpiryMs / unitMs));
    if (!n.ok) errors.expired = [n.message];
    else ms = n.value * unitMs;
  }
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, ms };
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const PHONE = /^(\+62|62|0)\d{6,14}$/;

/**
 * A buyer's phone or e-mail checked as direct payment checks it: the gateway's Indonesian error for
 * `field` (`phone tidak valid.`), or undefined when it is valid. The hosted redirect page uses it too.
 */
export function contactError(kind: 'phone' | 'email', value: string, field: string = kind): string | undefined {
  const ok = kind === 'email' ? EMAIL.test(value) : PHONE.test(value.replace(/[\s-]/g, ''));
  return ok ? undefined : `${field} tidak valid.`;
}

/**
 * Validates a direct-payment body as the gateway does (docs/gateway.md, "Payments"): required fields, types,
 * method and channel, COD fields, equal item array lengths, positive numbers, expiry unit.
 * Returns field errors in the gateway's Indonesian wording; empty when valid.
 */
export function validatePaymentRequest(body: Record<string, unknown>): FieldErrors {
  const errors: FieldErrors = {};
  const add = (field: string, message: string) => (errors[field] ??= []).push(message);
  const required = (field: string) => {
    const v = body[field];
    if (v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0)) {
      add(field, `${field} wajib diisi.`);
      return false;
    }
    return true;
  };
  for (const f of ['name', 'phone', 'email', 'notifyUrl']) {
    if (required(f) && typeof body[f] !== 'string') add(f, `${f} harus berupa teks.`);
  }
  for (const kind of ['email', 'phone'] as const) {
    const v = body[kind];
    const bad = typeof v === 'string' && v ? contactError(kind, v) : undefined;
    if (bad) add(kind, bad);
  }
  if (typeof body.notifyUrl === 'string' && body.notifyUrl && !/^https?:\/\/\S+$/.test(body.notifyUrl)) add('notifyUrl', 'notifyUrl harus berupa URL.');
  const rule = (r: RuleResult, field: string) => {
    if (!r.ok) add(field, r.message);
  };
  if (required('amount')) rule(rupiahAmount('amount', typeof body.amount === 'number' ? body.amount : Number.NaN), 'amount');
  const method = body.paymentMethod;
  if (required('paymentMethod') && (typeof method !== 'string' || !METHOD_NAMES.includes(method))) {
    add('paymentMethod', `paymentMethod tidak valid. Pilihan: ${METHOD_NAMES.join(', ')}.`);
  }
  if (required('paymentChannel') && typeof method === 'string' && METHOD_NAMES.includes(method)) {
    const channels = channelsOf(method);
    if (typeof body.paymentChannel !== 'string' || !channels.includes(body.paymentChannel)) {
      add('paymentChannel', `paymentChannel tidak valid untuk ${method}. Pilihan: ${channels.join(', ')}.`);
    }
  }
  const expires = expiry(body.expired, body.expiredType, EXPIRED_TYPES);
  if (!expires.ok) for (const [f, messages] of Object.entries(expires.errors)) for (const m of messages) add(f, m);
  const arrays = ['product', 'qty', 'price'];
  const cod = method === 'cod';
  if (cod) arrays.push('weight', 'width', 'length');
  let length: number | undefined;
  for (const f of arrays) {
    if (!required(f)) continue;
    const v = body[f];
    if (!Array.isArray(v)) {
      add(f, `${f} harus berupa array.`);
      continue;
    }
    if (length === undefined) length = v.length;
    else if (v.length !== length) add(f, `${f} harus berjumlah sama dengan product.`);
    if (f === 'product') {
      if (v.some((x) => typeof x !== 'string' || x === '')) add(f, 'product harus berupa teks.');
    } else {
      const check = f === 'qty' ? quantity : f === 'price' ? rupiahAmount : dimension;
      // pay sends numbers: a numeric string is a mistake here, whatever the gateway takes.
      v.forEach((x, i) => rule(check(`${f}.${i}`, typeof x === 'number' ? x : Number.NaN), f));
    }
  }
  if (cod && Array.isArray(body.height)) body.height.forEach((x, i) => rule(dimension(`height.${i}`, typeof x === 'number' ? x : Number.NaN), 'height'));
  if (cod) {
    // The gateway's docs table (cod and direct-payment pages) marks these four required for COD; its
    // Postman collection calls shipping/shippingService "conditional — from API Shipping Calculate".
    for (const f of ['deliveryArea', 'deliveryAddress', 'shipping', 'shippingService']) required(f);
    // deliveryArea: a postal code in the docs, an area id of the COD area search in the collection.
    for (const f of ['deliveryArea', 'pickupArea']) {
      const v = body[f];
      if (typeof v === 'string' && v && !/^\d{1,12}$/.test(v)) add(f, `${f} harus berupa kode pos atau id area.`);
    }
  }
  return errors;
}
