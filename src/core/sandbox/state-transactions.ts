import type { Database, Statement } from '../db.js';
import { chargeOf } from '../fees.js';
import { statusInfo } from '../statuses.js';
import type { ShipmentStage } from './records.js';
import { type CallbackStatements, CallbackLedger } from './state-callbacks.js';
import { type CountRow, type DayPut, DayTally, dayRow, daysAnswer, partDays, prepareDayPut, readDays, wholeDays } from './state-days.js';
import { whereOf } from './state-query.js';
import { bodyOf, TXN_COLUMNS, type TxnRow, txnOf } from './state-rows.js';
import { SPAN_MS } from './state-schema.js';
import { type Delivery, type PageSnapshot, SessionTaken, type Transaction, type TxnFilter, type TxnStatus } from './state-types.js';

/** The statements of transactions (rows, their counts per merchant, status and method, what is due), with those of the parts below. */
export interface TxnStatements extends CallbackStatements {
  byId: Statement<[number], TxnRow>;
  byPaymentNo: Statement<[string], TxnRow>;
  byReference: Statement<[string], TxnRow>;
  bySession: Statement<[string, string], TxnRow>;
  linkSession: Statement<[number, string]>;
  nextId: Statement<[], { seq: number }>;
  insertTxn: Statement;
  setStatus: Statement<[string, number | null, number | null, number | null, number, number]>;
  snapshot: Statement<[], PageSnapshot>;
  countRow: Statement<[number], CountRow>;
  bump: Statement<[string, string, string, number, number]>;
  due: Statement<[number], { id: number }>;
  dueSettle: Statement<[number], { id: number }>;
  counts: Statement<[], { merchant_va: string; status: string; via: string; n: number; net: number }>;
  insertStep: Statement<[number, string, number]>;
  span: Statement<[number, number, number, number]>;
  spans: Statement<[number, number], { lo: number | null; hi: number | null; n: number }>;
  dayPut: DayPut;
}

/** At most this many rows of a filter's methods: their page or count reads them by txns_via, whatever its order. */
const RARE_METHOD_ROWS = 2000;

/**
 * The number of the latest first payment (0 for none). `WHERE paid_seq IS NOT NULL` lets SQLite take
 * it from the end of the partial index txns_paid_seq: without it, max() read every row (160 ms per
 * history page and per payment at 1 000 000 payments).
 */
const LATEST_PAID_SEQ = '(SELECT coalesce(max(paid_seq), 0) FROM txns WHERE paid_seq IS NOT NULL)';

