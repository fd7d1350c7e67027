import { randomInt, randomUUID } from 'node:crypto';
import { feeFor } from '../fees.js';
import { paymentNumber } from '../payment-numbers.js';
import { statusInfo, type StatusKey } from '../statuses.js';
import { buildCallbackFields } from './build.js';
import { deepFreeze } from '../freeze.js';

/** Every field name a gateway callback may carry (docs/gateway.md ("Callbacks") and the further fields it lists). */
export const CALLBACK_FIELD_NAMES: readonly string[] = deepFreeze([
  'trx_id',
  'sid',
  'reference_id',
  'status',
  'status_code',
  'sub_total',
  'total',
  'amount',
  'fee',
  'paid_off',
  'created_at',
  'expired_at',
  'paid_at',
  'settlement_status',
  'transaction_status_code',
  'is_escrow',
  'system_notes',
  'via',
  'channel',
  'payment_no',
  'va',
  'buyer_name',
  'buyer_email',
  'buyer_phone',
  'additional_info',
  'url',
  'status_desc',
  'merchant',
  'merchant_name',
  'product',
  'quantity',
  'trscode',
  'unique_code',
  'settlement_date',
  'expired_time',
  'expired_unix',
  'is_refund',
  'is_sandbox',
  'referenceId',
]);

export interface SampleOptions {
  status: StatusKey;
  method: string;
  channel: string;
  now: Date;
  url: string;
  amount?: number;
  trxId?: number;
  settlement?: 'immediate' | 'deferred';
}

/** A realistic callback for a made-up transaction: consistent amounts, fee, numbers and dates. */
export function sampleCallbackFields(o: SampleOptions): Record<string, string> {
  const trxId = o.trxId ?? randomInt(100_000, 999_999);
  const amount = o.amount ?? 102_000;
  const created = new Date(o.now.getTime() - 30_000);
  return buildCallbackFields({
    trxId,
    sid: randomUUID(),
    referenceId: `ORDER-${trxId}`,
    status: o.status,
    amount,
    fee: feeFor(o.method, amount),
    via: o.method,
    channel: o.channel,
    paymentNo: paymentNumber(o.method, o.channel, trxId, 'Paycli Sandbox Store', amount).paymentNo,
    createdAt: created,
    expiredAt: new Date(created.getTime() + 86_400_000),
    paidAt: statusInfo(o.status).paid || o.status === 'refund' ? o.now : undefined,
    isEscrow: o.status === 'escrow',
    buyerName: 'Putu Ayu',
    buyerEmail: 'putu@example.com',
    buyerPhone: '08123456789',
    url: o.url,
    settlement: o.settlement,
  });
}
