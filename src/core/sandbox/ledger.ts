import { CHANNEL_NAMES, PAYMENT_METHODS } from '../payment-rules.js';
import { formatJakarta } from '../time.js';
import type { SandboxLedger, Transaction, TxnFilter, TxnOrder } from './state.js';
import { encodeCursor, STATUS_DESC, STATUS_DESC_EN, type HistoryQuery } from './history-query.js';
import { STATUSES, statusInfo } from '../statuses.js';
import { chargeOfTxn } from './views.js';
import { instructionsPath, logoPath } from './channel-assets.js';
import { FEE_MODEL } from '../fees.js';

/**
 * The emulator's one ledger, read-only: what check transaction, history, balance and the channel list
 * answer, all derived from the same transactions (queried from the store, state.ts) and the clock.
 */

export type Settlement = 'immediate' | 'deferred';

/** Check-transaction status code of a transaction: its status's code (statuses.ts). */
export function statusCode(t: Transaction, _settlement?: Settlement, _now?: number): number {
  return statusInfo(t.status).code;
}

/** When a paid transaction was settled (status 1), if it was. */
export function settledAt(t: Transaction, _settlement?: Settlement): number | undefined {
  return t.status === 'berhasil' ? (t.settledAt ?? t.paidAt) : undefined;
}

/**
 * Transaction types per method (gateway docs and the Go SDK's constants): 7 VA and bank transfer,
 * 10 COD, 11 convenience store, 22 Akulaku, 27 QRIS payment. No source gives one for cards or
 * e-wallets; the emulator files them under 7 with their own description.
 */
export const TYPE_BY_METHOD: Record<string, [number, string]> = {
  va: [7, 'VA & Bank Transfer'],
  cstore: [11, 'Convenience Store'],
  cod: [10, 'COD'],
  qris: [27, 'QRIS Payment'],
  paylater: [22, 'Akulaku'],
  cc: [7, 'Credit Card'],
  ewallet: [7, 'E-Wallet'],
};

const jkt = (ms: number | undefined) => (ms === undefined ? null : formatJakarta(new Date(ms)));

/** The record of one transaction as check transaction and history answer it (documented fields, plus paycli's). */
export function transactionRecord(t: Transaction, merchantName: string, settlement: Settlement, now: number): Record<string, unknown> {
  const info = statusInfo(t.status);
  const code = info.code;
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
    PaidStatus: info.paid ? 'paid' : 'unpaid',
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
    PaidOff: info.paid ? money.paidOff : 0,
    FeeDirection: t.feeDirection ?? 'MERCHANT',
    Via: t.via,
    Channel: t.channel,
    PaymentNo: t.paymentNo,
    IsEscrow: t.escrow === true,
  };
}

/** The store filter of a check-transaction status code (statuses.ts); null for a code no status has. */
function statusFilter(code: number): TxnFilter | null {
  const s = STATUSES.find((x) => x.code === code);
  return s ? { status: s.key } : null;
}

/**
 * Balance of a merchant, by the status table: settled net amounts are available, paid-unsettled
 * ones (6) are not yet, escrow (7) is held until released, a refund is taken back (counts nowhere).
 */
export function balanceOf(
  state: SandboxLedger,
  va: string,
  _settlement?: Settlement,
  _now?: number,
): { settled: number; unsettled: number; escrow: number; paidCount: number } {
  const sums = { available: 0, unsettled: 0, escrow: 0, none: 0 };
  let paidCount = 0;
  for (const info of STATUSES) {
    if (info.balance === 'none' && !info.paid) continue;
    const a = state.aggregate({ merchantVa: va, status: info.key });
    if (info.paid) paidCount += a.count;
    sums[info.balance] += a.net;
  }
  return { settled: sums.available, unsettled: sums.unsettled, escrow: sums.escrow, paidCount };
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
export function historyPage(
  state: SandboxLedger,
  va: string,
  merchantName: string,
  q: HistoryQuery,
  settlement: Settlement,
  now: number,
): Record<string, unknown> {
  let f: TxnFilter | null = { merchantVa: va, ...(q.ids ? { ids: q.ids } : {}) };
  // A record's Type is its method's (TYPE_BY_METHOD); no payment is locked in the emulator.
  if (q.type !== undefined) f.vias = state.methods().filter((via) => (TYPE_BY_METHOD[via]?.[0] ?? 7) === q.type);
  if (q.locked === true) f = null;
  if (f && q.status !== undefined) {
    const s = statusFilter(q.status);
    f = s && { ...f, ...s };
  }
  if (f && (q.start || q.end)) {
    f.range = {
      field: q.dateField === 'indate' ? 'paid' : 'created',
      from: q.start ? jakartaDayStart(q.start) : undefined,
      to: q.end ? jakartaDayStart(q.end) + DAY_MS : undefined,
    };
  }
  const order: TxnOrder = { by: q.orderBy === 'id' ? 'id' : q.orderBy === 'created_at' ? 'created' : 'paid', desc: q.order === 'DESC' };
  const total = f ? state.count(f) : 0;
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
