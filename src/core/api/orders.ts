import { CsvError, readCsvObjects } from '../csv.js';
import { UsageError } from '../errors.js';

/**
 * The merchant's own orders, as `reconcile` and `recover` read them: CSV with a header (paycli's
 * dialect, src/core/csv.ts), JSON lines, or one JSON array. Pure: reading the file is the caller's.
 */

/** What the merchant believes about an order. */
export type MerchantState = 'unpaid' | 'paid' | 'closed';

export interface Order {
  /** 1-based line in the orders file (the array index + 1 for a JSON array), for messages. */
  line: number;
  trxId?: number;
  referenceId?: string;
  state: MerchantState;
  /** The status text as the merchant wrote it. */
  status: string;
  /** The order's amount in Rupiah, when the file has one. */
  amount?: number;
}

const UNPAID = new Set(['', 'unpaid', 'pending', 'waiting', 'new', 'open', 'awaiting_payment', 'awaiting-payment', 'belum_bayar', 'menunggu', '0']);
const PAID = new Set(['paid', 'berhasil', 'success', 'settled', 'completed', 'complete', 'lunas', 'done', 'fulfilled', '1']);
const CLOSED = new Set(['expired', 'cancelled', 'canceled', 'failed', 'void', 'refunded', 'refund', 'batal', 'gagal', '-2']);

export function merchantState(status: string): MerchantState | undefined {
  const s = status.trim().toLowerCase();
  if (UNPAID.has(s)) return 'unpaid';
  if (PAID.has(s)) return 'paid';
  if (CLOSED.has(s)) return 'closed';
  return undefined;
}

const ID_KEYS = ['trx_id', 'trxid', 'transaction_id', 'transactionid', 'ipaymu_id', 'ipaymu_trx_id'];
const REF_KEYS = ['reference_id', 'referenceid', 'reference', 'ref', 'order_id', 'orderid', 'order'];
const STATUS_KEYS = ['status', 'merchant_status', 'local_status', 'state', 'payment_status'];
const AMOUNT_KEYS = ['amount', 'total', 'order_amount', 'order_total', 'price'];

function pick(row: Record<string, unknown>, keys: string[]): unknown {
  for (const [k, v] of Object.entries(row)) if (keys.includes(k.trim().toLowerCase().replace(/[\s-]/g, '_'))) return v;
  return undefined;
}

function objectRow(v: unknown, where: string): Record<string, unknown> {
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new UsageError(`${where}: not a JSON object`);
  return v as Record<string, unknown>;
}

function rowsOf(text: string, source: string): { line: number; row: Record<string, unknown> }[] {
  const body = text.replace(/^\uFEFF/, '');
  const first = body.trimStart()[0];
  if (first === '[') {
    let all: unknown;
    try {
      all = JSON.parse(body);
    } catch (err) {
      throw new UsageError(`${source}: not a JSON array (${(err as Error).message})`);
    }
    if (!Array.isArray(all)) throw new UsageError(`${source}: not a JSON array`);
    return all.map((v, i) => ({ line: i + 1, row: objectRow(v, `${source}: item ${i + 1}`) }));
  }
  if (first === '{') {
    const rows: { line: number; row: Record<string, unknown> }[] = [];
    body.split(/\r?\n/).forEach((l, i) => {
      if (!l.trim()) return;
      let v: unknown;
      try {
        v = JSON.parse(l);
      } catch (err) {
        throw new UsageError(`${source}:${i + 1}: not a JSON object (${(err as Error).message})`);
      }
      rows.push({ line: i + 1, row: objectRow(v, `${source}:${i + 1}`) });
    });
    return rows;
  }
  try {
    return readCsvObjects(body);
  } catch (err) {
    if (err instanceof CsvError) throw new UsageError(`${source}:${err.line}: ${err.message.replace(/^line \d+: /, '')}`);
    throw err;
  }
}

/**
 * Reads the merchant's orders. Each row needs a transaction id (`trx_id`, `transaction_id`, …) or
 * a reference id (`reference_id`, `ref`, `order_id`, …), and a `status` (unpaid/pending/…,
 * paid/berhasil/…, expired/cancelled/refunded/…); an `amount` is compared with the gateway's.
 */
export function readOrders(text: string, source: string): Order[] {
  return rowsOf(text, source).map(({ line, row }) => {
    const where = `${source}:${line}`;
    const text = (v: unknown) => (v === undefined || v === null ? '' : String(v).trim());
    const idText = text(pick(row, ID_KEYS));
    if (idText !== '' && !/^\d{1,15}$/.test(idText)) throw new UsageError(`${where}: transaction id "${idText}" is not a number`);
    const referenceId = text(pick(row, REF_KEYS)) || undefined;
    if (idText === '' && !referenceId) throw new UsageError(`${where}: needs a transaction id (trx_id) or a reference id (reference_id)`);
    const status = text(pick(row, STATUS_KEYS));
    const state = merchantState(status);
    if (!state) throw new UsageError(`${where}: unknown status "${status}" (unpaid, pending, paid, expired, cancelled, refunded, …)`);
    const amountText = text(pick(row, AMOUNT_KEYS)).replace(/^rp\.?\s*/i, '');
    if (amountText !== '' && !/^\d{1,15}(\.0+)?$/.test(amountText)) throw new UsageError(`${where}: amount "${amountText}" is not a whole number of Rupiah`);
    const order: Order = { line, trxId: idText === '' ? undefined : Number(idText), referenceId, state, status };
    if (amountText !== '') order.amount = Number(amountText);
    return order;
  });
}
