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
import { daysAnswer, readDays } from './state-days.js';
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
    if (order.by === 'id' && f.range) {
      bounds.ids = this.rangeIds(f, limit + (from.offset ?? 0));
      if (bounds.ids) plain.push(f.range.field === 'paid' ? 'paid_at' : 'created_at');
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
   * The ids a page in id order within dates reads, when its rows are dense enough among them that reading the ids in
   * order finds a page sooner than sorting every row of the dates (`reach`: the rows up to the page's end). Created
   * dates: the ids created in their hours (`txn_spans`; ids follow creation, only an import out of order interleaves
   * them). Both: the ids of the filter's rows on the days the dates touch (`txn_days`). Paid dates have no other bound:
   * a payment's paid time says little of when it was made (a COD parcel is paid on delivery, days later; an import
   * stores any paid time, even one before the payment was made).
   * None: the dates' rows by their index, sorted; an empty range when no row of the filter is on those days.
   */
  private rangeIds(f: TxnFilter, reach: number): { lo: number; hi: number } | undefined {
    const range = f.range!;
    const days = daysAnswer(f) ? readDays(this.db, f) : undefined;
    let ids = { lo: days?.lo ?? null, hi: days?.hi ?? null, n: days?.touched ?? 0 };
    if (range.field === 'created') {
      const s = this.stmts.spans.get(Math.floor((range.from ?? 0) / SPAN_MS), Math.floor(((range.to ?? Number.MAX_SAFE_INTEGER) - 1) / SPAN_MS))!;
      if (s.lo === null || s.hi === null) return { lo: 1, hi: 0 };
      if (s.hi - s.lo >= 4 * s.n + 1000) return undefined;
      ids = days ? { lo: Math.max(s.lo, ids.lo ?? s.hi + 1), hi: Math.min(s.hi, ids.hi ?? 0), n: ids.n } : s;
    } else if (!days) return undefined;
    if (ids.lo === null || ids.hi === null || ids.n === 0 || ids.lo > ids.hi) return { lo: 1, hi: 0 };
    // Reading in id order, about `reach` × (ids ÷ rows) ids until the page is full; sorting, every row of the days.
    return (reach * (ids.hi - ids.lo + 1)) / ids.n <= 4 * ids.n + 1000 ? { lo: ids.lo, hi: ids.hi } : undefined;
  }
}
