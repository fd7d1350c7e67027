import { CHANNEL_NAMES, PAYMENT_METHODS } from '../payment-rules.js';
import { formatJakarta } from '../time.js';
import type { Cursor, SandboxState, Transaction, TxnFilter, TxnOrder } from './state.js';
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
  /** paycli's extension: the page after this one (`Pagination.next_cursor` of the previous page). */
  cursor?: Cursor;
}

/** A page's cursor as it travels in JSON (`KEY:ID`). */
export function encodeCursor(c: Cursor): string {
  return `${c.key}:${c.id}`;
}

export function decodeCursor(s: unknown): Cursor | undefined {
  const m = typeof s === 'string' ? /^(-?\d{1,16}):(\d{1,16})$/.exec(s) : null;
  return m ? { key: Number(m[1]), id: Number(m[2]) } : undefined;
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
  if (present(body.cursor)) {
    const c = decodeCursor(body.cursor);
    if (!c) add('cursor', 'cursor tidak valid.');
    else q.cursor = c;
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return { ok: true, query: q };
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
