import type { PaymentItem } from '../payment-rules.js';
import { encodeJson, REQUEST_BODY } from '../signing/php-json.js';

/** Redirect (hosted page) payment: `POST {base}/v2/payment` (the Go SDK adds a trailing `/`). */
export const REDIRECT_PAYMENT_PATH = 'v2/payment';

export interface RedirectPaymentRequest {
  items: PaymentItem[];
  notifyUrl: string;
  returnUrl: string;
  cancelUrl: string;
  referenceId?: string;
  buyerName?: string;
  buyerEmail?: string;
  buyerPhone?: string;
  expired?: number;
  expiredType?: string;
  /** Pre-selects a method on the page. */
  paymentMethod?: string;
  /** Per item, in item order (the collection's `description[]`, `imageUrl[]`); descriptions default to the names. */
  descriptions?: string[];
  imageUrls?: string[];
  /** The page's language. */
  lang?: 'id' | 'en';
  /** A child VA; and the COD pickup area. */
  account?: string;
  pickupArea?: string;
}

/** `Data` of a redirect payment (docs: `SessionID` and `Url`). */
export interface RedirectPaymentData {
  SessionID?: string;
  SessionId?: string;
  Url: string;
  [key: string]: unknown;
}

/**
 * The request bytes with the documented field names: item arrays (`description` = the product name,
 * the docs mark it required), the three URLs, the buyer as `buyerName`/`buyerEmail`/`buyerPhone`.
 * Absent optional fields are left out (never `null`).
 */
export function encodeRedirectBody(r: RedirectPaymentRequest): string {
  const body: Record<string, unknown> = {
    product: r.items.map((i) => i.product),
    qty: r.items.map((i) => i.qty),
    price: r.items.map((i) => i.price),
    description: r.items.map((i, n) => r.descriptions?.[n] ?? i.product),
    ...(r.imageUrls ? { imageUrl: r.imageUrls } : {}),
    returnUrl: r.returnUrl,
    notifyUrl: r.notifyUrl,
    cancelUrl: r.cancelUrl,
  };
  const optional: [string, unknown][] = [
    ['referenceId', r.referenceId],
    ['buyerName', r.buyerName],
    ['buyerEmail', r.buyerEmail],
    ['buyerPhone', r.buyerPhone],
    ['expired', r.expired],
    ['expiredType', r.expiredType],
    ['paymentMethod', r.paymentMethod],
    ['account', r.account],
    ['pickupArea', r.pickupArea],
    ['lang', r.lang],
  ];
  for (const [k, v] of optional) if (v !== undefined && v !== '') body[k] = v;
  return encodeJson(body, REQUEST_BODY);
}

/** Data of a redirect payment: an object with the page's http(s) `Url` (a malformed response otherwise). */
export function checkRedirectData(data: unknown): string | undefined {
  if (data === null || typeof data !== 'object' || Array.isArray(data))
    return `is ${data === null ? 'null' : Array.isArray(data) ? 'a list' : typeof data}, not the payment page`;
  const url = (data as Record<string, unknown>).Url;
  if (typeof url !== 'string' || !/^https?:\/\/[^\s]+$/i.test(url)) return 'has no http(s) Url';
  return undefined;
}