function prepareTransactions(db: Database): Omit<TxnStatements, keyof CallbackStatements> {
  return {
    byId: db.prepare<[number], TxnRow>(`SELECT ${TXN_COLUMNS} FROM txns WHERE id = ?`),
    byPaymentNo: db.prepare<[string], TxnRow>(`SELECT ${TXN_COLUMNS} FROM txns WHERE payment_no = ? ORDER BY id LIMIT 1`),
    byReference: db.prepare<[string], TxnRow>(`SELECT ${TXN_COLUMNS} FROM txns WHERE reference_id = ? AND reference_id <> '' ORDER BY id LIMIT 1`),
    bySession: db.prepare<[string, string], TxnRow>(
      `SELECT ${TXN_COLUMNS} FROM txns WHERE id = (SELECT trx_id FROM sessions WHERE sid = ? AND merchant_va = ?)`,
    ),
    linkSession: db.prepare<[number, string]>(`UPDATE sessions SET trx_id = ? WHERE sid = ? AND trx_id IS NULL`),
    nextId: db.prepare<[], { seq: number }>(`SELECT seq FROM sqlite_sequence WHERE name = 'txns'`),
    insertTxn: db.prepare(
      `INSERT INTO txns (id, merchant_va, reference_id, payment_no, via, amount, fee, paid_off, status, created_at, expires_at, paid_at, ended_at, escrow, settled_at, body)
         VALUES (@id, @merchantVa, @referenceId, @paymentNo, @via, @amount, @fee, @paidOff, @status, @createdAt, @expiresAt, @paidAt, @endedAt, @escrow, @settledAt, @body)`,
    ),
    // The first paid status sets paid_at (kept through settlement, escrow release and refund) and numbers
    // the payment (paid_seq: a walk of pages knows what was paid when it began); berhasil sets settled_at.
    setStatus: db.prepare<[string, number | null, number | null, number | null, number, number]>(
      `UPDATE txns SET status = ?,
         paid_seq = CASE WHEN paid_at IS NULL AND ? IS NOT NULL THEN ${LATEST_PAID_SEQ} + 1 ELSE paid_seq END,
         paid_at = coalesce(paid_at, ?), settled_at = coalesce(?, settled_at), ended_at = ? WHERE id = ?`,
    ),
    snapshot: db.prepare<[], PageSnapshot>(`SELECT (SELECT seq FROM sqlite_sequence WHERE name = 'txns') AS maxId, ${LATEST_PAID_SEQ} AS paidSeq`),
    countRow: db.prepare<[number], CountRow>(`SELECT merchant_va, status, via, paid_off, created_at, paid_at FROM txns WHERE id = ?`),
    bump: db.prepare<[string, string, string, number, number]>(
      `INSERT INTO txn_counts (merchant_va, status, via, n, net) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET n = n + excluded.n, net = net + excluded.net`,
    ),
    // A COD parcel the courier picked up no longer expires (cod-clock.ts): the buyer pays on delivery.
    due: db.prepare<[number], { id: number }>(
      `SELECT id FROM txns WHERE status = 'pending' AND expires_at <= ? AND NOT EXISTS (SELECT 1 FROM parcel_steps s WHERE s.trx_id = txns.id) ORDER BY expires_at LIMIT 500`,
    ),
    dueSettle: db.prepare<[number], { id: number }>(
      `SELECT id FROM txns WHERE status = 'unsettled' AND coalesce(paid_at, created_at) <= ? ORDER BY paid_at LIMIT 500`,
    ),
    counts: db.prepare<[], { merchant_va: string; status: string; via: string; n: number; net: number }>(`SELECT * FROM txn_counts WHERE n <> 0`),
    insertStep: db.prepare<[number, string, number]>(`INSERT INTO parcel_steps (trx_id, stage, at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`),
    span: db.prepare<[number, number, number, number]>(
      `INSERT INTO txn_spans (hour, lo, hi, n) VALUES (?, ?, ?, ?) ON CONFLICT DO UPDATE SET lo = min(lo, excluded.lo), hi = max(hi, excluded.hi), n = n + excluded.n`,
    ),
    spans: db.prepare<[number, number], { lo: number | null; hi: number | null; n: number }>(
      `SELECT min(lo) AS lo, max(hi) AS hi, coalesce(sum(n), 0) AS n FROM txn_spans WHERE hour >= ? AND hour <= ?`,
    ),
    dayPut: prepareDayPut(db),
  };
}

/** Transactions: creation, lookups, transitions (with their callback), what is due, counts and pages. */
export class TxnLedger extends CallbackLedger {
  declare protected readonly stmts: TxnStatements;

  protected constructor(db: Database, path: string) {
    super(db, path);
    this.stmts = { ...this.stmts, ...prepareTransactions(db) };
  }

  /**
   * Inserts a row; returns what the merchant receives of it. Its count is added by the caller (one bump per transaction,
   * or per batch in `bulk`), so are its days (`tally`, flushed by the caller).
   */
  protected insertTxn(t: Transaction, tally: DayTally): number {
    const paidOff = chargeOf(t.amount, t.fee, t.feeDirection).paidOff;
    this.stmts.insertTxn.run({
      id: t.id,
      merchantVa: t.merchantVa,
      referenceId: t.referenceId,
      paymentNo: t.paymentNo,
      via: t.via,
      amount: t.amount,
      fee: t.fee,
      paidOff,
      status: t.status,
      createdAt: t.createdAt,
      expiresAt: t.expiresAt,
      paidAt: t.paidAt ?? null,
      endedAt: t.endedAt ?? null,
      escrow: t.escrow ? 1 : 0,
      settledAt: t.settledAt ?? null,
      body: bodyOf(t),
    });
    this.stmts.span.run(Math.floor(t.createdAt / SPAN_MS), t.id, t.id, 1);
    tally.row({ id: t.id, merchantVa: t.merchantVa, status: t.status, via: t.via, createdAt: t.createdAt, paidAt: t.paidAt, net: paidOff }, 1);
    return paidOff;
  }

