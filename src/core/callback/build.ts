import { statusInfo, type StatusKey } from '../statuses.js';
import { canonicalizeCallback, type CallbackFields } from '../signing/callback-canonical.js';
import { hmacHex } from '../signing/callback-signature.js';
import { formatJakarta, isoJakarta } from '../time.js';
import { chargeOf, type FeeDirection } from '../fees.js';

/** What a callback says about one transaction. */
export interface CallbackFacts {
  trxId: number;
  sid: string;
  referenceId: string;
  /** A status of the table in statuses.ts (`berhasil` with `settlement: 'deferred'` is `unsettled`). */
  status: StatusKey;
  amount: number;
  fee: number;
  via: string;
  channel: string;
  paymentNo: string;
  createdAt: Date;
  expiredAt: Date;
  paidAt?: Date;
  buyerName: string;
  buyerEmail: string;
  buyerPhone: string;
  /** The callback URL (the payment's notifyUrl). */
  url: string;
  isEscrow?: boolean;
  systemNotes?: string;
  /**
   * How a paid transaction settles: `immediate` (settlement_status `settled`, transaction_status_code 1,
   * as the real QRIS capture) or `deferred` (`unsettle`, 6: payment received, settled later).
   */
  settlement?: 'immediate' | 'deferred';
  /**
   * Who bears the fee: `MERCHANT` (default: total = amount, paid_off = amount − fee, as the real
   * QRIS capture) or `BUYER` (sub_total = amount, total = amount + fee, paid_off = amount, as the
   * gateway's published callback sample).
   */
  feeDirection?: FeeDirection;
}

/**
 * The fields of docs/gateway.md ("Callbacks") in the order the gateway sends them, every value a string as on the wire.
 * VA payments carry `payment_no` and `va`; QRIS and e-wallet an empty `payment_no` and no `va`.
 */
export function buildCallbackFields(f: CallbackFacts): Record<string, string> {
  const s = statusInfo(f.status === 'berhasil' && f.settlement === 'deferred' ? 'unsettled' : f.status);
  const paid = s.paid;
  const money = chargeOf(f.amount, f.fee, f.feeDirection);
  const fields: Record<string, string> = {
    trx_id: String(f.trxId),
    sid: f.sid,
    reference_id: f.referenceId,
    status: s.word,
    status_code: String(s.statusCode),
    sub_total: String(money.subTotal),
    total: String(money.total),
    amount: String(money.total),
    fee: String(money.fee),
    paid_off: String(paid ? money.paidOff : 0),
    created_at: formatJakarta(f.createdAt),
    expired_at: formatJakarta(f.expiredAt),
    paid_at: f.paidAt && f.status !== 'pending' && f.status !== 'expired' ? formatJakarta(f.paidAt) : '',
    settlement_status: s.settlementStatus,
    transaction_status_code: String(s.transactionStatusCode),
    is_escrow: s.isEscrow || f.isEscrow ? 'true' : 'false',
    system_notes: f.systemNotes ?? 'Sandbox notify',
    via: f.via,
    channel: f.channel,
    payment_no: f.via === 'va' ? f.paymentNo : f.via === 'qris' || f.via === 'ewallet' ? '' : f.paymentNo,
  };
  if (f.via === 'va') fields.va = f.paymentNo;
  fields.buyer_name = f.buyerName;
  fields.buyer_email = f.buyerEmail;
  fields.buyer_phone = f.buyerPhone;
  fields.additional_info = '[]';
  fields.url = f.url;
  return fields;
}

/** PHP `urlencode`: RFC 1738, space as `+`, only `-_.` and alphanumerics left raw. */
export function phpUrlEncode(value: string): string {
  return encodeURIComponent(value)
    .replace(/%20/g, '+')
    .replace(/[!'()*~]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());
}

/** A form body as PHP's `http_build_query` writes it. */
export function encodeFormBody(fields: Record<string, string>): string {
  return Object.entries(fields)
    .map(([k, v]) => `${phpUrlEncode(k)}=${phpUrlEncode(v)}`)
    .join('&');
}

/** The callback fields that docs/gateway.md ("Callbacks") types as integers in a JSON body. */
const INTEGER_FIELDS = new Set(['trx_id', 'status_code', 'transaction_status_code', 'paid_off']);

/**
 * How a JSON callback body carries its values: `typed` as the gateway's field table says
 * (`trx_id`, `status_code`, `transaction_status_code`, `paid_off` numbers, `is_escrow` a boolean,
 * `additional_info` an array, the rest strings), or `strings` (every value a string but
 * `additional_info`, as some senders do). Both carry the same signature: the canonical form is typed.
 */
export type JsonCallbackShape = 'typed' | 'strings';

/** A JSON callback body in the given shape (default: all strings, additional_info as an array). */
export function encodeJsonCallbackBody(fields: Record<string, string>, shape: JsonCallbackShape = 'strings'): string {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) {
    if (k === 'additional_info' && v === '[]') out[k] = [];
    else if (shape === 'typed' && INTEGER_FIELDS.has(k) && /^-?\d+$/.test(v) && Number.isSafeInteger(Number(v))) out[k] = Number(v);
    else if (shape === 'typed' && k === 'is_escrow') out[k] = v === 'true' || v === '1';
    else out[k] = v;
  }
  return JSON.stringify(out);
}

export interface SignedCallback {
  body: string;
  headers: Record<string, string>;
  signature: string;
  fields: Record<string, string>;
}

/**
 * Encodes and signs a callback as the gateway sends it: body in the chosen format (JSON typed by
 * default), headers
 * Accept, Content-Type, X-External-ID (digits), X-Signature (canonical HMAC with the VA), X-Timestamp.
 */
export function signCallbackRequest(
  fields: Record<string, string>,
  va: string,
  format: 'form' | 'json',
  now: Date,
  externalId: string,
  jsonShape: JsonCallbackShape = 'typed',
): SignedCallback {
  const signature = hmacHex(va, canonicalizeCallback(fields as CallbackFields));
  const body = format === 'json' ? encodeJsonCallbackBody(fields, jsonShape) : encodeFormBody(fields);
  return {
    body,
    signature,
    fields,
    headers: {
      Accept: 'application/json',
      'Content-Type': format === 'json' ? 'application/json' : 'application/x-www-form-urlencoded',
      'X-External-ID': externalId,
      'X-Signature': signature,
      'X-Timestamp': isoJakarta(now),
    },
  };
}

/** A unique digits-only id like the gateway's X-External-ID: Jakarta time plus six digits. */
export function externalId(now: Date, sequence: number): string {
  return formatJakarta(now).replace(/[-: ]/g, '') + String(sequence % 1_000_000).padStart(6, '0');
}
