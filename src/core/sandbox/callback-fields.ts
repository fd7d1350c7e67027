import { buildCallbackFields } from '../callback/build.js';
import type { StatusKey } from '../statuses.js';
import type { Transaction } from './state.js';

/** The fields of a transaction's callback in a status, from the emulator's record (the outbox and `trigger --trx` use it). */
export function callbackFieldsOf(txn: Transaction, status: StatusKey, settlement?: 'immediate' | 'deferred'): Record<string, string> {
  return buildCallbackFields({
    trxId: txn.id,
    sid: txn.sid,
    referenceId: txn.referenceId,
    status,
    amount: txn.amount,
    fee: txn.fee,
    via: txn.via,
    channel: txn.channel,
    paymentNo: txn.paymentNo,
    createdAt: new Date(txn.createdAt),
    expiredAt: new Date(txn.expiresAt),
    paidAt: txn.paidAt ? new Date(txn.paidAt) : undefined,
    buyerName: txn.buyer.name,
    buyerEmail: txn.buyer.email,
    buyerPhone: txn.buyer.phone,
    url: txn.notifyUrl,
    // `berhasil` with `deferred` is the paid-unsettled callback (6), as `unsettled` is.
    settlement,
    feeDirection: txn.feeDirection,
    isEscrow: txn.escrow && status !== 'berhasil' && status !== 'unsettled',
  });
}
