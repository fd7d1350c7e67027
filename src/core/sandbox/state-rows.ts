import type { Member, PickupRequest, Transfer } from './records.js';
import type { Delivery, DeliveryState, Transaction, TxnStatus } from './state-types.js';

// The ledger's rows and the records they map to (Transaction, Delivery, PickupRequest, Transfer, Member).

export interface TxnRow {
  id: number;
  merchant_va: string;
  reference_id: string;
  payment_no: string;
  via: string;
  amount: number;
  fee: number;
  created_at: number;
  expires_at: number;
  status: string;
  paid_at: number | null;
  ended_at: number | null;
  escrow: number;
  settled_at: number | null;
  body: string;
}

export interface DeliveryRow {
  seq: number;
  trx_id: number;
  status: string;
  url: string;
  format: string;
  attempts: number;
  state: string;
  next_at: number | null;
  last_result: string | null;
  created_at: number;
}

export interface PickupRow {
  id: number;
  trx_id: number;
  date: string;
  time: string;
  vehicle: string;
  requested_at: number;
}

export interface TransferRow {
  id: number;
  by_va: string;
  sender: string;
  receiver: string;
  amount: number;
  reference_id: string;
  related_id: string | null;
  notes: string;
  at: number;
}

export interface MemberRow {
  seq: number;
  va: string;
  name: string;
  email: string;
  phone: string;
  parent: string;
  website_url: string | null;
  at: number;
}

export const pickupOf = (r: PickupRow): PickupRequest => ({ trxId: r.trx_id, date: r.date, time: r.time, vehicle: r.vehicle, requestedAt: r.requested_at });
export const transferOf = (r: TransferRow): Transfer => ({
  id: r.id,
  by: r.by_va,
  sender: r.sender,
  receiver: r.receiver,
  amount: r.amount,
  referenceId: r.reference_id,
  ...(r.related_id !== null ? { relatedId: r.related_id } : {}),
  notes: r.notes,
  at: r.at,
});
export const memberOf = (r: MemberRow): Member => ({
  va: r.va,
  name: r.name,
  email: r.email,
  phone: r.phone,
  parent: r.parent,
  ...(r.website_url !== null ? { websiteUrl: r.website_url } : {}),
  at: r.at,
});

export const TXN_COLUMNS =
  'id, merchant_va, reference_id, payment_no, via, amount, fee, status, created_at, expires_at, paid_at, ended_at, escrow, settled_at, body';

export function txnOf(r: TxnRow): Transaction {
  const rest = JSON.parse(r.body) as Omit<
    Transaction,
    'id' | 'merchantVa' | 'referenceId' | 'paymentNo' | 'via' | 'amount' | 'fee' | 'status' | 'createdAt' | 'expiresAt'
  >;
  const t: Transaction = {
    ...rest,
    id: r.id,
    merchantVa: r.merchant_va,
    referenceId: r.reference_id,
    via: r.via,
    paymentNo: r.payment_no,
    amount: r.amount,
    fee: r.fee,
    status: r.status as TxnStatus,
    createdAt: r.created_at,
    expiresAt: r.expires_at,
  };
  if (r.paid_at !== null) t.paidAt = r.paid_at;
  if (r.ended_at !== null) t.endedAt = r.ended_at;
  if (r.escrow) t.escrow = true;
  if (r.settled_at !== null) t.settledAt = r.settled_at;
  return t;
}

export function deliveryOf(r: DeliveryRow): Delivery {
  return {
    id: `cb-${r.seq}`,
    trxId: r.trx_id,
    status: r.status as TxnStatus,
    url: r.url,
    format: r.format as Delivery['format'],
    attempts: r.attempts,
    state: r.state as DeliveryState,
    nextAt: r.next_at,
    ...(r.last_result !== null ? { lastResult: r.last_result } : {}),
    createdAt: r.created_at,
  };
}

export const seqOf = (deliveryId: string): number => Number(/^cb-(\d+)$/.exec(deliveryId)?.[1] ?? NaN);

/** What of a transaction is not a column, as stored in `body`. */
export function bodyOf(t: Transaction): string {
  const {
    id: _i,
    merchantVa: _m,
    referenceId: _r,
    paymentNo: _n,
    via: _v,
    amount: _a,
    fee: _f,
    status: _s,
    createdAt: _c,
    expiresAt: _x,
    paidAt: _p,
    endedAt: _e,
    escrow: _w,
    settledAt: _t,
    ...rest
  } = t;
  return JSON.stringify(rest);
}
