import { UsageError } from '../errors.js';
import { encodeJson, REQUEST_BODY } from '../signing/php-json.js';
import { parseStatus, STATUS_CHOICES, STATUSES, statusLabel } from '../statuses.js';
import { invalidVa, isVaNumber } from '../va.js';

export { checkBalanceData, checkChannelsData, checkHistoryData, checkTransactionData } from './answer-checks.js';

/**
 * The merchant API beyond payments (check transaction, history, balance, channel lists): paths,
 * request bodies, and readers that accept every response shape the sources show (docs examples and
 * real responses disagree; docs/merchant-api.md records which is which).
 */
export const TRANSACTION_PATH = 'v2/transaction';
export const HISTORY_PATH = 'v2/history';
export const BALANCE_PATH = 'v2/balance';
export const CHANNELS_PATH = 'v2/payment-channels';
export const METHOD_LIST_PATH = 'v2/payment-method-list';

/** Check-transaction status codes and their one label (statuses.ts: the gateway's word and its gloss). */
export const STATUS_WORDS: Record<string, string> = Object.fromEntries(STATUSES.map((s) => [String(s.code), statusLabel(s)]));

/** A status filter: a word (`berhasil`, `paid`, `pending`, `batal`, …) or a code (`1`, `-2`, …). */
export function parseStatusFilter(text: string): number {
  const s = parseStatus(text);
  if (!s) throw new UsageError(`invalid --status "${text}" (${STATUS_CHOICES})`);
  return s.code;
}

/** Final states end `transaction --wait`: paid (1, 6, 7), expired, cancelled, refund, error, failed. */
export function isFinalStatus(code: number): boolean {
  return code !== 0;
}

export function isPaidStatus(code: number, paidStatus?: unknown): boolean {
  return paidStatus === 'paid' || code === 1 || code === 6 || code === 7;
}

/** A child VA for `--account` (the gateway's `account`: a merchant's child account). */
export function checkAccount(va: string | undefined): string | undefined {
  if (va !== undefined && !isVaNumber(va)) throw invalidVa('--account');
  return va;
}

/** The transaction id as the Go SDK sends it: a JSON number, then `account` (a child VA) when given. */
export function encodeTransactionBody(id: string, account?: string): string {
  if (!/^\d{1,15}$/.test(id)) throw new UsageError(`invalid transaction id "${id}" (digits, as in TransactionId)`);
  return encodeJson(account === undefined ? { transactionId: Number(id) } : { transactionId: Number(id), account: checkAccount(account) }, REQUEST_BODY);
}

export function encodeBalanceBody(va: string): string {
  return encodeJson({ account: va }, REQUEST_BODY);
}