  /**
   * Stores a new transaction (with `session`, the one that redirect session becomes). Given a builder,
   * its id is the next of the ledger's sequence (AUTOINCREMENT: never one handed out before, even after
   * `reset`) and the row is built and inserted in the same SQLite transaction, so an id is answered
   * only once it is committed.
   */
  async addTransaction(txn: Transaction | ((id: number) => Transaction), session?: string): Promise<Transaction> {
    return this.write(() => {
      const t = typeof txn === 'function' ? txn(this.stmts.nextId.get()!.seq + 1) : txn;
      const tally = this.dayTally();
      this.stmts.bump.run(t.merchantVa, t.status, t.via, 1, this.insertTxn(t, tally));
      tally.flush();
      if (t.via === 'cod') this.refreshDue(t.id);
      // The transaction a redirect session becomes is linked to it; a session becomes one at most.
      if (session !== undefined && this.stmts.linkSession.run(t.id, session).changes === 0) throw new SessionTaken();
      return t;
    });
  }

  /** A transaction by id. */
  get(id: number): Transaction | undefined {
    const r = this.stmts.byId.get(id);
    return r && txnOf(r);
  }

  /** Finds a transaction by id, payment number or reference id. */
  find(idOrPaymentNo: string): Transaction | undefined {
    if (/^\d+$/.test(idOrPaymentNo) && Number.isSafeInteger(Number(idOrPaymentNo))) {
      const byId = this.get(Number(idOrPaymentNo));
      if (byId) return byId;
    }
    const r = this.stmts.byPaymentNo.get(idOrPaymentNo) ?? this.stmts.byReference.get(idOrPaymentNo);
    return r && txnOf(r);
  }

  /** The transaction a redirect session became, if any. */
  sessionTransaction(sid: string, merchantVa: string): Transaction | undefined {
    const r = this.stmts.bySession.get(sid, merchantVa);
    return r && txnOf(r);
  }

  /**
   * Changes a transaction's status and queues its callback in one SQLite transaction, so that no
   * crash can leave a paid or expired transaction without a callback to send. `paidAt` is set by
   * the first paid status (statuses.ts), `settledAt` by `berhasil`; `endedAt` always. A COD parcel's step that makes the change (its
   * delivery: the courier took the cash) is stored in the same transaction.
   */
  async transition(id: number, status: TxnStatus, at: number, callback?: Omit<Delivery, 'id'>, step?: ShipmentStage): Promise<Delivery | undefined> {
    return this.write(() => {
      const before = this.stmts.countRow.get(id);
      if (!before) throw new Error(`no transaction ${id}`);
      const paidAt = statusInfo(status).paid ? at : null;
      this.stmts.setStatus.run(status, paidAt, paidAt, status === 'berhasil' ? at : null, at, id);
      if (before.status !== status) {
        this.stmts.bump.run(before.merchant_va, before.status, before.via, -1, -before.paid_off);
        this.stmts.bump.run(before.merchant_va, status, before.via, 1, before.paid_off);
      }
      // Out of its buckets of txn_days as it was, into those of its new status (and of its paid day, first paid now).
      const tally = this.dayTally();
      tally.row(dayRow(id, before), -1);
      tally.row(dayRow(id, { ...before, status, paid_at: before.paid_at ?? paidAt }), 1);
      tally.flush();
      if (step) this.stmts.insertStep.run(id, step, at);
      if (before.via === 'cod') this.refreshDue(id);
      return callback ? this.insertDelivery(callback) : undefined;
    });
  }

