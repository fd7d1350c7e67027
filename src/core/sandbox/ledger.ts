import { CHANNEL_NAMES, PAYMENT_METHODS } from '../payment-rules.js';
import { formatJakarta } from '../time.js';
import type { Transaction } from './state.js';
import { chargeOfTxn } from './views.js';
import { instructionsPath, logoPath } from './channel-assets.js';
import { FEE_MODEL } from '../fees.js';

/**
 * The emulator's one ledger, read-only: what check transaction, history, balance and the channel list
 * answer, all derived from the same transactions. Pure functions of (transactions, clock, settlement).
 */

export type Settlement = 'immediate' | 'deferred';

/** With deferred settlement, a paid transaction settles one day after payment (business clock). */
export const DEFERRED_SETTLEMENT_MS = 86_400_000;

/** Check-transaction status codes (gateway docs): 0 pending, 1 success, 6 success but unsettled, -2 expired. */
export function statusCode(t: Transaction, settlement: Settlement, now: number): number {
  if (t.status === 'pending') return 0;
  if (t.status === 'expired') return -2;
  return settledAt(t, settlement) !== undefined && settledAt(t, settlement)! <= now ? 1 : 6;
}

export const STATUS_DESC: Record<string, string> = { '0': 'Pending', '1': 'Berhasil', '6': 'Berhasil (unsettled)', '-2': 'Expired', '2': 'Dibatalkan', '3': 'Refund', '4': 'Error', '5': 'Gagal', '7': 'Escrow' };

/** When a paid transaction is (or will be) settled. */
export function settledAt(t: Transaction, settlement: Settlement): number | undefined {
  if (t.status !== 'berhasil' || t.paidAt === undefined) return undefined;
  return settlement === 'deferred' ? t.paidAt + DEFERRED_SETTLEMENT_MS : t.paidAt;
}

/**
 * Transaction types per method (gateway docs and the Go SDK's constants): 7 VA and bank transfer,
 * 10 COD, 11 convenience store, 22 Akulaku, 27 QRIS payment. No source gives one for cards or
 * e-wallets; the emulator files them under 7 with their own description.
 */
export const TYPE_BY_METHOD: Record<string, [number, string]> = {
  va: [7, 'VA & Bank Transfer'], cstore: [11, 'Convenience Store'], cod: [10, 'COD'], qris: [27, 'QRIS Payment'],
  paylater: [22, 'Akulaku'], cc: [7, 'Credit Card'], ewallet: [7, 'E-Wallet'],
};

const jkt = (ms: number | undefined) => (ms === undefined ? null : formatJakarta(new Date(ms)));

/** The record of one transaction as check transaction and history answer it (documented fields, plus paycli's). */
export function transactionRecord(t: Transaction, merchantName: string, settlement: Settlement, now: number): Record<string, unknown> {
  const code = statusCode(t, settlement, now);
  const [type, typeDesc] = TYPE_BY_METHOD[t.via] ?? [7, t.via];
  const settled = settledAt(t, settlement);
  const channelName = CHANNEL_NAMES[t.channel] ?? t.channel;
  const money = chargeOfTxn(t);
  return {
    TransactionId: t.id,
    SessionId: t.sid,
    ReferenceId: t.referenceId === '' ? null : t.referenceId,
    RelatedId: 0,
    Sender: t.buyer.name || 'System',
    Receiver: merchantName,
    Amount: t.amount,
    Fee: t.fee,
    Status: code,
    StatusDesc: STATUS_DESC[String(code)],
    PaidStatus: t.status === 'berhasil' ? 'paid' : 'unpaid',
    IsLocked: false,
    Type: type,
    TypeDesc: typeDesc,
    Notes: t.comments ?? `${typeDesc} ${channelName.toUpperCase()}`,
    CreatedDate: jkt(t.createdAt),
    SuccessDate: jkt(t.paidAt),
    ExpiredDate: jkt(t.expiresAt),
    SettlementDate: settled !== undefined && settled <= now ? jkt(settled) : null,
    PaymentChannel: t.channel,
    PaymentCode: t.paymentNo,
    BuyerName: t.buyer.name,
    BuyerPhone: t.buyer.phone,
    BuyerEmail: t.buyer.email,
    // Beyond the documented set (the emulator has always answered them; paycli and recover use them).
    // One money model with the callback (fees.ts chargeOf): what the buyer paid, who bore the fee.
    SubTotal: money.subTotal,
    Total: money.total,
    PaidOff: t.status === 'berhasil' ? money.paidOff : 0,
    FeeDirection: t.feeDirection ?? 'MERCHANT',
    Via: t.via,
    Channel: t.channel,
    PaymentNo: t.paymentNo,
    IsEscrow: false,
  };
}

