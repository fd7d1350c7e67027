import { CHANNEL_NAMES, METHOD_NAMES, channelsOf, contactError, dimension, expiry, isAbsent, PAYMENT_LIMITS as LIMITS, quantity, rupiahAmount, type FieldErrors, type RuleResult } from '../payment-rules.js';

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
  items: { product: string; qty: number; price: number }[];
}

export type ReadResult = { ok: true; request: PaymentRequest } | { ok: false; errors: FieldErrors };

/** Reads and checks a direct-payment body; field errors in the gateway's Indonesian wording. */
export function readPaymentRequest(raw: Record<string, unknown>): ReadResult {
  const body: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(raw)) if (v !== null) body[k] = v;
  const errors: FieldErrors = {};
  const add = (field: string, message: string) => (errors[field] ??= []).push(message);

  const text = (field: string, required: boolean, max: number = LIMITS.maxText): string | undefined => {
    const v = body[field];
    if (isAbsent(v)) {
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
  /** A rule's value, or its message added under `field`. */
  const checked = (field: string, r: RuleResult): number | undefined => {
    if (r.ok) return r.value;
    add(field, r.message);
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
  if (notifyUrl !== undefined && !/^https?:\/\/\S+$/.test(notifyUrl)) add('notifyUrl', 'notifyUrl harus berupa URL.');

  let amount: number | undefined;
  if (isAbsent(body.amount)) add('amount', 'amount wajib diisi.');
  else amount = checked('amount', rupiahAmount('amount', body.amount));

  const method = body.paymentMethod;
  let channel: string | undefined;
  if (isAbsent(method)) add('paymentMethod', 'paymentMethod wajib diisi.');
  else if (typeof method !== 'string' || !METHOD_NAMES.includes(method)) add('paymentMethod', `paymentMethod tidak valid. Pilihan: ${METHOD_NAMES.join(', ')}.`);
  if (isAbsent(body.paymentChannel)) add('paymentChannel', 'paymentChannel wajib diisi.');
  else if (typeof method === 'string' && METHOD_NAMES.includes(method)) {
    const allowed = [...channelsOf(method), ...(EXTRA_CHANNELS[method] ?? [])];
    if (typeof body.paymentChannel !== 'string' || !allowed.includes(body.paymentChannel)) {
      add('paymentChannel', `paymentChannel tidak valid untuk ${method}. Pilihan: ${allowed.join(', ')}.`);
    } else channel = body.paymentChannel;
  }

  let expiresInMs = 0;
  const expires = expiry(body.expired, body.expiredType);
  if (expires.ok) expiresInMs = expires.ms;
  else for (const [f, messages] of Object.entries(expires.errors)) for (const m of messages) add(f, m);

  let feeDirection: 'MERCHANT' | 'BUYER' = 'MERCHANT';
  if (!isAbsent(body.feeDirection)) {
    const fd = String(body.feeDirection).toUpperCase();
    if (fd !== 'MERCHANT' && fd !== 'BUYER') add('feeDirection', 'feeDirection tidak valid. Pilihan: MERCHANT, BUYER.');
    else feeDirection = fd;
  }

  // Items: required for COD only; when any is sent, all three must be, with equal lengths.
  const cod = method === 'cod';
  const itemFields = ['product', 'qty', 'price'];
  const sentItems = itemFields.some((f) => !isAbsent(body[f]));
  const items: PaymentRequest['items'] = [];
  if (cod || sentItems) {
    const arrays: Record<string, unknown[]> = {};
    for (const f of itemFields) {
      const v = body[f];
      if (isAbsent(v)) add(f, `${f} wajib diisi.`);
      else if (!Array.isArray(v)) add(f, `${f} harus berupa array.`);
      else arrays[f] = v;
    }
    const products = arrays.product;
    if (products) {
      if (products.some((p) => typeof p !== 'string' || p.trim() === '')) add('product', 'product harus berupa teks.');
      for (const f of ['qty', 'price']) if (arrays[f] && arrays[f]!.length !== products.length) add(f, `${f} harus berjumlah sama dengan product.`);
    }
    const qtys = (arrays.qty ?? []).map((q, i) => checked(`qty.${i}`, quantity(`qty.${i}`, q)));
    const prices = (arrays.price ?? []).map((p, i) => checked(`price.${i}`, rupiahAmount(`price.${i}`, p)));
    if (products && Object.keys(errors).every((k) => !/^(product|qty|price)/.test(k))) {
      products.forEach((p, i) => items.push({ product: String(p), qty: qtys[i]!, price: prices[i]! }));
    }
  }
  // COD dimensions (kg, cm): required for COD except height; checked wherever they are sent.
  for (const f of ['weight', 'width', 'height', 'length']) {
    const v = body[f];
    if (isAbsent(v)) {
      if (cod && f !== 'height') add(f, `${f} wajib diisi.`);
      continue;
    }
    if (!Array.isArray(v)) {
      add(f, `${f} harus berupa array.`);
      continue;
    }
    if (Array.isArray(body.product) && v.length !== body.product.length) add(f, `${f} harus berjumlah sama dengan product.`);
    v.forEach((x, i) => checked(`${f}.${i}`, dimension(`${f}.${i}`, x)));
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
