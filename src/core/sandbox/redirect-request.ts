import { contactError, expiry, isAbsent, METHOD_NAMES, PAYMENT_LIMITS, quantity, rupiahAmount } from '../payment-rules.js';
import { normalizePhoneIfMobile } from '../phone.js';
import type { RedirectSession } from './redirect-session.js';
import { isWebUrl } from './web-url.js';

// The emulator's reading of a redirect-payment request (`POST /api/v2/payment`).

const present = (v: unknown) => !isAbsent(v);

function stringOf(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : undefined;
}

/**
 * Validates a redirect-payment body (`POST /api/v2/payment`) as the official clients send it: items
 * as `product`/`qty`/`price` arrays (numbers or numeric strings: the Node SDK and the docs send
 * strings), buyer as `name`/`email`/`phone` or `buyerName`/… (the PHP SDK sends both), `null` for
 * absent, `notifyUrl` required; `returnUrl`/`cancelUrl`/`description` optional (the SDKs send them
 * only when set). Quantities, prices, the total and the expiry follow the rules of direct payments
 * (payment-rules.ts): whole Rupiah within the limits, a whole number of an expiry unit.
 */
export function parseRedirectRequest(
  body: Record<string, unknown>,
  va: string,
  sid: string,
  now: number,
): { ok: true; session: RedirectSession } | { ok: false; errors: Record<string, string[]> } {
  const errors: Record<string, string[]> = {};
  const add = (f: string, m: string): void => {
    errors[f] = [...(errors[f] ?? []), m];
  };
  const items = readItems(body, add);
  // The total is an amount like a direct payment's: whole Rupiah up to the limit (each item's are).
  const amount = items.reduce((s, it) => s + it.qty * it.price, 0);
  if (amount > PAYMENT_LIMITS.maxAmount) add('amount', `amount maksimal ${PAYMENT_LIMITS.maxAmount}.`);
  const url = (f: string, required: boolean): string | undefined => {
    const v = body[f];
    if (!present(v)) {
      if (required) add(f, `${f} wajib diisi.`);
      return undefined;
    }
    if (typeof v !== 'string' || !isWebUrl(v)) {
      add(f, `${f} harus berupa URL.`);
      return undefined;
    }
    return v;
  };
  const notifyUrl = url('notifyUrl', true);
  const returnUrl = url('returnUrl', false);
  const cancelUrl = url('cancelUrl', false);
  let method: string | undefined;
  if (present(body.paymentMethod)) {
    if (typeof body.paymentMethod !== 'string' || !METHOD_NAMES.includes(body.paymentMethod))
      add('paymentMethod', `paymentMethod tidak valid. Pilihan: ${METHOD_NAMES.join(', ')}.`);
    else method = body.paymentMethod;
  }
  const extras = pageExtras(body, add);
  let expiresInMs = 0;
  const expires = expiry(body.expired, body.expiredType);
  if (expires.ok) expiresInMs = expires.ms;
  else for (const [f, messages] of Object.entries(expires.errors)) for (const m of messages) add(f, m);
  // The buyer's phone and e-mail, when sent, are checked as direct payment checks them.
  const buyerField = (k: 'name' | 'phone' | 'email'): [string, string | undefined] => {
    const long = `buyer${k[0]!.toUpperCase()}${k.slice(1)}`;
    const v = stringOf(body[long]);
    return v !== undefined ? [long, v] : [k, stringOf(body[k])];
  };
  for (const k of ['phone', 'email'] as const) {
    const [field, v] = buyerField(k);
    const bad = v === undefined ? undefined : contactError(k, v, field);
    if (bad) add(field, bad);
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  const phone = buyerField('phone')[1];
  return {
    ok: true,
    session: {
      sid,
      merchantVa: va,
      createdAt: now,
      expiresAt: now + expiresInMs,
      amount,
      items,
      buyer: {
        name: stringOf(body.buyerName) ?? stringOf(body.name) ?? '',
        phone: phone === undefined ? '' : normalizePhoneIfMobile(phone),
        email: stringOf(body.buyerEmail) ?? stringOf(body.email) ?? '',
      },
      notifyUrl: notifyUrl!,
      returnUrl,
      cancelUrl,
      referenceId: stringOf(body.referenceId) ?? '',
      method,
      comments: stringOf(body.comments),
      ...extras,
    },
  };
}

/** The items: `product`/`qty`/`price` (and `description`, `imageUrl`) arrays of one length, or single values. */
function readItems(body: Record<string, unknown>, add: (f: string, m: string) => void): RedirectSession['items'] {
  const list = (f: string): unknown[] | undefined => {
    const v = body[f];
    if (!present(v)) return undefined;
    return Array.isArray(v) ? v : [v];
  };
  const products = list('product');
  const qtys = list('qty');
  const prices = list('price');
  const descriptions = list('description');
  const images = list('imageUrl');
  for (const [f, v] of [
    ['product', products],
    ['qty', qtys],
    ['price', prices],
  ] as const)
    if (!v || v.length === 0) add(f, `${f} wajib diisi.`);
  const items: RedirectSession['items'] = [];
  if (products && qtys && prices) {
    if (qtys.length !== products.length || prices.length !== products.length) add('product', 'product, qty dan price harus sama panjang.');
    products.forEach((p, i) => {
      const qty = quantity(`qty.${i}`, qtys[i]);
      const price = rupiahAmount(`price.${i}`, prices[i]);
      if (typeof p !== 'string' || p.trim() === '') add(`product.${i}`, `product.${i} wajib diisi.`);
      if (!qty.ok) add(`qty.${i}`, qty.message);
      if (!price.ok) add(`price.${i}`, price.message);
      const d = descriptions?.[i];
      items.push({
        product: String(p),
        qty: qty.ok ? qty.value : 0,
        price: price.ok ? price.value : 0,
        ...(typeof d === 'string' && d !== '' ? { description: d } : {}),
        ...imageOf(images?.[i], i, add),
      });
    });
  }
  return items;
}

/** An item's picture (`imageUrl[]`, the collection's redirect form): an http(s) URL, or a field error. */
function imageOf(img: unknown, i: number, add: (f: string, m: string) => void): { imageUrl?: string } {
  if (img === undefined || img === null || img === '') return {};
  if (typeof img === 'string' && isWebUrl(img)) return { imageUrl: img };
  add(`imageUrl.${i}`, `imageUrl.${i} harus berupa URL.`);
  return {};
}

/** The page's language (`lang`: id or en) and the COD pickup area (`pickupArea`), as the collection sends them. */
function pageExtras(body: Record<string, unknown>, add: (f: string, m: string) => void): { lang?: 'id' | 'en'; pickupArea?: string } {
  const out: { lang?: 'id' | 'en'; pickupArea?: string } = {};
  if (present(body.lang)) {
    if (body.lang !== 'id' && body.lang !== 'en') add('lang', 'lang harus id atau en.');
    else out.lang = body.lang;
  }
  const pickupArea = stringOf(body.pickupArea);
  if (pickupArea) out.pickupArea = pickupArea;
  return out;
}
