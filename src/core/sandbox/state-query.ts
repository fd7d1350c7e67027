import type { Cursor, PageSnapshot, Transaction, TxnFilter, TxnOrder } from './state-types.js';

// The ledger's queries of transactions: the WHERE clause of a filter, and the segments a walk of pages reads.

/** The order keys of an offset page (the gateway's paging): a pending payment's paid time is -1 (the expression of index txns_paid_order). */
export const ORDER_COLUMN = { id: 'id', created: 'created_at', paid: 'coalesce(paid_at, -1)' } as const;

/** A condition of a WHERE clause with its parameters. */
export interface Term {
  sql: string;
  params: (string | number)[];
}

/** Columns whose terms a query keeps off the indexes (a unary `+`), where SQLite would pick a worse one (the caller knows the sizes). */
export type PlainColumn = 'merchant_va' | 'status' | 'via' | 'created_at' | 'paid_at';

/** The WHERE clause of a filter, and of more terms (a page's segment and cursor); `plain`: columns whose terms use no index. */
export function whereOf(f: TxnFilter, more: Term[] = [], plain: PlainColumn[] = []): { where: string; params: (string | number)[] } {
  const terms: string[] = [];
  const params: (string | number)[] = [];
  const add = (term: string, ...values: (string | number)[]) => {
    terms.push(term);
    params.push(...values);
  };
  const c = (column: string) => (plain.includes(column as PlainColumn) ? `+${column}` : column);
  if (f.merchantVa !== undefined) add(`${c('merchant_va')} = ?`, f.merchantVa);
  if (f.ids) add(`id IN (${f.ids.map(() => '?').join(',') || 'NULL'})`, ...f.ids);
  // Paid after an instant is a short range of the paid-time index: keep the planner on it.
  if (f.status !== undefined) add(f.paidAfter !== undefined && !f.range ? '+status = ?' : `${c('status')} = ?`, f.status);
  if (f.via !== undefined) add(`${c('via')} = ?`, f.via);
  if (f.vias !== undefined) add(`${c('via')} IN (${f.vias.map(() => '?').join(',') || 'NULL'})`, ...f.vias);
  if (f.paidAtMost !== undefined) add('paid_at <= ?', f.paidAtMost);
  if (f.paidAfter !== undefined) add('paid_at > ?', f.paidAfter);
  const col = f.range?.field === 'paid' ? c('paid_at') : c('created_at');
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
  /** Columns whose terms the segment's reads keep off the indexes (the segment's term names a better one). */
  plain?: PlainColumn[];
  /** Where a read of the segment from its beginning starts. */
  start: Term;
  /** The rows after the one with `key`, `id`. */
  after: (key: number, id: number) => Term;
  /** Does a cursor with this key end in this segment? */
  holds: (key: number) => boolean;
}

const ALL: Term = { sql: '1', params: [] };

/** What a walk knows of its filter beyond its terms: the ids its rows lie within, and whether its status is a paid one. */
export interface PageBounds {
  ids?: { lo: number; hi: number };
  /** The filter's status, when it is a paid one. */
  paidStatus?: string;
}

/**
 * The segments a walk of pages reads, in order, as the ledger stood when it began (`snap`): rows
 * created since (an id above `maxId`) are not in it, and the paid-time order puts a row by the paid
 * time it had then. Paid then: a paid time and a payment number (`paid_seq`) up to `snap.paidSeq`
 * (none: stored paid). The keys of id and created time never change; the paid time is set once,
 * when a payment is first paid, so a row paid during the walk is of the unpaid segment throughout:
 * no row moves across the cursor, none is skipped or listed twice.
 */
export function pageSegments(order: TxnOrder, snap: PageSnapshot, within: PageBounds = {}): Segment[] {
  const dir = order.desc ? 'DESC' : 'ASC';
  const op = order.desc ? '<' : '>';
  // In id order the bound on ids is one range: SQLite searches the rowid by one upper bound and one lower bound only.
  const lo = within.ids?.lo ?? 0;
  const hi = Math.min(snap.maxId, within.ids?.hi ?? Number.MAX_SAFE_INTEGER);
  const range = (above: number, upTo: number): Term => (above < 1 ? { sql: 'id <= ?', params: [upTo] } : { sql: 'id > ? AND id <= ?', params: [above, upTo] });
  const byId = (keyOf: (t: Transaction) => number, term: Term, holds: (key: number) => boolean): Segment => ({
    term,
    orderBy: `id ${dir}`,
    keyOf,
    start: range(lo - 1, hi),
    after: (_key, id) => (order.desc ? range(lo - 1, Math.min(id - 1, hi)) : range(Math.max(id, lo - 1), hi)),
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
        term: { sql: 'id <= ?', params: [snap.maxId] },
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
  // A paid status's rows unpaid then are those paid since (few, by payment number) and any stored without a paid time:
  // two index reads, not a read of every row of the status in id order looking for them (180 ms at 1 000 000 payments).
  const unpaid = byId(
    () => -1,
    {
      sql: '(paid_at IS NULL OR paid_seq > ?)',
      params: [snap.paidSeq],
    },
    (key) => key < 0,
  );
  if (within.paidStatus !== undefined) {
    unpaid.term = {
      sql: `${unpaid.term.sql} AND id IN (SELECT id FROM txns WHERE paid_seq > ? UNION ALL SELECT id FROM txns WHERE status = ? AND coalesce(paid_at, -1) = -1)`,
      params: [...unpaid.term.params, snap.paidSeq, within.paidStatus],
    };
    unpaid.plain = ['status'];
  }
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
