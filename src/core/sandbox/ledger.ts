import { CHANNEL_NAMES, PAYMENT_METHODS } from '../payment-rules.js';
import { formatJakarta } from '../time.js';
import type { SandboxState, Transaction, TxnFilter, TxnOrder } from './state.js';
import { encodeCursor, STATUS_DESC, STATUS_DESC_EN, type HistoryQuery } from './history-query.js';
import { chargeOfTxn } from './views.js';
import { instructionsPath, logoPath } from './channel-assets.js';
import { FEE_MODEL } from '../fees.js';

/**
 * The emulator's one ledger, read-only: what check transaction, history, balance and the channel list
 * answer, all derived from the same transactions (queried from the store, state.ts) and the clock.
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

/** When a paid transaction settles at `now` or before: paid at or before this instant. */
function settledBy(settlement: Settlement, now: number): number {
  return settlement === 'deferred' ? now - DEFERRED_SETTLEMENT_MS : now;
}

/** The store filter of a check-transaction status code; null for a code no emulated transaction has. */
function statusFilter(code: number, settlement: Settlement, now: number): TxnFilter | null {
  switch (code) {
    case 0:
      return { status: 'pending' };
    case -2:
      return { status: 'expired' };
    case 1:
      return { status: 'berhasil', paidAtMost: settledBy(settlement, now) };
    case 6:
      return { status: 'berhasil', paidAfter: settledBy(settlement, now) };
    default:
      return null;
  }
}

/**
 * How many transactions match. "Settled by now" is nearly every paid one: it
 * is counted as all paid ones (kept by the store without a scan) less the few paid after the
 * boundary (an index range), so a count never walks the whole history.
 */
function countOf(state: SandboxState, f: TxnFilter): number {
  if (f.paidAtMost === undefined || f.range || f.ids || f.paidAfter !== undefined) return state.count(f);
  const { paidAtMost, ...rest } = f;
  return state.count(rest) - state.count({ ...rest, paidAfter: paidAtMost });
}

/** Balance of a merchant: settled net amounts, and paid amounts not yet settled. */
export function balanceOf(state: SandboxState, va: string, settlement: Settlement, now: number): { settled: number; unsettled: number; paidCount: number } {
  const paid = state.aggregate({ merchantVa: va, status: 'berhasil' });
  const unsettled = state.aggregate({ merchantVa: va, status: 'berhasil', paidAfter: settledBy(settlement, now) });
  return { settled: paid.net - unsettled.net, unsettled: unsettled.net, paidCount: paid.count };
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

const DAY_MS = 86_400_000;
/** The first instant of a day in Jakarta (WIB, UTC+7, no daylight saving). */
const jakartaDayStart = (day: string) => Date.parse(`${day}T00:00:00+07:00`);

/**
 * One page of a merchant's history, in the shape real responses have (`Transaction` + `Pagination`).
 * Pages are numbered as the gateway numbers them; `Pagination.next_cursor` (paycli's) names the next
 * page by its first row's key, for readers that must not skip or repeat rows while statuses change.
 */
export function historyPage(state: SandboxState, va: string, merchantName: string, q: HistoryQuery, settlement: Settlement, now: number): Record<string, unknown> {
  let f: TxnFilter | null = { merchantVa: va, ...(q.ids ? { ids: q.ids } : {}) };
  // A record's Type is its method's (TYPE_BY_METHOD); no payment is locked in the emulator.
  if (q.type !== undefined) f.vias = state.methods().filter((via) => (TYPE_BY_METHOD[via]?.[0] ?? 7) === q.type);
  if (q.locked === true) f = null;
  if (f && q.status !== undefined) {
    const s = statusFilter(q.status, settlement, now);
    f = s && { ...f, ...s };
  }
  if (f && (q.start || q.end)) {
    f.range = { field: q.dateField === 'indate' ? 'paid' : 'created', from: q.start ? jakartaDayStart(q.start) : undefined, to: q.end ? jakartaDayStart(q.end) + DAY_MS : undefined };
  }
  const order: TxnOrder = { by: q.orderBy === 'id' ? 'id' : q.orderBy === 'created_at' ? 'created' : 'paid', desc: q.order === 'DESC' };
  const total = f ? countOf(state, f) : 0;
  const { rows, next } = f ? state.page(f, order, q.limit, q.cursor ? { cursor: q.cursor } : { offset: (q.page - 1) * q.limit }) : { rows: [], next: null };
  const pages = Math.max(1, Math.ceil(total / q.limit));
  return {
    Transaction: rows.map((t) => {
      const r = transactionRecord(t, merchantName, settlement, now);
      if (q.lang === 'en') r.StatusDesc = STATUS_DESC_EN[String(r.Status)] ?? r.StatusDesc;
      return r;
    }),
    Pagination: { total, count: rows.length, per_page: q.limit, current_page: q.page, total_pages: pages, next_cursor: next ? encodeCursor(next) : null },
  };
}
