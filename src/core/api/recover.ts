import { buildCallbackFields } from '../callback/build.js';
import { UsageError } from '../errors.js';
import type { TransactionRecord } from './merchant.js';
import { isPaidStatus } from './merchant.js';
import { parseWib } from '../time.js';
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

/** What the merchant believes about an order. */
export type MerchantState = 'unpaid' | 'paid' | 'closed';

export interface Order {
  /** 1-based line in the orders file, for messages. */
  line: number;
  trxId?: number;
  referenceId?: string;
  state: MerchantState;
  /** The status text as the merchant wrote it. */
  status: string;
}

const UNPAID = new Set(['', 'unpaid', 'pending', 'waiting', 'new', 'open', 'awaiting_payment', 'awaiting-payment', 'belum_bayar', 'menunggu', '0']);
const PAID = new Set(['paid', 'berhasil', 'success', 'settled', 'completed', 'complete', 'lunas', 'done', '1']);
const CLOSED = new Set(['expired', 'cancelled', 'canceled', 'failed', 'void', 'refunded', 'refund', '-2']);

export function merchantState(status: string): MerchantState | undefined {
  const s = status.trim().toLowerCase();
  if (UNPAID.has(s)) return 'unpaid';
  if (PAID.has(s)) return 'paid';
  if (CLOSED.has(s)) return 'closed';
  return undefined;
}

const ID_KEYS = ['trx_id', 'trxid', 'transaction_id', 'transactionid', 'ipaymu_id', 'ipaymu_trx_id'];
const REF_KEYS = ['reference_id', 'referenceid', 'reference', 'ref', 'order_id', 'orderid', 'order'];
const STATUS_KEYS = ['status', 'merchant_status', 'state', 'payment_status'];

function pick(row: Record<string, unknown>, keys: string[]): unknown {
  for (const [k, v] of Object.entries(row)) if (keys.includes(k.trim().toLowerCase().replace(/[\s-]/g, '_'))) return v;
  return undefined;
}

function splitCsvLine(line: string): string[] {
  const cells: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') {
        cur += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cur += ch;
    } else if (ch === '"' && cur === '') quoted = true;
    else if (ch === ',' || ch === ';') {
      cells.push(cur);
      cur = '';
    } else cur += ch;
  }
  cells.push(cur);
  return cells.map((c) => c.trim());
}

/**
 * Reads the merchant's orders: JSON lines (one object per line) or CSV with a header line. Each row
 * needs a transaction id (`trx_id`, `transaction_id`, …) or a reference id (`reference_id`, `ref`,
 * `order_id`, …), and a `status` (unpaid/pending/…, paid/berhasil/…, expired/cancelled/…).
 */
export function parseOrders(text: string, source: string): Order[] {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const first = lines.find((l) => l.trim() !== '')?.trim() ?? '';
  const rows: { line: number; row: Record<string, unknown> }[] = [];
  if (first.startsWith('{')) {
    lines.forEach((l, i) => {
      if (!l.trim()) return;
      try {
        const v = JSON.parse(l) as unknown;
        if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error('not an object');
        rows.push({ line: i + 1, row: v as Record<string, unknown> });
      } catch (err) {
        throw new UsageError(`${source}:${i + 1}: not a JSON object (${(err as Error).message})`);
      }
    });
  } else {
    const headerIndex = lines.findIndex((l) => l.trim() !== '');
    if (headerIndex < 0) return [];
    const header = splitCsvLine(lines[headerIndex]!);
    for (let i = headerIndex + 1; i < lines.length; i++) {
      if (!lines[i]!.trim()) continue;
      const cells = splitCsvLine(lines[i]!);
      rows.push({ line: i + 1, row: Object.fromEntries(header.map((h, j) => [h, cells[j] ?? ''])) });
    }
  }
  return rows.map(({ line, row }) => {
    const idRaw = pick(row, ID_KEYS);
    const refRaw = pick(row, REF_KEYS);
    const statusRaw = pick(row, STATUS_KEYS);
    const idText = idRaw === undefined || idRaw === null ? '' : String(idRaw).trim();
    if (idText !== '' && !/^\d{1,15}$/.test(idText)) throw new UsageError(`${source}:${line}: transaction id "${idText}" is not a number`);
    const referenceId = refRaw === undefined || refRaw === null || String(refRaw).trim() === '' ? undefined : String(refRaw).trim();
    if (idText === '' && !referenceId) throw new UsageError(`${source}:${line}: needs a transaction id (trx_id) or a reference id (reference_id)`);
    const status = statusRaw === undefined || statusRaw === null ? '' : String(statusRaw);
    const state = merchantState(status);
    if (!state) throw new UsageError(`${source}:${line}: unknown status "${status}" (unpaid, pending, paid, expired, cancelled, …)`);
    return { line, trxId: idText === '' ? undefined : Number(idText), referenceId, state, status };
  });
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
  if (outcome !== 'berhasil' && outcome !== 'expired') throw new UsageError(`transaction ${r.TransactionId} is ${outcome}: only paid and expired transactions have a callback to rebuild`);
  const str = (v: unknown) => (v === null || v === undefined ? '' : String(v));
  const channel = str(r.Channel ?? r.PaymentChannel).toLowerCase();
  const via = str(r.Via).toLowerCase() || VIA_BY_TYPE[Number(r.Type)] || (channel === 'mpm' || channel === 'qris' ? 'qris' : 'va');
  const created = parseWib(r.CreatedDate);
  const expired = parseWib(r.ExpiredDate);
  const money = chargeFromRecord(r);
  if (!created || !expired) throw new UsageError(`transaction ${r.TransactionId}: the gateway's record has no CreatedDate/ExpiredDate to rebuild the callback from`);
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