export interface HistoryRequest {
  status?: number;
  from?: string;
  to?: string;
  dateField?: 'created_at' | 'indate';
  page?: number;
  limit?: number;
  order?: 'ASC' | 'DESC';
  /** The record `Type` (0 mutation, 7 VA/bank transfer, 10 COD, 11 convenience store, …). */
  type?: number;
  /** Only these transaction ids (`bulkId`). */
  ids?: number[];
  /** `lockStatus`: only locked (true) or unlocked (false) transactions. */
  locked?: boolean;
  orderBy?: 'id' | 'created_at' | 'indate';
  lang?: 'id' | 'en';
  /** A child VA. */
  account?: string;
  /** paycli's emulator: the page after the one whose `Pagination.next_cursor` this is (stable under change). */
  cursor?: string;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Checks a `YYYY-MM-DD` flag value. */
export function checkDate(text: string, flag: string): string {
  if (!DATE.test(text) || Number.isNaN(Date.parse(text + 'T00:00:00Z')) || new Date(text + 'T00:00:00Z').toISOString().slice(0, 10) !== text) {
    throw new UsageError(`invalid ${flag} "${text}" (a date: YYYY-MM-DD)`);
  }
  return text;
}

/** The history body with the documented field names (`startdate`, `enddate`, `orderBy`, …). */
export function encodeHistoryBody(r: HistoryRequest): string {
  const body: Record<string, unknown> = {};
  if (r.status !== undefined) body.status = r.status;
  if (r.dateField && (r.from || r.to)) body.date = r.dateField;
  if (r.from) body.startdate = r.from;
  if (r.to) body.enddate = r.to;
  body.page = r.page ?? 1;
  body.limit = r.limit ?? 20;
  body.orderBy = r.orderBy ?? 'id';
  body.order = r.order ?? 'DESC';
  // The collection's names for the rest (History Transaction): type, bulkId, lockStatus, lang, account.
  if (r.type !== undefined) body.type = r.type;
  if (r.ids !== undefined) body.bulkId = r.ids.join(',');
  if (r.locked !== undefined) body.lockStatus = r.locked ? 1 : 0;
  if (r.lang !== undefined) body.lang = r.lang;
  if (r.account !== undefined) body.account = checkAccount(r.account);
  if (r.cursor !== undefined) body.cursor = r.cursor;
  return encodeJson(body, REQUEST_BODY);
}

/** One transaction as check transaction or history answers it. */
export type TransactionRecord = Record<string, unknown> & { TransactionId: number; Status: number };

export interface HistoryPage {
  transactions: TransactionRecord[];
  page: number;
  totalPages: number;
  total: number;
  perPage: number;
  /** Where the next page starts, when the server pages by a stable key (paycli's emulator: `Pagination.next_cursor`). */
  nextCursor?: string;
}

const num = (v: unknown, fallback = 0): number => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isFinite(n) ? n : fallback;
};

function record(v: unknown): TransactionRecord {
  const r = (v && typeof v === 'object' ? v : {}) as Record<string, unknown>;
  return { ...r, TransactionId: num(r.TransactionId), Status: num(r.Status) };
}

/**
 * Reads a history `Data` in either shape: real responses (`Transaction[]` + `Pagination{total, count,
 * per_page, current_page, total_pages}`, as the Go SDK decodes) or the docs' example (`Results[]`,
 * `Total`, `Per_Page`, `Current_Page`, `Total_Page`).
 */
export function readHistory(data: unknown): HistoryPage {
  const d = (data && typeof data === 'object' ? data : {}) as Record<string, unknown>;
  if (Array.isArray(d.Transaction) || d.Pagination) {
    const p = (d.Pagination ?? {}) as Record<string, unknown>;
    const rows = Array.isArray(d.Transaction) ? d.Transaction.map(record) : [];
    const next = typeof p.next_cursor === 'string' && p.next_cursor !== '' ? { nextCursor: p.next_cursor } : {};
    return {
      transactions: rows,
      page: num(p.current_page, 1),
      totalPages: num(p.total_pages, 1),
      total: num(p.total, rows.length),
      perPage: num(p.per_page, rows.length),
      ...next,
    };
  }
  const rows = Array.isArray(d.Results) ? d.Results.map(record) : Array.isArray(data) ? (data as unknown[]).map(record) : [];
  return {
    transactions: rows,
    page: num(d.Current_Page, 1),
    totalPages: num(d.Total_Page, 1),
    total: num(d.Total, rows.length),
    perPage: num(d.Per_Page, rows.length),
  };
}

export interface Balance {
  va: string;
  /** Available (settled) balance. */
  merchantBalance: number;
  memberBalance: number;
  /** Paid but not yet settled, when the gateway reports it (the emulator does). */
  unsettledBalance?: number;
  /** Held in escrow until released (paycli's emulator: `EscrowBalance`). */
  escrowBalance?: number;
}

/** Reads a balance `Data`: numbers or numeric strings (the docs' example uses strings, the Go SDK numbers). */
export function readBalance(data: unknown): Balance {
  const d = (data && typeof data === 'object' ? data : {}) as Record<string, unknown>;
  return {
    va: String(d.Va ?? d.VA ?? ''),
    merchantBalance: num(d.MerchantBalance),
    memberBalance: num(d.MemberBalance),
    ...(d.UnsettledBalance !== undefined ? { unsettledBalance: num(d.UnsettledBalance) } : {}),
    ...(d.EscrowBalance !== undefined ? { escrowBalance: num(d.EscrowBalance) } : {}),
  };
}

