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
import { daysAnswer, LATE_MS, PAID_LATE, readDays } from './state-days.js';
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
    if (order.by === 'id' && f.range?.field === 'paid') {
      const window = this.paidWindow(f, limit + (from.offset ?? 0));
      if (window === 'none') return { rows: [], next: null };
      if (window) {
        const rows = this.paidIdPage(filter, order.desc, limit, from, snapshot.maxId, window, plain);
        const last = rows.at(-1);
        return { rows, next: rows.length === limit && last ? { key: last.id, id: last.id, snapshot } : null };
      }
    }
    if (order.by === 'id' && f.range?.field === 'created') {
      bounds.ids = this.createdIds(f, limit + (from.offset ?? 0));
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
   * The ids a page in id order within created dates reads, when its rows are dense enough among them that reading the
   * ids in order finds a page sooner than sorting every row of the dates (`reach`: the rows up to the page's end): the
   * ids created in their hours (`txn_spans`; ids follow creation, only an import out of order interleaves them), within
   * those of the filter's rows on those days (`txn_days`). None: the dates' rows by their index, sorted; an empty range
   * when no row of the filter was created then.
   */
  private createdIds(f: TxnFilter, reach: number): { lo: number; hi: number } | undefined {
    const range = f.range!;
    const s = this.stmts.spans.get(
      Math.floor((range.from ?? Number.MIN_SAFE_INTEGER) / SPAN_MS),
      Math.floor(((range.to ?? Number.MAX_SAFE_INTEGER) - 1) / SPAN_MS),
    )!;
    if (s.lo === null || s.hi === null) return { lo: 1, hi: 0 };
    if (s.hi - s.lo >= 4 * s.n + 1000) return undefined;
    if (!daysAnswer(f)) return { lo: s.lo, hi: s.hi };
    const days = readDays(this.db, f);
    if (days.lo === null || days.hi === null || days.touched === 0) return { lo: 1, hi: 0 };
    return dense(Math.max(s.lo, days.lo), Math.min(s.hi, days.hi), days.touched, reach);
  }

  /**
   * The ids of the payments paid within dates, within a day of being made: those made in the day before the dates or in
   * them (`txn_spans`), within the ids of the filter's rows paid on those days (`txn_days`). Their paid time says no more
   * of their id: a COD parcel is paid on delivery, days later, a payment may be paid once the clock moved on, an import
   * stores any paid time; those paid late are read by txns_paid_late (`paidIdPage`). `none`: no row of the filter is
   * paid on those days; undefined: the dates' rows by their index, sorted (the ids are not dense enough, or interleaved).
   */
  private paidWindow(f: TxnFilter, reach: number): { lo: number; hi: number } | 'none' | undefined {
    if (!daysAnswer(f)) return undefined;
    const days = readDays(this.db, f);
    if (days.lo === null || days.hi === null || days.touched === 0) return 'none';
    const range = f.range!;
    const s = this.stmts.spans.get(
      Math.floor(((range.from ?? Number.MIN_SAFE_INTEGER) - LATE_MS) / SPAN_MS),
      Math.floor(((range.to ?? Number.MAX_SAFE_INTEGER) - 1) / SPAN_MS),
    )!;
    if (s.lo === null || s.hi === null) return { lo: 1, hi: 0 };
    if (s.hi - s.lo >= 4 * s.n + 1000) return undefined;
    return dense(Math.max(s.lo, days.lo), Math.min(s.hi, days.hi), days.touched, reach);
  }

  /**
   * A page in id order within paid dates: the ids of the payments paid promptly (`window`, read in id order), merged with
   * those paid late (txns_paid_late, few: sorted). After the cursor's id, and up to the walk's newest id but for a page
   * by offset (as the ledger stands), as a page of `pageSegments` in id order.
   */
  private paidIdPage(
    f: TxnFilter,
    desc: boolean,
    limit: number,
    from: { cursor?: Cursor; offset?: number },
    maxId: number,
    window: { lo: number; hi: number },
    plain: PlainColumn[],
  ): Transaction[] {
    let lo = 1;
    let hi = from.offset ? Number.MAX_SAFE_INTEGER : maxId;
    if (from.cursor && desc) hi = Math.min(hi, from.cursor.id - 1);
    if (from.cursor && !desc) lo = Math.max(lo, from.cursor.id + 1);
    const ids = (a: number, b: number): Term => ({ sql: 'id >= ? AND id <= ?', params: [a, b] });
    const prompt = whereOf(f, [ids(Math.max(lo, window.lo), Math.min(hi, window.hi))], [...plain, 'paid_at']);
    const late = whereOf(f, [{ sql: PAID_LATE, params: [] }, ids(lo, hi)], plain);
    const dir = desc ? 'DESC' : 'ASC';
    const need = limit + (from.offset ?? 0);
    const sql =
      `SELECT id FROM (SELECT id FROM txns ${prompt.where} ORDER BY id ${dir} LIMIT ?) UNION ` +
      `SELECT id FROM (SELECT id FROM txns INDEXED BY txns_paid_late ${late.where} ORDER BY id ${dir} LIMIT ?) ORDER BY id ${dir} LIMIT ? OFFSET ?`;
    const page = this.db
      .prepare(sql)
      .pluck()
      .all(...prompt.params, need, ...late.params, need, limit, from.offset ?? 0) as number[];
    return page.map((id) => this.get(id)!);
  }
}

/** Ids lo..hi, when reading them in order reaches `reach` of the filter's `rows` (spread among them) sooner than sorting the rows. */
function dense(lo: number, hi: number, rows: number, reach: number): { lo: number; hi: number } | undefined {
  if (lo > hi) return { lo: 1, hi: 0 };
  return (reach * (hi - lo + 1)) / rows <= 4 * rows + 1000 ? { lo, hi } : undefined;
}