/** Balance of a merchant: settled net amounts, and paid amounts not yet settled. */
export function balanceOf(txns: Iterable<Transaction>, va: string, settlement: Settlement, now: number): { settled: number; unsettled: number; paidCount: number } {
  let settled = 0;
  let unsettled = 0;
  let paidCount = 0;
  for (const t of txns) {
    if (t.merchantVa !== va || t.status !== 'berhasil') continue;
    paidCount++;
    const at = settledAt(t, settlement);
    const net = chargeOfTxn(t).paidOff;
    if (at !== undefined && at <= now) settled += net;
    else unsettled += net;
  }
  return { settled, unsettled, paidCount };
}

/** The emulator's fee model as the channel list states it (fees.ts). */
export { FEE_MODEL };

/** `GET /api/v2/payment-channels`: methods with their channels, fees and availability (docs shape). */
export function paymentChannels(assetBase: string): Record<string, unknown>[] {
  return PAYMENT_METHODS.map((m) => ({
    Code: m.method,
    Name: m.label.replace(/\b\w/g, (c) => c.toUpperCase()),
    Description: m.label.replace(/\b\w/g, (c) => c.toUpperCase()),
    Channels: m.channels.map((c) => ({
      Code: c,
      Name: CHANNEL_NAMES[c] ?? c,
      Description: CHANNEL_NAMES[c] ?? c,
      // Served by the emulator (channel-assets.ts): a generated logo and an instructions page.
      Logo: `${assetBase}${logoPath(c)}`,
      PaymentInstructionsDoc: `${assetBase}${instructionsPath(m.method, c)}`,
      FeatureStatus: 'active',
      HealthStatus: 'online',
      TransactionFee: { ...FEE_MODEL[m.method]! },
    })),
  }));
}

/** `POST /api/v2/payment-method-list` (the Go SDK's older endpoint): the same table in that shape. */
export function paymentMethodList(assetBase: string): Record<string, unknown>[] {
  return paymentChannels(assetBase).map((m) => ({
    Code: m.Code,
    Description: m.Description,
    Channels: (m.Channels as Record<string, unknown>[]).map((c) => ({
      Code: c.Code,
      Description: c.Description,
      PaymentIntrucionsDoc: c.PaymentInstructionsDoc,
      TransactionFee: c.TransactionFee,
    })),
  }));
}

/** A history query after validation. */
export interface HistoryQuery {
  ids?: number[];
  status?: number;
  dateField: 'created_at' | 'indate';
  start?: string;
  end?: string;
  page: number;
  limit: number;
  orderBy: 'id' | 'created_at' | 'indate';
  order: 'ASC' | 'DESC';
  /** The record's `Type` (7 VA/bank transfer, 10 COD, 11 convenience store, …). */
  type?: number;
  /** `lockStatus`: 1 locked only, 0 unlocked only (the emulator locks no payment). */
  locked?: boolean;
  /** `lang`: `en` words `StatusDesc` in English. */
  lang?: 'id' | 'en';
}

/** `StatusDesc` in English (`lang=en`). */
const STATUS_DESC_EN: Record<string, string> = { '0': 'Pending', '1': 'Success', '6': 'Success (unsettled)', '-2': 'Expired', '2': 'Cancelled', '3': 'Refund', '4': 'Error', '5': 'Failed', '7': 'Escrow' };

export const HISTORY_MAX_LIMIT = 20;
export const HISTORY_DEFAULT_LIMIT = 10;

const present = (v: unknown) => v !== undefined && v !== null && v !== '';

function intOf(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  if (typeof v === 'string' && /^\s*-?\d+\s*$/.test(v)) return Number(v);
  return undefined;
}

/**
 * Validates a history body as the official clients send it: every field optional, `null` for absent
 * (the Go SDK sends every field), numbers as numbers or numeric strings (the docs' example sends
 * strings). `limit` above 20 is capped at 20.
 */
