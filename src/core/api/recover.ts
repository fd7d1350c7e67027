import { buildCallbackFields } from '../callback/build.js';
import { UsageError } from '../errors.js';
import { formatJakarta, parseWib } from '../time.js';
import type { TransactionRecord } from './merchant.js';
import { isPaidStatus } from './merchant.js';
import type { FeeDirection } from '../fees.js';

/**
 * Who bore the fee of a recorded transaction, and the amount the merchant asked for: from the
 * record's `FeeDirection` and `SubTotal` when it states them; otherwise a `Total` of `Amount` + `Fee`
 * means the buyer paid the fee. The inverse of fees.ts chargeOf, so that the rebuilt callback states
 * the same money as the one first sent.
 */
export function chargeFromRecord(r: TransactionRecord): { amount: number; fee: number; direction: FeeDirection } {
  const n = (v: unknown) => (v === null || v === undefined || v === '' ? undefined : Number(v));
  const fee = n(r.Fee) ?? 0;
  const amount = n(r.SubTotal) ?? n(r.Amount) ?? 0;
  const stated = typeof r.FeeDirection === 'string' ? r.FeeDirection.toUpperCase() : undefined;
  const direction: FeeDirection = stated === 'BUYER' || stated === 'MERCHANT' ? stated : fee > 0 && n(r.Total) === amount + fee ? 'BUYER' : 'MERCHANT';
  return { amount, fee, direction };
}

/**
 * `paycli recover`: the merchant's view of its orders against the gateway's records, and callbacks
 * rebuilt from those records exactly as the gateway sends them. Pure: I/O is the caller's.
 */

/** How far back expired payments are looked for by creation date (a payment that expires later than a week after its creation is not found). */
export const EXPIRY_LOOKBACK_MS = 7 * 24 * 3600_000;

/**
 * The window of `recover --since`: payments whose final moment (paid time for a payment, expiry for
 * an expired one) falls in it, whenever they were created. `paidFromDay` is the history's `indate`
 * (paid date) start; expired ones are read by creation date from `EXPIRY_LOOKBACK_MS` earlier.
 */
export function recoverWindow(
  now: Date,
  ms: number,
): { from: Date; paidFromDay: string; expiredCreatedFromDay: string; contains: (r: TransactionRecord) => boolean } {
  const from = new Date(now.getTime() - ms);
  return {
    from,
    paidFromDay: formatJakarta(from).slice(0, 10),
    expiredCreatedFromDay: formatJakarta(new Date(from.getTime() - EXPIRY_LOOKBACK_MS)).slice(0, 10),
    contains: (r) => {
      const outcome = gatewayOutcome(r);
      const at = outcome === 'berhasil' ? parseWib(r.SuccessDate) : outcome === 'expired' ? parseWib(r.ExpiredDate) : undefined;
      return at !== undefined && at >= from;
    },
  };
}

/** The gateway's view in the terms of a callback: paid (berhasil), expired, pending, or another final state. */
export function gatewayOutcome(r: TransactionRecord): 'berhasil' | 'expired' | 'pending' | 'other' {
  if (isPaidStatus(r.Status, r.PaidStatus)) return 'berhasil';
  if (r.Status === -2) return 'expired';
  if (r.Status === 0) return 'pending';
  return 'other';
}

const VIA_BY_TYPE: Record<number, string> = { 7: 'va', 10: 'cod', 11: 'cstore', 22: 'paylater', 27: 'qris' };

/**
 * The callback fields (docs/gateway.md, "Callbacks") the gateway would send for a transaction record: from check
 * transaction's `Data`, with `url` the address it is delivered to. Fails when the record is not final.
 */
export function callbackFromRecord(r: TransactionRecord, url: string): Record<string, string> {
  const outcome = gatewayOutcome(r);
  if (outcome !== 'berhasil' && outcome !== 'expired')
    throw new UsageError(`transaction ${r.TransactionId} is ${outcome}: only paid and expired transactions have a callback to rebuild`);
  const str = (v: unknown) => (v === null || v === undefined ? '' : String(v));
  const channel = str(r.Channel ?? r.PaymentChannel).toLowerCase();
  const via = str(r.Via).toLowerCase() || VIA_BY_TYPE[Number(r.Type)] || (channel === 'mpm' || channel === 'qris' ? 'qris' : 'va');
  const created = parseWib(r.CreatedDate);
  const expired = parseWib(r.ExpiredDate);
  const money = chargeFromRecord(r);
  if (!created || !expired)
    throw new UsageError(`transaction ${r.TransactionId}: the gateway's record has no CreatedDate/ExpiredDate to rebuild the callback from`);
  return buildCallbackFields({
    trxId: r.TransactionId,
    sid: str(r.SessionId),
    referenceId: str(r.ReferenceId),
    status: outcome,
    amount: money.amount,
    fee: money.fee,
    feeDirection: money.direction,
    via,
    channel,
    paymentNo: str(r.PaymentNo ?? r.PaymentCode),
    createdAt: created,
    expiredAt: expired,
    paidAt: parseWib(r.SuccessDate),
    buyerName: str(r.BuyerName),
    buyerEmail: str(r.BuyerEmail),
    buyerPhone: str(r.BuyerPhone),
    url,
    settlement: r.Status === 6 ? 'deferred' : 'immediate',
  });
}
