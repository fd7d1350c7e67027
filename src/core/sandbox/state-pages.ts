import type { Database } from '../db.js';
import { statusInfo } from '../statuses.js';
import {
  keyAsItStands,
  ORDER_COLUMN,
  type PageBounds,
  type PlainColumn,
  pageSegments,
  type Segment,
  segmentsAfter,
  type Term,
  whereOf,
} from './state-query.js';
import { SPAN_MS } from './state-schema.js';
import { TxnLedger } from './state-transactions.js';
import type { Cursor, Transaction, TxnFilter, TxnOrder, TxnStatus } from './state-types.js';

/** Pages of transactions: a walk by cursor (as the ledger stood when it began) or a page by offset (as it stands). */
export class TxnPages extends TxnLedger {
  protected constructor(db: Database, path: string) {
    super(db, path);
  }

  /**
   * A page of transactions in a stable order (the id breaks ties). With an offset, as the gateway's
   * history pages: the ledger as it stands. With a cursor (the `next` of the page before), the walk
   * goes on as the ledger stood on its first page (the cursor's snapshot; state-query.ts,
   * `pageSegments`): every row of then that matches the filter when its page is read is listed once,
   * in the order of then; rows created since are not. `next` carries the snapshot, also after an
   * offset page, which sees the ledger exactly as the snapshot does.
   */
  page(f: TxnFilter, order: TxnOrder, limit: number, from: { cursor?: Cursor; offset?: number } = {}): { rows: Transaction[]; next: Cursor | null } {
    // A filter no row matches (a method the ledger has none of) would read every row in the order's index looking for one.
    if (this.totals(f).count === 0) return { rows: [], next: null };
    const snapshot = from.cursor?.snapshot ?? this.stmts.snapshot.get()!;
    const filter = this.narrow(f);
    // A page's merchant is a term of its rows, never its index (the merchant's indexes are in created or paid order, for counts).
    const plain: PlainColumn[] = ['merchant_va'];
    // A method's index is in id order: the page's when it is the filter's one term of an index, or when the methods have few rows.
    if (!this.rareMethods(f) && !(order.by === 'id' && f.via !== undefined && f.status === undefined)) plain.push('via');
    const bounds: PageBounds = f.status !== undefined && statusInfo(f.status as TxnStatus).paid ? { paidStatus: f.status } : {};
    if (order.by === 'id') {
      bounds.ids = this.createdIds(f);
      if (bounds.ids) plain.push('created_at');
    }
    const segments = pageSegments(order, snapshot, bounds);
    const read = from.offset
      ? { rows: this.offsetPage(filter, order, limit, from.offset, plain, bounds), keyOf: keyAsItStands(order) }
      : this.walk(filter, segmentsAfter(segments, from.cursor), limit, plain);
    const last = read.rows.at(-1);
    return { rows: read.rows, next: read.rows.length === limit && last && read.keyOf ? { key: read.keyOf(last), id: last.id, snapshot } : null };
  }

  /** Up to `limit` rows from the segments in turn, each from its bound; `keyOf` of the last row's segment. */
  private walk(
    f: TxnFilter,
    parts: { segment: Segment; from: Term }[],
    limit: number,
    plain: PlainColumn[],
  ): { rows: Transaction[]; keyOf?: (t: Transaction) => number } {
    const rows: Transaction[] = [];
    let keyOf: ((t: Transaction) => number) | undefined;
    for (const { segment, from } of parts) {
      if (rows.length >= limit) break;
      const { where, params } = whereOf(f, [segment.term, from], [...plain, ...(segment.plain ?? [])]);
      // The ids first (from an index alone where the filter allows), then only the page's rows.
      const ids = this.db
        .prepare(`SELECT id FROM txns ${where} ORDER BY ${segment.orderBy} LIMIT ?`)
        .pluck()
        .all(...params, limit - rows.length) as number[];
      if (ids.length > 0) keyOf = segment.keyOf;
      for (const id of ids) rows.push(this.get(id)!);
    }
    return { rows, keyOf };
  }

  /** A page by offset, as the gateway's history pages (`page` 2 and up without a cursor). */
  private offsetPage(f: TxnFilter, order: TxnOrder, limit: number, offset: number, plain: PlainColumn[], bounds: PageBounds): Transaction[] {
    const ids = bounds.ids && { sql: 'id >= ? AND id <= ?', params: [bounds.ids.lo, bounds.ids.hi] };
    const { where, params } = whereOf(f, ids ? [ids] : [], plain);
    const col = ORDER_COLUMN[order.by];
    const dir = order.desc ? 'DESC' : 'ASC';
    const orderBy = order.by === 'id' ? `id ${dir}` : `${col} ${dir}, id ${dir}`;
    return (
      this.db
        .prepare(`SELECT id FROM txns ${where} ORDER BY ${orderBy} LIMIT ? OFFSET ?`)
        .pluck()
        .all(...params, limit, offset) as number[]
    ).map((id) => this.get(id)!);
  }

  /**
   * The ids of the rows created within a filter's created dates (`txn_spans`: the lowest and highest id created in each
   * hour), when they are not many more than the rows created then: ids follow creation (only an import out of order
   * can interleave them). None for a page with another filter; an empty range for dates no row was created in.
   */
  private createdIds(f: TxnFilter): { lo: number; hi: number } | undefined {
    if (f.range?.field !== 'created') return undefined;
    const s = this.stmts.spans.get(Math.floor((f.range.from ?? 0) / SPAN_MS), Math.floor(((f.range.to ?? Number.MAX_SAFE_INTEGER) - 1) / SPAN_MS))!;
    if (s.lo === null || s.hi === null) return { lo: 1, hi: 0 };
    return s.hi - s.lo < 4 * s.n + 1000 ? { lo: s.lo, hi: s.hi } : undefined;
  }
}
