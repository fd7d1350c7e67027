import type { Database, Statement } from '../db.js';
import { WIB_OFFSET_MS } from '../time.js';
import type { TxnFilter } from './state-types.js';

/**
 * `txn_days` (schema 8): per day in Jakarta of created time, and of paid time, the rows of each
 * merchant, status and method: how many, their net amount, and the lowest and highest id that ever
 * entered the bucket. Kept in the SQLite transaction of every insert and status change (state-transactions.ts,
 * state-bulk.ts), through a `DayTally` that sums a batch's changes into one upsert per bucket.
 *
 * A count within dates reads the days it covers whole from here (history's dates are whole Jakarta days)
 * and only the parts of days at its ends from `txns`. The ids are a bound, never shrunk when a row
 * leaves the bucket: every row the bucket holds has its id within them (so does every row of a status
 * paid within dates, whatever its created time), which a page in id order within dates reads from.
 */

export const DAY_MS = 86_400_000;
/** The day in Jakarta of an instant (days since 1970-01-01 in Jakarta). */
export const dayOf = (ms: number): number => Math.floor((ms + WIB_OFFSET_MS) / DAY_MS);
/** The first instant of a day in Jakarta. */
export const dayStart = (day: number): number => day * DAY_MS - WIB_OFFSET_MS;
/** `dayOf` in SQL, for a column of epoch ms (SQLite's integer division truncates toward zero: floored here). */
export const dayOfSql = (column: string): string => `((${column} + ${WIB_OFFSET_MS}) / ${DAY_MS} - ((${column} + ${WIB_OFFSET_MS}) % ${DAY_MS} < 0))`;

/**
 * A payment paid this long or more after it was made, or before it was made (an import stores any paid time), is
 * paid late: the partial index txns_paid_late holds it (by paid time), so that a page in id order within paid dates
 * reads the ids made in the day before the dates and in them (txn_spans), and the late ones from that index.
 */
export const LATE_MS = 86_400_000;
/** The condition of txns_paid_late, as a query's term must spell it for SQLite to use the index. */
export const PAID_LATE = `(paid_at < created_at OR paid_at >= created_at + ${LATE_MS})`;