export interface ChannelInfo {
  method: string;
  methodName: string;
  channel: string;
  name: string;
  feeType: string;
  fee: number;
  additionalFee: number;
  /** A floor on a percentage fee (the emulator's `MinimumFee` for COD), when stated. */
  minimumFee?: number;
  status: string;
  health: string;
  instructions?: string;
}

/** Reads either channel list (`payment-channels` or the older `payment-method-list`) into rows. */
export function readChannels(data: unknown): ChannelInfo[] {
  const methods = Array.isArray(data) ? data : [];
  const rows: ChannelInfo[] = [];
  for (const m of methods as Record<string, unknown>[]) {
    const channels = (Array.isArray(m.Channels) ? m.Channels : Array.isArray(m.PaymentMethod) ? m.PaymentMethod : []) as Record<string, unknown>[];
    for (const c of channels) {
      const fee = (c.TransactionFee ?? {}) as Record<string, unknown>;
      rows.push({
        method: String(m.Code ?? ''),
        methodName: String(m.Name ?? m.Description ?? m.Code ?? ''),
        channel: String(c.Code ?? ''),
        name: String(c.Name ?? c.Description ?? c.Code ?? ''),
        feeType: String(fee.ActualFeeType ?? ''),
        fee: num(fee.ActualFee),
        additionalFee: num(fee.AdditionalFee),
        ...(fee.MinimumFee !== undefined ? { minimumFee: num(fee.MinimumFee) } : {}),
        status: String(c.FeatureStatus ?? 'active'),
        health: String(c.HealthStatus ?? 'online'),
        instructions:
          typeof (c.PaymentInstructionsDoc ?? c.PaymentIntrucionsDoc) === 'string' ? String(c.PaymentInstructionsDoc ?? c.PaymentIntrucionsDoc) : undefined,
      });
    }
  }
  return rows;
}

/** A fee as people read it: `Rp 4.000`, `0.7%`, `2.9% + Rp 2.000`. */
export function describeFee(c: ChannelInfo, rupiah: (n: number) => string): string {
  if (c.feeType.toUpperCase() === 'PERCENT')
    return `${c.fee}%${c.additionalFee ? ` + ${rupiah(c.additionalFee)}` : ''}${c.minimumFee ? ` (min ${rupiah(c.minimumFee)})` : ''}`;
  return rupiah(c.fee) + (c.additionalFee ? ` + ${rupiah(c.additionalFee)}` : '');
}

/**
 * The columns of `history --csv`, in order: the record's own fields, with `Total` and `PaidOff`
 * derived where the gateway leaves them out (total = Amount; paid off = Amount − Fee once paid).
 */
export const HISTORY_CSV_COLUMNS = [
  'TransactionId',
  'ReferenceId',
  'Status',
  'StatusDesc',
  'PaidStatus',
  'Amount',
  'Fee',
  'Total',
  'PaidOff',
  'Type',
  'TypeDesc',
  'PaymentChannel',
  'PaymentCode',
  'CreatedDate',
  'SuccessDate',
  'ExpiredDate',
  'SettlementDate',
  'BuyerName',
  'BuyerPhone',
  'BuyerEmail',
] as const;

export function historyCsvCells(r: TransactionRecord): unknown[] {
  const amount = Number(r.Amount ?? 0);
  const derived: Record<string, unknown> = {
    Total: r.Total ?? r.Amount,
    PaidOff: r.PaidOff ?? (isPaidStatus(r.Status, r.PaidStatus) ? amount - Number(r.Fee ?? 0) : 0),
  };
  return HISTORY_CSV_COLUMNS.map((k) => (k in derived ? derived[k] : r[k]));
}
