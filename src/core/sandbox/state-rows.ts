import type { Member, PickupRequest, Transfer } from './records.js';
import type { Cursor, Delivery, DeliveryState, PageSnapshot, Transaction, TxnFilter, TxnOrder, TxnStatus } from './state-types.js';

// The ledger's rows and the records they map to (Transaction, Delivery, PickupRequest, Transfer, Member).

/** The order keys of an offset page (the gateway's paging): a pending payment's paid time is -1 (the expression of index txns_paid_order). */
export const ORDER_COLUMN = { id: 'id', created: 'created_at', paid: 'coalesce(paid_at, -1)' } as const;

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

/** A condition of a WHERE clause with its parameters. */
export interface Term {
  sql: string;
  params: (string | number)[];
}

/** The WHERE clause of a filter, and of more terms (a page's segment and cursor). */
export function whereOf(f: TxnFilter, more: Term[] = []): { where: string; params: (string | number)[] } {
  const terms: string[] = [];
  const params: (string | number)[] = [];
  const add = (term: string, ...values: (string | number)[]) => {
    terms.push(term);
    params.push(...values);
  };
  if (f.merchantVa !== undefined) add('merchant_va = ?', f.merchantVa);
  if (f.ids) add(`id IN (${f.ids.map(() => '?').join(',') || 'NULL'})`, ...f.ids);
  // Paid after an instant is a short range of the paid-time index: keep the planner on it.
  if (f.status !== undefined) add(f.paidAfter !== undefined && !f.range ? '+status = ?' : 'status = ?', f.status);
  if (f.via !== undefined) add('via = ?', f.via);
  if (f.vias !== undefined) add(`via IN (${f.vias.map(() => '?').join(',') || 'NULL'})`, ...f.vias);
  if (f.paidAtMost !== undefined) add('paid_at <= ?', f.paidAtMost);
  if (f.paidAfter !== undefined) add('paid_at > ?', f.paidAfter);
  const col = f.range?.field === 'paid' ? 'paid_at' : 'created_at';
  if (f.range?.from !== undefined) add(`${col} >= ?`, f.range.from);
  if (f.range?.to !== undefined) add(`${col} < ?`, f.range.to);
  for (const t of more) add(t.sql, ...t.params);
  return { where: terms.length ? `WHERE ${terms.join(' AND ')}` : '', params };
}

/**
 * One run of a walk of pages: the rows it holds (`term`), their order (an index's), and the order
 * key a row of it has in the walk (the cursor's `key`). A walk reads a segment from its start, or
 * after the cursor's row when the cursor ends in it.
 */
export interface Segment {
  term: Term;
  orderBy: string;
  /** The walk's key of a row of this segment (-1 for every row of the unpaid segment). */
  keyOf: (t: Transaction) => number;
  /** Where a read of the segment from its beginning starts. */
  start: Term;
  /** The rows after the one with `key`, `id`. */
  after: (key: number, id: number) => Term;
  /** Does a cursor with this key end in this segment? */
  holds: (key: number) => boolean;
}

const ALL: Term = { sql: '1', params: [] };

/**
 * The segments a walk of pages reads, in order, as the ledger stood when it began (`snap`): rows
 * created since (an id above `maxId`) are not in it, and the paid-time order puts a row by the paid
 * time it had then. Paid then: a paid time and a payment number (`paid_seq`) up to `snap.paidSeq`
 * (none: stored paid). The keys of id and created time never change; the paid time is set once,
 * when a payment is first paid, so a row paid during the walk is of the unpaid segment throughout:
 * no row moves across the cursor, none is skipped or listed twice.
 */
export function pageSegments(order: TxnOrder, snap: PageSnapshot): Segment[] {
  const dir = order.desc ? 'DESC' : 'ASC';
  const op = order.desc ? '<' : '>';
  const upTo: Term = { sql: 'id <= ?', params: [snap.maxId] };
  // In id order the bound on ids is one range: SQLite searches the rowid by one upper bound only.
  const byId = (keyOf: (t: Transaction) => number, term: Term, holds: (key: number) => boolean): Segment => ({
    term,
    orderBy: `id ${dir}`,
    keyOf,
    start: upTo,
    after: (_key, id) => (order.desc ? { sql: 'id < ?', params: [Math.min(id, snap.maxId + 1)] } : { sql: 'id > ? AND id <= ?', params: [id, snap.maxId] }),
    holds,
  });
  if (order.by === 'id')
    return [
      byId(
        (t) => t.id,
        ALL,
        () => true,
      ),
    ];
  if (order.by === 'created')
    return [
      {
        term: upTo,
        orderBy: `created_at ${dir}, id ${dir}`,
        keyOf: (t) => t.createdAt,
        start: ALL,
        after: (key, id) => ({ sql: `(created_at, id) ${op} (?, ?)`, params: [key, id] }),
        holds: () => true,
      },
    ];
  // `+id`: the bound on ids is no key of an index here, so a status keeps SQLite on txns_status_paid, in paid-time
  // order, not on txns_status (status, then id), which read and sorted every row of the status for each page.
  const paid: Segment = {
    term: { sql: `+id <= ? AND paid_at IS NOT NULL AND coalesce(paid_seq, 0) <= ?`, params: [snap.maxId, snap.paidSeq] },
    orderBy: `paid_at ${dir}, id ${dir}`,
    keyOf: (t) => t.paidAt!,
    start: ALL,
    after: (key, id) => ({ sql: `(paid_at, id) ${op} (?, ?)`, params: [key, id] }),
    holds: (key) => key >= 0,
  };
  const unpaid = byId(
    () => -1,
    { sql: '(paid_at IS NULL OR paid_seq > ?)', params: [snap.paidSeq] },
    (key) => key < 0,
  );
  // As the gateway's order by coalesce(paid_at, -1): the unpaid (-1) last when descending, first when ascending.
  return order.desc ? [paid, unpaid] : [unpaid, paid];
}

/** The key of a row in an order, as the ledger stands (an offset page's, whose snapshot is taken with it). */
export function keyAsItStands(order: TxnOrder): (t: Transaction) => number {
  return order.by === 'id' ? (t) => t.id : order.by === 'created' ? (t) => t.createdAt : (t) => t.paidAt ?? -1;
}

/** The segments a walk reads with their bounds: from the start, or after a cursor (the one it ends in, after its row, then those that follow). */
export function segmentsAfter(segments: Segment[], cursor?: Cursor): { segment: Segment; from: Term }[] {
  const at = cursor ? segments.findIndex((s) => s.holds(cursor.key)) : 0;
  if (at < 0) return [];
  return segments.slice(at).map((segment, i) => ({ segment, from: i === 0 && cursor ? segment.after(cursor.key, cursor.id) : segment.start }));
}
