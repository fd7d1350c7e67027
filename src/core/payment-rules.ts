/**
 * The one table of payment methods and channels (docs/gateway.md, "Payments") and the request rules.
 * The CLI's validation and prompts, the emulator, and the shell completions all read it.
 */
export interface MethodInfo {
  method: string;
  label: string;
  channels: readonly string[];
}

export const PAYMENT_METHODS: readonly MethodInfo[] = [
  { method: 'va', label: 'virtual account', channels: ['bag', 'bca', 'bpd_bali', 'bni', 'cimb', 'mandiri', 'bmi', 'bri', 'bsi', 'permata', 'danamon', 'btn'] },
  { method: 'cstore', label: 'convenience store', channels: ['alfamart', 'indomaret'] },
  { method: 'cod', label: 'cash on delivery', channels: ['rpx'] },
  { method: 'qris', label: 'QRIS', channels: ['mpm'] },
  { method: 'cc', label: 'credit card', channels: ['cc'] },
  { method: 'paylater', label: 'pay later', channels: ['akulaku'] },
  { method: 'ewallet', label: 'e-wallet', channels: ['dana', 'shopeepay'] },
];

export const METHOD_NAMES: readonly string[] = PAYMENT_METHODS.map((m) => m.method);
export const EXPIRED_TYPES: readonly string[] = ['days', 'hours', 'minutes'];
export const CALLBACK_STATUSES = { berhasil: 1, pending: 0, expired: -2 } as const;
export type CallbackStatus = keyof typeof CALLBACK_STATUSES;

/**
 * Display names of channels, as the gateway's PaymentName: a frozen object without a prototype, so a
 * channel named `constructor` or `__proto__` (from a request, a URL) has no name and no entry.
 */
export const CHANNEL_NAMES: Readonly<Record<string, string>> = Object.freeze(Object.assign(Object.create(null) as Record<string, string>, {
  bag: 'Bank Artha Graha', bca: 'BCA', bpd_bali: 'BPD Bali', bni: 'BNI', cimb: 'CIMB Niaga', mandiri: 'Mandiri',
  bmi: 'Bank Muamalat', bri: 'BRI', bsi: 'BSI', permata: 'Permata', danamon: 'Danamon', btn: 'BTN',
  alfamart: 'Alfamart', indomaret: 'Indomaret', rpx: 'RPX (COD)', mpm: 'QRIS', cc: 'Credit Card',
  akulaku: 'Akulaku', dana: 'DANA', shopeepay: 'ShopeePay',
}));

export function channelsOf(method: string): readonly string[] {
  return PAYMENT_METHODS.find((m) => m.method === method)?.channels ?? [];
}

/** Channel aliases users type; value is [method, channel]. */
export const CHANNEL_ALIASES: Record<string, { method: string; channel: string }> = {
  qris: { method: 'qris', channel: 'mpm' },
};

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

function isPositiveNumber(v: unknown): boolean {
  return typeof v === 'number' && Number.isFinite(v) && v > 0;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const PHONE = /^(\+62|62|0)\d{6,14}$/;

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
  if (typeof body.email === 'string' && body.email && !EMAIL.test(body.email)) add('email', 'email tidak valid.');
  if (typeof body.phone === 'string' && body.phone && !PHONE.test(body.phone.replace(/[\s-]/g, ''))) add('phone', 'phone tidak valid.');
  if (typeof body.notifyUrl === 'string' && body.notifyUrl && !/^https?:\/\/\S+$/.test(body.notifyUrl)) add('notifyUrl', 'notifyUrl harus berupa URL.');
  if (required('amount') && !isPositiveNumber(body.amount)) add('amount', 'amount harus berupa angka lebih dari 0.');
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
  if (body.expired !== undefined && !isPositiveNumber(body.expired)) add('expired', 'expired harus berupa angka lebih dari 0.');
  if (body.expiredType !== undefined && !EXPIRED_TYPES.includes(String(body.expiredType))) {
    add('expiredType', `expiredType tidak valid. Pilihan: ${EXPIRED_TYPES.join(', ')}.`);
  }
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
    } else if (v.some((x) => !isPositiveNumber(x))) add(f, `${f} harus berupa angka lebih dari 0.`);
  }
  if (cod && Array.isArray(body.height) && body.height.some((x) => !isPositiveNumber(x))) add('height', 'height harus berupa angka lebih dari 0.');
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
