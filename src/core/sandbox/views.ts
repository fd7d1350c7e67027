import type { ServerResponse } from 'node:http';
import { formatJakarta } from '../signing/request-signature.js';
import { CALLBACK_STATUSES } from '../payment-rules.js';
import type { SandboxState, Transaction } from './state.js';

/** Answers with the gateway's envelope (spec 2.1). */
export function envelope(res: ServerResponse, status: number, message: string, data: unknown, extra?: Record<string, unknown>): void {
  const body = JSON.stringify({ Status: status, Success: status < 400, Message: message, ...(extra ?? {}), Data: data });
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** Answers with plain JSON (admin API). */
export function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** The view of a transaction that the admin API and `paycli sandbox list` show. */
export function transactionView(t: Transaction, state: SandboxState): Record<string, unknown> {
  return {
    id: t.id, referenceId: t.referenceId, status: t.status, via: t.via, channel: t.channel, paymentNo: t.paymentNo,
    amount: t.amount, fee: t.fee, buyer: t.buyer, notifyUrl: t.notifyUrl,
    createdAt: formatJakarta(new Date(t.createdAt)), expiresAt: formatJakarta(new Date(t.expiresAt)),
    paidAt: t.paidAt ? formatJakarta(new Date(t.paidAt)) : null,
    callbacks: [...state.deliveries.values()].filter((d) => d.trxId === t.id).map((d) => ({ id: d.id, status: d.status, state: d.state, attempts: d.attempts, lastResult: d.lastResult ?? null })),
  };
}

/** The `Data` of check transaction. */
export function checkTransactionData(t: Transaction): Record<string, unknown> {
  return {
    TransactionId: t.id, SessionId: t.sid, ReferenceId: t.referenceId, Status: CALLBACK_STATUSES[t.status],
    StatusDesc: t.status === 'berhasil' ? 'Berhasil' : t.status === 'expired' ? 'Expired' : 'Pending',
    Amount: t.amount, Fee: t.fee, Total: t.amount, PaidOff: t.status === 'berhasil' ? t.amount - t.fee : 0,
    Via: t.via, Channel: t.channel, PaymentNo: t.paymentNo, BuyerName: t.buyer.name, BuyerEmail: t.buyer.email, BuyerPhone: t.buyer.phone,
    CreatedDate: formatJakarta(new Date(t.createdAt)), ExpiredDate: formatJakarta(new Date(t.expiresAt)),
    SuccessDate: t.paidAt ? formatJakarta(new Date(t.paidAt)) : null, IsEscrow: false,
  };
}