  /** The changes to `txn_days` of a write, stored by its `flush`. */
  protected dayTally(): DayTally {
    return new DayTally(this.stmts.dayPut);
  }

  /** Expires-due candidates: pending transactions whose expiry is at or before `at` (a batch). */
  dueForExpiry(at: number): Transaction[] {
    return this.stmts.due
      .all(at)
      .map((r) => this.get(r.id)!)
      .filter(Boolean);
  }

  /** Settlement-due candidates: paid-unsettled transactions (6) paid at or before `paidBy` (a batch). */
  dueForSettlement(paidBy: number): Transaction[] {
    return this.stmts.dueSettle
      .all(paidBy)
      .map((r) => this.get(r.id)!)
      .filter(Boolean);
  }

  /** A filter without its merchant when every transaction is that merchant's (the usual case): index-only queries. */
  protected narrow(f: TxnFilter): TxnFilter {
    if (f.merchantVa === undefined || this.stmts.counts.all().some((c) => c.merchant_va !== f.merchantVa)) return f;
    const { merchantVa: _m, ...rest } = f;
    return rest;
  }

  /** The running totals of a filter's merchant, status and methods (its other terms narrow it further): no row read. */
  protected totals(f: TxnFilter): { count: number; net: number } {
    let count = 0;
    let net = 0;
    for (const c of this.stmts.counts.all()) {
      if (
        (f.merchantVa === undefined || c.merchant_va === f.merchantVa) &&
        (f.status === undefined || c.status === f.status) &&
        (f.via === undefined || c.via === f.via) &&
        (f.vias === undefined || f.vias.includes(c.via))
      ) {
        count += c.n;
        net += c.net;
      }
    }
    return { count, net };
  }

  /** Counts and net amounts of the transactions matching a filter (none read when the totals have none); `net: false` counts from an index alone where it can. */
  aggregate(f: TxnFilter = {}, { net: withNet = true } = {}): { count: number; net: number } {
    const totals = this.totals(f);
    if (totals.count === 0 || (!f.ids && f.paidAtMost === undefined && f.paidAfter === undefined && !f.range)) return totals;
    // Within dates: the whole days from txn_days, the parts of days at the ends from the rows (none for history's dates).
    const whole = f.range && wholeDays(f.range);
    if (!daysAnswer(f) || !whole || whole.from >= whole.to) return this.scan(f, withNet);
    const days = readDays(this.db, f);
    const sum = { count: days.n, net: days.net };
    for (const range of partDays(f.range!, whole)) {
      const end = this.scan({ ...f, range }, withNet);
      sum.count += end.count;
      sum.net += end.net;
    }
    return sum;
  }

  /** Counts and net amounts of the rows matching a filter, read from them. */
  private scan(f: TxnFilter, withNet: boolean): { count: number; net: number } {
    const { where, params } = whereOf(this.narrow(f), [], this.rareMethods(f) ? [] : ['via']);
    const sums = withNet ? 'coalesce(sum(paid_off), 0)' : '0';
    return this.db.prepare(`SELECT count(*) AS count, ${sums} AS net FROM txns ${where}`).get(...params) as { count: number; net: number };
  }

  /** The methods transactions were made with (for the dashboard's filter). */
  methods(): string[] {
    return [...new Set(this.stmts.counts.all().map((c) => c.via))].sort();
  }

  /** Whether the filter's methods have few rows (a filter without one: no). */
  protected rareMethods(f: TxnFilter): boolean {
    if (f.via === undefined && f.vias === undefined) return false;
    return this.totals({ merchantVa: f.merchantVa, via: f.via, vias: f.vias }).count <= RARE_METHOD_ROWS;
  }

  /** How many transactions match (all of them by default). */
  count(f: TxnFilter = {}): number {
    return this.aggregate(f, { net: false }).count;
  }
}