/** Creates (if absent) and fills `txn_days` from the rows as they stand, and txns_paid_late: migration 8, re-runnable. */
export function rebuildDays(db: Database): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS txn_days (
      field TEXT NOT NULL CHECK (field IN ('created', 'paid')), merchant_va TEXT NOT NULL, day INTEGER NOT NULL,
      status TEXT NOT NULL, via TEXT NOT NULL, n INTEGER NOT NULL, net INTEGER NOT NULL, lo INTEGER NOT NULL, hi INTEGER NOT NULL,
      PRIMARY KEY (field, merchant_va, day, status, via)
    ) WITHOUT ROWID;
    DELETE FROM txn_days;
    INSERT INTO txn_days SELECT 'created', merchant_va, ${dayOfSql('created_at')}, status, via, count(*), sum(paid_off), min(id), max(id)
      FROM txns GROUP BY 2, 3, 4, 5;
    INSERT INTO txn_days SELECT 'paid', merchant_va, ${dayOfSql('paid_at')}, status, via, count(*), sum(paid_off), min(id), max(id)
      FROM txns WHERE paid_at IS NOT NULL GROUP BY 2, 3, 4, 5;
    CREATE INDEX IF NOT EXISTS txns_paid_late ON txns (paid_at) WHERE ${PAID_LATE};
  `);
}

export type DayPut = Statement<[string, string, number, string, string, number, number, number, number]>;

export function prepareDayPut(db: Database): DayPut {
  return db.prepare(
    `INSERT INTO txn_days (field, merchant_va, day, status, via, n, net, lo, hi) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT DO UPDATE SET n = n + excluded.n, net = net + excluded.net, lo = min(lo, excluded.lo), hi = max(hi, excluded.hi)`,
  );
}

/** A row as `txn_days` files it. */
export interface DayRow {
  id: number;
  merchantVa: string;
  status: string;
  via: string;
  createdAt: number;
  paidAt?: number | null;
  net: number;
}

/** What a status change reads of its row: its counts' keys, and its buckets of `txn_days`. */
export interface CountRow {
  merchant_va: string;
  status: string;
  via: string;
  paid_off: number;
  created_at: number;
  paid_at: number | null;
}

export const dayRow = (id: number, r: CountRow): DayRow => ({
  id,
  merchantVa: r.merchant_va,
  status: r.status,
  via: r.via,
  createdAt: r.created_at,
  paidAt: r.paid_at,
  net: r.paid_off,
});

/** The changes of a write to `txn_days`, one delta per bucket, stored by `flush` (in the write's transaction). */
export class DayTally {
  private readonly deltas = new Map<string, [string, string, number, string, string, number, number, number, number]>();

  constructor(private readonly put: DayPut) {}

  /** A row enters (`sign` 1) or leaves (-1) its buckets: its created day's, and its paid day's when it is paid. */
  row(r: DayRow, sign: 1 | -1): void {
    this.add('created', r, dayOf(r.createdAt), sign);
    if (r.paidAt !== undefined && r.paidAt !== null) this.add('paid', r, dayOf(r.paidAt), sign);
  }

  private add(field: string, r: DayRow, day: number, sign: 1 | -1): void {
    const key = `${field}\0${r.merchantVa}\0${day}\0${r.status}\0${r.via}`;
    const d = this.deltas.get(key);
    if (!d) this.deltas.set(key, [field, r.merchantVa, day, r.status, r.via, sign, sign * r.net, r.id, r.id]);
    else {
      d[5] += sign;
      d[6] += sign * r.net;
      d[7] = Math.min(d[7], r.id);
      d[8] = Math.max(d[8], r.id);
    }
  }

  /** Stores the deltas; none of a bucket a row left and entered again (a change that kept it there: its id is in the bucket's). */
  flush(): void {
    for (const d of this.deltas.values()) if (d[5] !== 0 || d[6] !== 0) this.put.run(...d);
    this.deltas.clear();
  }
}

/** What `txn_days` says of a filter within dates: the count and net of its whole days, and the ids of every day it touches. */
export interface DaySpan {
  /** The range's whole days [from, to) (their count and net come from here); the rest of the range is read from `txns`. */
  whole: { from: number; to: number };
  n: number;
  net: number;
  /** The filter's rows on every day the range touches (whole or not). */
  touched: number;
  /** The lowest and highest id of the filter's rows on the days the range touches (null: none). */
  lo: number | null;
  hi: number | null;
}

/** Whether `txn_days` answers a filter: a range of dates, with no term it does not keep (ids, paid instants). */
export const daysAnswer = (f: TxnFilter): boolean => f.range !== undefined && !f.ids && f.paidAtMost === undefined && f.paidAfter === undefined;

/** The whole days [from, to) within a range of instants (none: from ≥ to). */
export function wholeDays(range: { from?: number; to?: number }): { from: number; to: number } {
  return {
    from: range.from === undefined ? -2e9 : dayOf(range.from) + (dayStart(dayOf(range.from)) === range.from ? 0 : 1),
    to: range.to === undefined ? 2e9 : dayOf(range.to),
  };
}

/** The parts of a range outside its whole days: the parts of days at its ends (read from the rows). */
export function partDays<R extends { from?: number; to?: number }>(range: R, whole: { from: number; to: number }): R[] {
  const ends = [
    { ...range, to: range.from === undefined ? undefined : dayStart(whole.from) },
    { ...range, from: range.to === undefined ? undefined : dayStart(whole.to) },
  ];
  return ends.filter((r) => r.from !== undefined && r.to !== undefined && r.from < r.to);
}

/** Reads `txn_days` for a filter `daysAnswer` accepts. */
export function readDays(db: Database, f: TxnFilter): DaySpan {
  const range = f.range!;
  const touched = { from: range.from === undefined ? -2e9 : dayOf(range.from), to: range.to === undefined ? 2e9 : dayOf(range.to - 1) };
  const whole = wholeDays(range);
  const terms = ['field = ?', 'day >= ?', 'day <= ?'];
  const params: (string | number)[] = [range.field, touched.from, touched.to];
  if (f.merchantVa !== undefined) terms.push('merchant_va = ?') && params.push(f.merchantVa);
  if (f.status !== undefined) terms.push('status = ?') && params.push(f.status);
  if (f.via !== undefined) terms.push('via = ?') && params.push(f.via);
  if (f.vias !== undefined) terms.push(`via IN (${f.vias.map(() => '?').join(',') || 'NULL'})`) && params.push(...f.vias);
  const inWhole = 'day >= ? AND day < ?';
  const r = db
    .prepare(
      `SELECT coalesce(sum(CASE WHEN ${inWhole} THEN n END), 0) AS n, coalesce(sum(CASE WHEN ${inWhole} THEN net END), 0) AS net,
         coalesce(sum(n), 0) AS touched,
         min(CASE WHEN n > 0 THEN lo END) AS lo, max(CASE WHEN n > 0 THEN hi END) AS hi FROM txn_days WHERE ${terms.join(' AND ')}`,
    )
    .get(whole.from, whole.to, whole.from, whole.to, ...params) as Omit<DaySpan, 'whole'>;
  return { whole, ...r };
}
