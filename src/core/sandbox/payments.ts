import { randomUUID } from 'node:crypto';
import type { PaymentRequest } from './validate.js';
import type { SandboxAccount } from './accounts.js';
import type { Transaction } from './state.js';
import { feeFor } from '../fees.js';
import { paymentNumber } from '../payment-numbers.js';

/** Builds the transaction of a checked direct-payment request (not yet stored). */
export function buildTransaction(req: PaymentRequest, account: SandboxAccount, id: number, now: number): Transaction {
  const { paymentNo, qrString } = paymentNumber(req.method, req.channel, id, account.name, req.amount);
  return {
    id,
    sid: randomUUID(),
    merchantVa: account.va,
    referenceId: req.referenceId,
    via: req.method,
    channel: req.channel,
    paymentNo,
    paymentName: req.channelName,
    qrString,
    amount: req.amount,
    fee: feeFor(req.method, req.amount),
    ...(req.feeDirection === 'BUYER' ? { feeDirection: 'BUYER' as const } : {}),
    status: 'pending',
    ...(req.escrow ? { escrow: true } : {}),
    createdAt: now,
    expiresAt: now + req.expiresInMs,
    notifyUrl: req.notifyUrl,
    buyer: { name: req.name, phone: req.phone, email: req.email },
    items: req.items,
    comments: req.comments,
    ...(req.shipment ? { shipment: req.shipment } : {}),
  };
}
