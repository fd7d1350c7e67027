import { encodeJson, REQUEST_BODY } from '../signing/php-json.js';
import type { DirectPaymentRequest } from '../payment-rules.js';

export const DIRECT_PAYMENT_PATH = 'v2/payment/direct';
export const CHECK_TRANSACTION_PATH = 'v2/transaction';

/** The `Data` of a successful direct payment (docs/gateway.md, "Payments"). */
export interface DirectPaymentData {
  TransactionId: number;
  ReferenceId: string;
  Via: string;
  Channel: string;
  PaymentNo: string;
  PaymentName: string;
  Total: number;
  Fee: number;
  Expired: string;
  Note: string | null;
  Url: string;
  QrString?: string;
  [key: string]: unknown;
}

const ORDER: (keyof DirectPaymentRequest)[] = [
  'name',
  'phone',
  'email',
  'amount',
  'notifyUrl',
  'expired',
  'expiredType',
  'comments',
  'referenceId',
  'paymentMethod',
  'paymentChannel',
  'product',
  'qty',
  'price',
  'weight',
  'width',
  'height',
  'length',
  'deliveryArea',
  'deliveryAddress',
  'shipping',
  'shippingService',
  'pickupArea',
  'pickupAddress',
  'account',
  'escrow',
];

/**
 * The exact request bytes: compact JSON, keys in the spec's order, `/` raw, non-ASCII as lower-case
 * `\uXXXX` (docs/gateway.md, "Request signing"). The signature is computed over these bytes.
 */
export function encodePaymentBody(req: DirectPaymentRequest): string {
  const ordered: Record<string, unknown> = {};
  for (const key of ORDER) if (req[key] !== undefined) ordered[key] = req[key];
  return encodeJson(ordered, REQUEST_BODY);
}

export function encodeCheckTransactionBody(transactionId: number): string {
  return encodeJson({ transactionId }, REQUEST_BODY);
}