export function parseHistoryQuery(body: Record<string, unknown>): { ok: true; query: HistoryQuery } | { ok: false; errors: Record<string, string[]> } {
  const errors: Record<string, string[]> = {};
  const add = (f: string, m: string): void => {
    errors[f] = [...(errors[f] ?? []), m];
  };
  const q: HistoryQuery = { dateField: 'created_at', page: 1, limit: HISTORY_DEFAULT_LIMIT, orderBy: 'id', order: 'DESC' };
  if (present(body.status)) {
    const s = intOf(body.status);
    if (s === undefined || !(s in STATUS_DESC)) add('status', 'status tidak valid.');
    else q.status = s;
  }
  if (present(body.date)) {
    if (body.date !== 'created_at' && body.date !== 'indate') add('date', 'date harus created_at atau indate.');
    else q.dateField = body.date;
  }
  for (const [field, key] of [['startdate', 'start'], ['enddate', 'end']] as const) {
    if (!present(body[field])) continue;
    const v = body[field];
    if (typeof v !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(v) || Number.isNaN(Date.parse(v))) add(field, `${field} harus berformat Y-m-d.`);
    else q[key] = v;
  }
  if (present(body.page)) {
    const p = intOf(body.page);
    if (p === undefined || p < 1) add('page', 'page harus berupa angka lebih dari 0.');
    else q.page = p;
  }
  if (present(body.limit)) {
    const l = intOf(body.limit);
    if (l === undefined || l < 1) add('limit', 'limit harus berupa angka lebih dari 0.');
    else q.limit = Math.min(l, HISTORY_MAX_LIMIT);
  }
  if (present(body.orderBy)) {
    if (body.orderBy !== 'id' && body.orderBy !== 'created_at' && body.orderBy !== 'indate') add('orderBy', 'orderBy harus id, created_at atau indate.');
    else q.orderBy = body.orderBy;
  }
  if (present(body.order)) {
    const o = typeof body.order === 'string' ? body.order.toUpperCase() : '';
    if (o !== 'ASC' && o !== 'DESC') add('order', 'order harus ASC atau DESC.');
    else q.order = o;
  }
  if (present(body.type)) {
    const t = intOf(body.type);
    if (t === undefined || t < 0) add('type', 'type harus berupa angka.');
    else q.type = t;
  }
  if (present(body.lockStatus)) {
    const l = intOf(body.lockStatus);
    if (l !== 0 && l !== 1) add('lockStatus', 'lockStatus harus 0 atau 1.');
    else q.locked = l === 1;
  }
  if (present(body.lang)) {
    if (body.lang !== 'id' && body.lang !== 'en') add('lang', 'lang harus id atau en.');
    else q.lang = body.lang;
  }
  const ids: number[] = [];
  if (present(body.id)) {
    const id = intOf(body.id);
    if (id === undefined) add('id', 'id harus berupa angka.');
    else ids.push(id);
  }
  if (present(body.bulkId)) {
    const parts = String(body.bulkId).split(',').map((s) => s.trim()).filter(Boolean);
    if (parts.some((p) => intOf(p) === undefined)) add('bulkId', 'bulkId harus berupa daftar id dipisah koma.');
    else ids.push(...parts.map(Number));
  }
  if (ids.length > 0) q.ids = ids;
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return { ok: true, query: q };
}

/** One page of a merchant's history, in the shape real responses have (`Transaction` + `Pagination`). */
export function historyPage(txns: Iterable<Transaction>, va: string, merchantName: string, q: HistoryQuery, settlement: Settlement, now: number): Record<string, unknown> {
  const dateOf = (t: Transaction) => (q.dateField === 'indate' ? t.paidAt : t.createdAt);
  const day = (ms: number) => formatJakarta(new Date(ms)).slice(0, 10);
  const selected = [...txns].filter((t) => {
    if (t.merchantVa !== va) return false;
    if (q.ids && !q.ids.includes(t.id)) return false;
    if (q.status !== undefined && statusCode(t, settlement, now) !== q.status) return false;
    if (q.type !== undefined && (TYPE_BY_METHOD[t.via]?.[0] ?? 7) !== q.type) return false;
    if (q.locked === true) return false; // no payment is locked in the emulator
    if (q.start || q.end) {
      const at = dateOf(t);
      if (at === undefined) return false;
      if (q.start && day(at) < q.start) return false;
      if (q.end && day(at) > q.end) return false;
    }
    return true;
  });
  const key = (t: Transaction) => (q.orderBy === 'id' ? t.id : q.orderBy === 'created_at' ? t.createdAt : (t.paidAt ?? -Infinity));
  selected.sort((a, b) => (key(a) - key(b) || a.id - b.id) * (q.order === 'ASC' ? 1 : -1));
  const total = selected.length;
  const pages = Math.max(1, Math.ceil(total / q.limit));
  const rows = selected.slice((q.page - 1) * q.limit, q.page * q.limit).map((t) => {
    const r = transactionRecord(t, merchantName, settlement, now);
    if (q.lang === 'en') r.StatusDesc = STATUS_DESC_EN[String(r.Status)] ?? r.StatusDesc;
    return r;
  });
  return {
    Transaction: rows,
    Pagination: { total, count: rows.length, per_page: q.limit, current_page: q.page, total_pages: pages },
  };
}
