import { join } from 'node:path';
import { openDatabase, type Database } from '../db.js';
import { chargeOf } from '../fees.js';
import type { RedirectSession } from './redirect-session.js';
import type { Member, PickupRequest, ShipmentEvent, ShipmentStage, Transfer } from './records.js';
import { statusInfo, type StatusKey } from '../statuses.js';
import { nextStep } from './cod-clock.js';

/** A payment's status (statuses.ts), stored as its key in text: a new status is a new value, not a schema change. */
export type TxnStatus = StatusKey;

export interface Transaction {
  id: number;
  sid: string;
  merchantVa: string;
  referenceId: string;
  via: string;
  channel: string;
  paymentNo: string;
  paymentName: string;
  qrString?: string;
  amount: number;
  fee: number;
  /** `BUYER`: the buyer pays the fee on top of the amount (total = amount + fee). */
  feeDirection?: 'BUYER';
  status: TxnStatus;
  /** Created with `escrow: true`: held as escrow (7) when paid, until released. */
  escrow?: boolean;
  /** Epoch milliseconds. */
  createdAt: number;
  expiresAt: number;
  paidAt?: number;
  /** When it became settled (status 1). */
  settledAt?: number;
  endedAt?: number;
  notifyUrl: string;
  buyer: { name: string; phone: string; email: string };
  items: { product: string; qty: number; price: number }[];
  comments?: string;
  /** A COD payment's shipment: the direct payment's shipping fields (cod-api.ts). */
  shipment?: Shipment;
}

/** What a COD direct payment says of its parcel (the gateway's field names). */
export interface Shipment {
  shipping: string;
  shippingService: string;
  deliveryArea: string;
  deliveryAddress: string;
  pickupArea?: string;
  pickupAddress?: string;
  /** The parcel's weight: the items' weights times their quantities (kg). */
  weightKg: number;
}

export type DeliveryState = 'pending' | 'delivered' | 'failed';

/** One callback in the outbox: a transition to deliver, retried per the schedule until HTTP 200. */
export interface Delivery {
  id: string;
  trxId: number;
  status: TxnStatus;
  url: string;
  format: 'form' | 'json';
  attempts: number;
  state: DeliveryState;
  /** Epoch ms of the next attempt, null when finished. */
  nextAt: number | null;
  lastResult?: string;
  createdAt: number;
}

/** What one callback attempt sent and got back (shown by the dashboard). */
export interface AttemptDetail {
  /** Epoch ms when the request was sent. */
  at: number;
  url: string;
  /** The request's headers as sent (Host and Content-Length included). */
  headers: Record<string, string>;
  body: string;
  /** The handler's HTTP status; null when no answer came (refused, timeout). */
  httpStatus: number | null;
  ms: number | null;
  /** The first KB of the handler's answer. */
  answer: string;
  /** The answer was longer than what is kept. */
  truncated?: boolean;
  /** Sent a second time by `--faults duplicate` (a retry the merchant must treat as a duplicate). */
  duplicate?: boolean;
}

/** One recorded attempt of a delivery; `detail` is absent for older journals and seeded history. */
export interface AttemptInfo {
  deliveryId: string;
  attempt: number;
  state: DeliveryState;
  nextAt: number | null;
  result: string;
  detail?: AttemptDetail;
}

/** A change the ledger could not store (a full disk, an I/O error): nothing of it was applied; answered 503. */
export class StoreError extends Error {
  readonly code: string;
  constructor(
    cause: unknown,
    readonly path: string,
  ) {
    const code = String((cause as { code?: unknown })?.code ?? 'EIO');
    const full = code === 'SQLITE_FULL' || code === 'ENOSPC';
    super(`cannot write the emulator ledger ${path}: ${full ? 'no space left on the device' : ((cause as Error)?.message ?? String(cause))}`);
    this.code = code;
  }
}

/** The session already became a transaction (rolled back; the caller reads that one). */
export class SessionTaken extends Error {}

/** Which transactions a query selects (every field optional; all given ones must hold). */
export interface TxnFilter {
  merchantVa?: string;
  ids?: number[];
  status?: string;
  via?: string;
  /** Any of these methods (an empty list selects nothing). */
  vias?: string[];
  /** Paid at or before this instant (epoch ms). */
  paidAtMost?: number;
  /** Paid after this instant. */
  paidAfter?: number;
  /** A half-open range [from, to) of the created or paid time. */
  range?: { field: 'created' | 'paid'; from?: number; to?: number };
}

/** The order of a page: by id, created time or paid time, each with the id as tie-breaker. */
export interface TxnOrder {
  by: 'id' | 'created' | 'paid';
  desc: boolean;
}

/** Where the previous page ended: the order key and id of its last row (never changes with status). */
export interface Cursor {
  key: number;
  id: number;
}

/** A payment to store in bulk (seed, import, export): the transaction, its callbacks and their attempts. */
export interface SeedPayment {
  txn: Transaction;
  /** A delivery's `id` is kept when given (import), else the next of the sequence. */
  deliveries?: { delivery: Omit<Delivery, 'id' | 'trxId'> & { id?: string }; attempts: Omit<AttemptInfo, 'deliveryId'>[] }[];
}

/** What else a bulk store carries: redirect sessions, and id floors from an older journal. */
export interface BulkExtra {
  sessions?: RedirectSession[];
  /** Ids up to these may have been handed out: the sequences go on above them. */
  reserve?: { txnId: number; deliverySeq: number };
  /** A marker stored in the same transaction (the import of an older journal, once). */
  mark?: string;
  /** COD parcels' steps and pickups, Close API transfers and members (an export's, or an older journal's). */
  records?: Partial<ServiceRecords>;
  /** Settings stored in the same transaction (an export's clock offset). */
  settings?: Record<string, string>;
}

const FIRST_ID = 100_001;
const ORDER_COLUMN = { id: 'id', created: 'created_at', paid: 'coalesce(paid_at, -1)' } as const;

/** The ledger's schema, one step per version (`PRAGMA user_version`). */
const MIGRATIONS = [
  (db: Database) => {
    db.exec(`
      CREATE TABLE txns (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        merchant_va TEXT NOT NULL, reference_id TEXT NOT NULL, payment_no TEXT NOT NULL,
        via TEXT NOT NULL, amount INTEGER NOT NULL, fee INTEGER NOT NULL, paid_off INTEGER NOT NULL, status TEXT NOT NULL,
        created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL, paid_at INTEGER, ended_at INTEGER,
        body TEXT NOT NULL
      );
      CREATE INDEX txns_created ON txns (created_at);
      CREATE INDEX txns_status ON txns (status);
      CREATE INDEX txns_status_created ON txns (status, created_at);
      CREATE INDEX txns_paid ON txns (paid_at) WHERE paid_at IS NOT NULL;
      CREATE INDEX txns_payment_no ON txns (payment_no);
      CREATE INDEX txns_reference ON txns (reference_id) WHERE reference_id <> '';
      CREATE INDEX txns_due ON txns (expires_at) WHERE status = 'pending';
      -- Counts and net amounts (paid_off: what the merchant receives) per merchant, status and method,
      -- kept with every change: totals without a scan.
      CREATE TABLE txn_counts (
        merchant_va TEXT NOT NULL, status TEXT NOT NULL, via TEXT NOT NULL, n INTEGER NOT NULL, net INTEGER NOT NULL,
        PRIMARY KEY (merchant_va, status, via)
      ) WITHOUT ROWID;
      CREATE TABLE deliveries (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        trx_id INTEGER NOT NULL REFERENCES txns (id) ON DELETE CASCADE,
        status TEXT NOT NULL, url TEXT NOT NULL, format TEXT NOT NULL, attempts INTEGER NOT NULL,
        state TEXT NOT NULL, next_at INTEGER, last_result TEXT, created_at INTEGER NOT NULL
      );
      CREATE INDEX deliveries_trx ON deliveries (trx_id);
      CREATE INDEX deliveries_pending ON deliveries (next_at) WHERE state = 'pending';
      CREATE TABLE attempts (
        delivery_seq INTEGER NOT NULL REFERENCES deliveries (seq) ON DELETE CASCADE,
        attempt INTEGER NOT NULL, state TEXT NOT NULL, next_at INTEGER, result TEXT NOT NULL, detail TEXT
      );
      CREATE INDEX attempts_delivery ON attempts (delivery_seq);
      CREATE TABLE sessions (sid TEXT PRIMARY KEY, merchant_va TEXT NOT NULL, body TEXT NOT NULL, trx_id INTEGER REFERENCES txns (id) ON DELETE SET NULL);
      -- The emulator holding the data dir (its lock is held by the OS on lock.db; this names it).
      CREATE TABLE holder (one INTEGER PRIMARY KEY CHECK (one = 1), pid INTEGER, since TEXT NOT NULL);
      CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
      INSERT INTO sqlite_sequence (name, seq) VALUES ('txns', ${FIRST_ID - 1}), ('deliveries', 0);
    `);
  },
  // 2: COD parcels' steps and pickup requests (cod-routes.ts), the Close API's transfers and members (close-api.ts).
  (db: Database) => {
    db.exec(`
      CREATE TABLE parcel_steps (
        trx_id INTEGER NOT NULL REFERENCES txns (id) ON DELETE CASCADE,
        stage TEXT NOT NULL CHECK (stage IN ('picked_up', 'in_transit', 'delivered')),
        at INTEGER NOT NULL,
        PRIMARY KEY (trx_id, stage)
      );
      CREATE TABLE pickups (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        trx_id INTEGER NOT NULL REFERENCES txns (id) ON DELETE CASCADE,
        date TEXT NOT NULL, time TEXT NOT NULL, vehicle TEXT NOT NULL, requested_at INTEGER NOT NULL
      );
      CREATE INDEX pickups_trx ON pickups (trx_id);
      -- A transfer's id is drawn from the transactions' sequence (txns): a TransactionId names one thing.
      CREATE TABLE transfers (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        by_va TEXT NOT NULL, sender TEXT NOT NULL, receiver TEXT NOT NULL, amount INTEGER NOT NULL CHECK (amount > 0),
        reference_id TEXT NOT NULL, related_id TEXT, notes TEXT NOT NULL, at INTEGER NOT NULL
      );
      -- A caller's referenceId moves money once (a repeat is answered "transaction already exists").
      CREATE UNIQUE INDEX transfers_reference ON transfers (by_va, reference_id) WHERE reference_id <> '';
      CREATE INDEX transfers_sender ON transfers (sender);
      CREATE INDEX transfers_receiver ON transfers (receiver);
      CREATE TABLE members (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        va TEXT NOT NULL UNIQUE, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE, phone TEXT NOT NULL,
        parent TEXT NOT NULL, website_url TEXT, at INTEGER NOT NULL
      );
    `);
  },
  // 3: the lifecycle (statuses.ts): escrow payments, deferred settlement, and the emulator's settings (the clock's offset).
  (db: Database) => {
    db.exec(`
      ALTER TABLE txns ADD COLUMN escrow INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE txns ADD COLUMN settled_at INTEGER;
      CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
    `);
  },
  // 4: each pending COD parcel's next due time on the clock, so that the clock's sweep reads only the due ones (`parcelDue`).
  (db: Database) => {
    db.exec(`
      CREATE TABLE parcel_due (trx_id INTEGER PRIMARY KEY REFERENCES txns (id) ON DELETE CASCADE, due_at INTEGER NOT NULL);
      CREATE INDEX parcel_due_at ON parcel_due (due_at);
    `);
    const refresh = parcelDue(db);
    for (const id of db.prepare(`SELECT id FROM txns WHERE status = 'pending' AND via = 'cod'`).pluck().all() as number[]) refresh(id);
  },
];

interface TxnRow {
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

interface DeliveryRow {
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

interface PickupRow {
  id: number;
  trx_id: number;
  date: string;
  time: string;
  vehicle: string;
  requested_at: number;
}

interface TransferRow {
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

interface MemberRow {
  seq: number;
  va: string;
  name: string;
  email: string;
  phone: string;
  parent: string;
  website_url: string | null;
  at: number;
}

const pickupOf = (r: PickupRow): PickupRequest => ({ trxId: r.trx_id, date: r.date, time: r.time, vehicle: r.vehicle, requestedAt: r.requested_at });
const transferOf = (r: TransferRow): Transfer => ({
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
const memberOf = (r: MemberRow): Member => ({
  va: r.va,
  name: r.name,
  email: r.email,
  phone: r.phone,
  parent: r.parent,
  ...(r.website_url !== null ? { websiteUrl: r.website_url } : {}),
  at: r.at,
});

/** Why a transfer was not stored: its referenceId was used by the caller before, or the sender's balance does not cover it. */
export type TransferRefusal = 'exists' | 'short';

/** What the Close API and COD logistics stored, carried by a ledger export (one line each). */
export interface ServiceRecords {
  steps: { trxId: number; stage: ShipmentStage; at: number }[];
  pickups: PickupRequest[];
  transfers: Transfer[];
  members: Member[];
}

const TXN_COLUMNS = 'id, merchant_va, reference_id, payment_no, via, amount, fee, status, created_at, expires_at, paid_at, ended_at, escrow, settled_at, body';

function txnOf(r: TxnRow): Transaction {
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

function deliveryOf(r: DeliveryRow): Delivery {
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

/**
 * Sets (or removes) one payment's row of `parcel_due`: a pending COD parcel's next step's time on
 * the clock (cod-clock.ts `nextStep`), from its payment, steps and pickups as stored. Called in the
 * same SQLite transaction as every change that moves it (the payment created, a step, a pickup, a
 * transition, a bulk load), so the clock's sweep trusts it; no row once the payment is not pending.
 */
function parcelDue(db: Database): (trxId: number) => void {
  const txn = db.prepare<[number], TxnRow>(`SELECT ${TXN_COLUMNS} FROM txns WHERE id = ?`);
  const steps = db.prepare<[number], { stage: ShipmentStage; at: number }>(`SELECT stage, at FROM parcel_steps WHERE trx_id = ? ORDER BY at, rowid`);
  const pickups = db.prepare<[number], PickupRow>(`SELECT * FROM pickups WHERE trx_id = ? ORDER BY id`);
  const put = db.prepare<[number, number]>(`INSERT INTO parcel_due (trx_id, due_at) VALUES (?, ?) ON CONFLICT DO UPDATE SET due_at = excluded.due_at`);
  const drop = db.prepare<[number]>(`DELETE FROM parcel_due WHERE trx_id = ?`);
  return (trxId) => {
    const r = txn.get(trxId);
    const next = r?.via === 'cod' && r.status === 'pending' ? nextStep(txnOf(r), steps.all(trxId), pickups.all(trxId).map(pickupOf)) : undefined;
    if (next) put.run(trxId, next.at);
    else drop.run(trxId);
  };
}

const seqOf = (deliveryId: string): number => Number(/^cb-(\d+)$/.exec(deliveryId)?.[1] ?? NaN);

/** What of a transaction is not a column, as stored in `body`. */
function bodyOf(t: Transaction): string {
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

/**
 * The emulator's ledger: transactions, the callback outbox (deliveries and their attempts) and
 * redirect sessions, in SQLite (`DATA_DIR/ledger.db`, or in memory). Every change is one SQLite
 * transaction, committed (WAL, `synchronous = FULL`) before the method resolves, so a caller answers
 * only what a restart will find; a change that cannot be stored (a full disk, an I/O error) is rolled
 * back whole and throws a `StoreError` (the server answers 503). SQL stays in this module: callers
 * see transactions, deliveries, filters and cursors.
 */
export class SandboxState {
  /** Called after every committed change (the dashboard's live updates). */
  onChange?: () => void;
  /** What the one-time import of an older journal found (see `journal-import.ts`). */
  skipped = 0;
  reconciled = 0;
  private locks = new Map<number, Promise<unknown>>();
  private readonly stmts: ReturnType<SandboxState['prepare']>;
  private readonly refreshDue: (trxId: number) => void;

  private constructor(
    readonly db: Database,
    readonly path: string,
  ) {
    this.stmts = this.prepare();
    this.refreshDue = parcelDue(db);
  }

  /** Opens (creating) the ledger of a data dir, or an in-memory one. */
  static async open(dataDir?: string, uid?: number): Promise<SandboxState> {
    const path = dataDir ? join(dataDir, 'ledger.db') : ':memory:';
    const db = await openDatabase(path, { what: 'the emulator ledger', migrations: MIGRATIONS, uid });
    return new SandboxState(db, path);
  }

  private prepare() {
    const db = this.db;
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
      // The first paid status sets paid_at (kept through settlement, escrow release and refund); berhasil sets settled_at.
      setStatus: db.prepare<[string, number | null, number | null, number, number]>(
        `UPDATE txns SET status = ?, paid_at = coalesce(paid_at, ?), settled_at = coalesce(?, settled_at), ended_at = ? WHERE id = ?`,
      ),
      getSetting: db.prepare<[string], { value: string }>(`SELECT value FROM settings WHERE key = ?`),
      putSetting: db.prepare<[string, string]>(`INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT DO UPDATE SET value = excluded.value`),
      countRow: db.prepare<[number], { merchant_va: string; status: string; via: string; paid_off: number }>(
        `SELECT merchant_va, status, via, paid_off FROM txns WHERE id = ?`,
      ),
      bump: db.prepare<[string, string, string, number, number]>(
        `INSERT INTO txn_counts (merchant_va, status, via, n, net) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET n = n + excluded.n, net = net + excluded.net`,
      ),
      insertDelivery: db.prepare(
        `INSERT INTO deliveries (seq, trx_id, status, url, format, attempts, state, next_at, last_result, created_at)
         VALUES (@seq, @trxId, @status, @url, @format, @attempts, @state, @nextAt, @lastResult, @createdAt)`,
      ),
      delivery: db.prepare<[number], DeliveryRow>(`SELECT * FROM deliveries WHERE seq = ?`),
      deliveriesOf: db.prepare<[number], DeliveryRow>(`SELECT * FROM deliveries WHERE trx_id = ? ORDER BY seq`),
      pending: db.prepare<[], DeliveryRow>(`SELECT * FROM deliveries WHERE state = 'pending' ORDER BY next_at`),
      anyPending: db.prepare<[], { one: number }>(`SELECT 1 AS one FROM deliveries WHERE state = 'pending' LIMIT 1`),
      updateDelivery: db.prepare<[number, string, number | null, string, number]>(
        `UPDATE deliveries SET attempts = ?, state = ?, next_at = ?, last_result = ? WHERE seq = ?`,
      ),
      insertAttempt: db.prepare<[number, number, string, number | null, string, string | null]>(
        `INSERT INTO attempts (delivery_seq, attempt, state, next_at, result, detail) VALUES (?, ?, ?, ?, ?, ?)`,
      ),
      attemptsOf: db.prepare<[number], { attempt: number; state: string; next_at: number | null; result: string; detail: string | null }>(
        `SELECT attempt, state, next_at, result, detail FROM attempts WHERE delivery_seq = ? ORDER BY rowid`,
      ),
      // A COD parcel the courier picked up no longer expires (cod-clock.ts): the buyer pays on delivery.
      due: db.prepare<[number], { id: number }>(
        `SELECT id FROM txns WHERE status = 'pending' AND expires_at <= ? AND NOT EXISTS (SELECT 1 FROM parcel_steps s WHERE s.trx_id = txns.id) ORDER BY expires_at LIMIT 500`,
      ),
      dueSettle: db.prepare<[number], { id: number }>(
        `SELECT id FROM txns WHERE status = 'unsettled' AND coalesce(paid_at, created_at) <= ? ORDER BY paid_at LIMIT 500`,
      ),
      counts: db.prepare<[], { merchant_va: string; status: string; via: string; n: number; net: number }>(`SELECT * FROM txn_counts WHERE n <> 0`),
      insertSession: db.prepare<[string, string, string]>(`INSERT INTO sessions (sid, merchant_va, body) VALUES (?, ?, ?)`),
      session: db.prepare<[string], { body: string }>(`SELECT body FROM sessions WHERE sid = ?`),
      holder: db.prepare<[], { pid: number | null; since: string }>(`SELECT pid, since FROM holder`),
      insertStep: db.prepare<[number, string, number]>(`INSERT INTO parcel_steps (trx_id, stage, at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`),
      // A step of a parcel still on its way (its payment pending); a step already taken is not taken again.
      insertPendingStep: db.prepare<[number, string, number, number]>(
        `INSERT INTO parcel_steps (trx_id, stage, at) SELECT ?, ?, ? WHERE EXISTS (SELECT 1 FROM txns WHERE id = ? AND status = 'pending') ON CONFLICT DO NOTHING`,
      ),
      stepsOf: db.prepare<[number], { stage: string; at: number }>(`SELECT stage, at FROM parcel_steps WHERE trx_id = ? ORDER BY at, rowid`),
      insertPickup: db.prepare<[number, string, string, string, number]>(
        `INSERT INTO pickups (trx_id, date, time, vehicle, requested_at) VALUES (?, ?, ?, ?, ?)`,
      ),
      pickupsOf: db.prepare<[number], PickupRow>(`SELECT * FROM pickups WHERE trx_id = ? ORDER BY id`),
      transferByRef: db.prepare<[string, string], { one: number }>(
        `SELECT 1 AS one FROM transfers WHERE by_va = ? AND reference_id = ? AND reference_id <> ''`,
      ),
      insertTransfer: db.prepare(
        `INSERT INTO transfers (id, by_va, sender, receiver, amount, reference_id, related_id, notes, at)
         VALUES (@id, @by, @sender, @receiver, @amount, @referenceId, @relatedId, @notes, @at) ON CONFLICT DO NOTHING`,
      ),
      takeId: db.prepare(`UPDATE sqlite_sequence SET seq = seq + 1 WHERE name = 'txns'`),
      transferNet: db.prepare<[string, string, string, string], { net: number }>(
        `SELECT coalesce((SELECT sum(amount) FROM transfers WHERE receiver = ? AND sender <> ?), 0) - coalesce((SELECT sum(amount) FROM transfers WHERE sender = ? AND receiver <> ?), 0) AS net`,
      ),
      member: db.prepare<[string], MemberRow>(`SELECT * FROM members WHERE va = ?`),
      memberByEmail: db.prepare<[string], MemberRow>(`SELECT * FROM members WHERE email = ?`),
      memberCount: db.prepare<[], { n: number }>(`SELECT count(*) AS n FROM members`),
      insertMember: db.prepare(
        `INSERT INTO members (seq, va, name, email, phone, parent, website_url, at) VALUES (@seq, @va, @name, @email, @phone, @parent, @websiteUrl, @at)`,
      ),
      dueParcels: db.prepare<[number, number, number, number], { trx_id: number; due_at: number }>(
        `SELECT trx_id, due_at FROM parcel_due WHERE due_at <= ? AND (due_at, trx_id) > (?, ?) ORDER BY due_at, trx_id LIMIT ?`,
      ),
    };
  }

  /** Runs `fn` as one SQLite transaction; a failure rolls all of it back and throws a `StoreError`. */
  write<R>(fn: () => R): R {
    let result: R;
    try {
      result = this.db.transaction(fn).immediate();
    } catch (err) {
      if (err instanceof SessionTaken) throw err;
      if ((err as Error)?.name === 'SqliteError' || (err as { code?: unknown })?.code === 'ENOSPC') throw new StoreError(err, this.path);
      throw err;
    }
    this.onChange?.();
    return result;
  }

  /** Runs `fn` alone for one transaction (a transition is checked and stored before the next one looks). */
  async exclusive<R>(id: number, fn: () => Promise<R>): Promise<R> {
    const prev = this.locks.get(id) ?? Promise.resolve();
    const run = prev.then(fn, fn);
    const tail = run.catch(() => undefined);
    this.locks.set(id, tail);
    try {
      return await run;
    } finally {
      if (this.locks.get(id) === tail) this.locks.delete(id);
    }
  }

  // ---- transactions ----

  /** Inserts a row; returns what the merchant receives of it. Its count is added by the caller (one bump per transaction, or per batch in `bulk`). */
  private insertTxn(t: Transaction): number {
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
      this.stmts.bump.run(t.merchantVa, t.status, t.via, 1, this.insertTxn(t));
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
      this.stmts.setStatus.run(status, statusInfo(status).paid ? at : null, status === 'berhasil' ? at : null, at, id);
      if (before.status !== status) {
        this.stmts.bump.run(before.merchant_va, before.status, before.via, -1, -before.paid_off);
        this.stmts.bump.run(before.merchant_va, status, before.via, 1, before.paid_off);
      }
      if (step) this.stmts.insertStep.run(id, step, at);
      if (before.via === 'cod') this.refreshDue(id);
      return callback ? this.insertDelivery(callback) : undefined;
    });
  }

  private insertDelivery(d: Omit<Delivery, 'id'>, seq: number | null = null): Delivery {
    const { lastInsertRowid } = this.stmts.insertDelivery.run({ ...d, seq, lastResult: d.lastResult ?? null });
    return { ...d, id: `cb-${Number(lastInsertRowid)}` };
  }

  /** A durable setting of the emulator (the clock's offset), or undefined. */
  setting(key: string): string | undefined {
    return this.stmts.getSetting.get(key)?.value;
  }

  /** Stores a setting, committed before it resolves. */
  async setSetting(key: string, value: string): Promise<void> {
    await this.write(() => {
      this.stmts.putSetting.run(key, value);
    });
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
  private narrow(f: TxnFilter): TxnFilter {
    if (f.merchantVa === undefined || this.stmts.counts.all().some((c) => c.merchant_va !== f.merchantVa)) return f;
    const { merchantVa: _m, ...rest } = f;
    return rest;
  }

  /** Counts and net amounts of the transactions matching a filter; `net: false` counts from an index alone where it can. */
  aggregate(f: TxnFilter = {}, { net: withNet = true } = {}): { count: number; net: number } {
    if (!f.ids && f.paidAtMost === undefined && f.paidAfter === undefined && !f.range) {
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
    const { where, params } = whereOf(this.narrow(f));
    const sums = withNet ? 'coalesce(sum(paid_off), 0)' : '0';
    return this.db.prepare(`SELECT count(*) AS count, ${sums} AS net FROM txns ${where}`).get(...params) as { count: number; net: number };
  }

  /** The methods transactions were made with (for the dashboard's filter). */
  methods(): string[] {
    return [...new Set(this.stmts.counts.all().map((c) => c.via))].sort();
  }

  /**
   * A page of transactions in a stable order (the id breaks ties). With a cursor, the page starts
   * after the row the cursor names, so rows are never skipped or repeated while statuses change;
   * with an offset, as the gateway's history pages.
   */
  page(f: TxnFilter, order: TxnOrder, limit: number, from: { cursor?: Cursor; offset?: number } = {}): { rows: Transaction[]; next: Cursor | null } {
    const { where, params } = whereOf(this.narrow(f), from.cursor && { cursor: from.cursor, order });
    const col = ORDER_COLUMN[order.by];
    const dir = order.desc ? 'DESC' : 'ASC';
    const orderBy = order.by === 'id' ? `id ${dir}` : `${col} ${dir}, id ${dir}`;
    // The ids first (from an index alone where the filter allows), then only the page's rows.
    const ids = this.db
      .prepare(`SELECT id FROM txns ${where} ORDER BY ${orderBy} LIMIT ? OFFSET ?`)
      .pluck()
      .all(...params, limit, from.offset ?? 0) as number[];
    const rows = ids.map((id) => this.get(id)!);
    const last = rows.at(-1);
    const next =
      rows.length === limit && last ? { key: order.by === 'id' ? last.id : order.by === 'created' ? last.createdAt : (last.paidAt ?? -1), id: last.id } : null;
    return { rows, next };
  }

  // ---- the outbox ----

  /** Queues a callback on its own (a re-send, or a transition imported without one). */
  async addDelivery(d: Omit<Delivery, 'id'>): Promise<Delivery> {
    return this.write(() => this.insertDelivery(d));
  }

  /** Records an attempt of a delivery and its new state; resolves with the delivery as stored. */
  async recordAttempt(id: string, attempts: number, state: DeliveryState, nextAt: number | null, result: string, detail?: AttemptDetail): Promise<Delivery> {
    const seq = seqOf(id);
    return this.write(() => {
      if (this.stmts.updateDelivery.run(attempts, state, nextAt, result, seq).changes === 0) throw new Error(`no delivery ${id}`);
      this.stmts.insertAttempt.run(seq, attempts, state, nextAt, result, detail ? JSON.stringify(detail) : null);
      return deliveryOf(this.stmts.delivery.get(seq)!);
    });
  }

  delivery(id: string): Delivery | undefined {
    const r = this.stmts.delivery.get(seqOf(id));
    return r && deliveryOf(r);
  }

  /** The callbacks queued for a transaction, oldest first. */
  deliveriesOf(trxId: number): Delivery[] {
    return this.stmts.deliveriesOf.all(trxId).map(deliveryOf);
  }

  /** The callbacks of several transactions (one page of a list), oldest first for each. */
  deliveriesOfMany(trxIds: number[]): Map<number, Delivery[]> {
    const out = new Map<number, Delivery[]>();
    if (trxIds.length === 0) return out;
    const rows = this.db
      .prepare<number[], DeliveryRow>(`SELECT * FROM deliveries WHERE trx_id IN (${trxIds.map(() => '?').join(',')}) ORDER BY seq`)
      .all(...trxIds);
    for (const r of rows) {
      const d = deliveryOf(r);
      const list = out.get(d.trxId);
      if (list) list.push(d);
      else out.set(d.trxId, [d]);
    }
    return out;
  }

  /** Every delivery still to be attempted, soonest first. */
  pendingDeliveries(): Delivery[] {
    return this.stmts.pending.all().map(deliveryOf);
  }

  hasPendingDeliveries(): boolean {
    return this.stmts.anyPending.get() !== undefined;
  }

  /** Every recorded attempt of a delivery, oldest first. */
  attemptsOf(id: string): AttemptInfo[] {
    return this.stmts.attemptsOf.all(seqOf(id)).map((a) => ({
      deliveryId: id,
      attempt: a.attempt,
      state: a.state as DeliveryState,
      nextAt: a.next_at,
      result: a.result,
      ...(a.detail !== null ? { detail: JSON.parse(a.detail) as AttemptDetail } : {}),
    }));
  }

  // ---- redirect sessions ----

  async addSession(s: RedirectSession): Promise<void> {
    this.write(() => this.stmts.insertSession.run(s.sid, s.merchantVa, JSON.stringify(s)));
  }

  session(sid: string): RedirectSession | undefined {
    const r = this.stmts.session.get(sid);
    return r && (JSON.parse(r.body) as RedirectSession);
  }

  // ---- COD parcels (cod-routes.ts) ----

  /** Records a step of a parcel still on its way (its payment pending); false when it was not (paid, expired, or the step taken). */
  async addParcelStep(trxId: number, stage: Exclude<ShipmentStage, 'delivered'>, at: number): Promise<boolean> {
    return this.write(() => {
      if (this.stmts.insertPendingStep.run(trxId, stage, at, trxId).changes === 0) return false;
      this.refreshDue(trxId);
      return true;
    });
  }

  /** A parcel's steps, oldest first (its delivery is stored with the payment's transition). */
  parcelSteps(trxId: number): ShipmentEvent[] {
    return this.stmts.stepsOf.all(trxId).map((r) => ({ stage: r.stage as ShipmentStage, at: r.at }));
  }

  async addPickup(p: PickupRequest): Promise<void> {
    this.write(() => {
      this.stmts.insertPickup.run(p.trxId, p.date, p.time, p.vehicle, p.requestedAt);
      this.refreshDue(p.trxId);
    });
  }

  /**
   * A page of the parcels due on the clock at `at` (their next step's time reached), by due time
   * then id, after `after` (the last of the previous page): from the index of due times alone.
   */
  dueParcels(at: number, after: { at: number; id: number } | undefined, limit: number): { id: number; at: number }[] {
    return this.stmts.dueParcels.all(at, after?.at ?? Number.MIN_SAFE_INTEGER, after?.id ?? 0, limit).map((r) => ({ id: r.trx_id, at: r.due_at }));
  }

  pickupsOf(trxId: number): PickupRequest[] {
    return this.stmts.pickupsOf.all(trxId).map(pickupOf);
  }

  // ---- the Close API (close-api.ts) ----

  /**
   * Stores a balance transfer under the next transaction id, in one SQLite transaction with its
   * checks: a referenceId the caller used before is refused (and a UNIQUE index holds it even
   * so), then `covers` (the sender's balance, read in the same transaction) must hold.
   */
  async addTransfer(t: Omit<Transfer, 'id'>, covers: () => boolean): Promise<Transfer | TransferRefusal> {
    return this.write((): Transfer | TransferRefusal => {
      if (t.referenceId !== '' && this.stmts.transferByRef.get(t.by, t.referenceId)) return 'exists';
      if (!covers()) return 'short';
      this.stmts.takeId.run();
      const id = this.stmts.nextId.get()!.seq;
      const tr: Transfer = { ...t, id };
      if (this.stmts.insertTransfer.run({ ...tr, relatedId: tr.relatedId ?? null }).changes === 0) return 'exists';
      return tr;
    });
  }

  /** What transfers moved to (+) and from (−) a VA. */
  transferNet(va: string): number {
    return this.stmts.transferNet.get(va, va, va, va)!.net;
  }

  /** Every transfer, oldest first (export, tests). */
  transfers(): Transfer[] {
    return this.db.prepare<[], TransferRow>('SELECT * FROM transfers ORDER BY id').all().map(transferOf);
  }

  /** Registers a member; false when its VA or e-mail is taken (nothing stored). */
  async addMember(m: Member): Promise<boolean> {
    return this.write(() => {
      if (this.stmts.member.get(m.va) || this.stmts.memberByEmail.get(m.email)) return false;
      this.stmts.insertMember.run({ ...m, seq: null, websiteUrl: m.websiteUrl ?? null });
      return true;
    });
  }

  member(va: string): Member | undefined {
    const r = this.stmts.member.get(va);
    return r && memberOf(r);
  }

  memberByEmail(email: string): Member | undefined {
    const r = this.stmts.memberByEmail.get(email);
    return r && memberOf(r);
  }

  memberCount(): number {
    return this.stmts.memberCount.get()!.n;
  }

  /** Every parcel step, pickup, transfer and member (export). */
  serviceRecords(): ServiceRecords {
    return {
      steps: this.db
        .prepare<[], { trx_id: number; stage: string; at: number }>('SELECT trx_id, stage, at FROM parcel_steps ORDER BY trx_id, at, rowid')
        .all()
        .map((r) => ({ trxId: r.trx_id, stage: r.stage as ShipmentStage, at: r.at })),
      pickups: this.db.prepare<[], PickupRow>('SELECT * FROM pickups ORDER BY id').all().map(pickupOf),
      transfers: this.transfers(),
      members: this.db.prepare<[], MemberRow>('SELECT * FROM members ORDER BY seq').all().map(memberOf),
    };
  }

  // ---- bulk: seed, import, export, reset ----

  /**
   * Stores many payments with their callbacks in one SQLite transaction (seed, import): all or
   * nothing. A builder gets its id from the sequence, like `addTransaction`.
   */
  bulk(payments: Iterable<SeedPayment | ((id: number) => SeedPayment)>, extra: BulkExtra = {}): number {
    const nextId = () => this.stmts.nextId.get()!.seq + 1;
    // A redirect session is linked to the transaction it became (same sid and merchant).
    const linked = new Map((extra.sessions ?? []).map((s) => [`${s.merchantVa}:${s.sid}`, s]));
    const links: [number, string][] = [];
    return this.write(() => {
      let n = 0;
      const counts = new Map<string, [string, string, string, number, number]>();
      const parcels = new Set<number>();
      for (const p of payments) {
        const { txn, deliveries } = typeof p === 'function' ? p(nextId()) : p;
        const paidOff = this.insertTxn(txn);
        if (txn.via === 'cod' && txn.status === 'pending') parcels.add(txn.id);
        const key = `${txn.merchantVa}\0${txn.status}\0${txn.via}`;
        const c = counts.get(key) ?? counts.set(key, [txn.merchantVa, txn.status, txn.via, 0, 0]).get(key)!;
        c[3]++;
        c[4] += paidOff;
        if (linked.size > 0 && linked.has(`${txn.merchantVa}:${txn.sid}`)) links.push([txn.id, txn.sid]);
        for (const { delivery, attempts } of deliveries ?? []) {
          const { id, ...rest } = delivery;
          const d = this.insertDelivery({ ...rest, trxId: txn.id }, id === undefined ? null : seqOf(id));
          for (const a of attempts)
            this.stmts.insertAttempt.run(seqOf(d.id), a.attempt, a.state, a.nextAt, a.result, a.detail ? JSON.stringify(a.detail) : null);
        }
        n++;
      }
      for (const c of counts.values()) this.stmts.bump.run(...c);
      for (const s of extra.sessions ?? []) this.stmts.insertSession.run(s.sid, s.merchantVa, JSON.stringify(s));
      for (const [id, sid] of links) this.stmts.linkSession.run(id, sid);
      const r = extra.records ?? {};
      for (const st of r.steps ?? []) this.stmts.insertStep.run(st.trxId, st.stage, st.at);
      for (const p of r.pickups ?? []) this.stmts.insertPickup.run(p.trxId, p.date, p.time, p.vehicle, p.requestedAt);
      // The due times of the parcels stored or moved here, from their steps and pickups as stored now.
      for (const x of [...(r.steps ?? []), ...(r.pickups ?? [])]) parcels.add(x.trxId);
      for (const id of parcels) this.refreshDue(id);
      for (const t of r.transfers ?? []) this.stmts.insertTransfer.run({ ...t, relatedId: t.relatedId ?? null });
      for (const m of r.members ?? []) this.stmts.insertMember.run({ ...m, seq: null, websiteUrl: m.websiteUrl ?? null });
      // A transfer's id came from the transactions' sequence: numbering goes on above it.
      const topTransfer = (r.transfers ?? []).reduce((top, t) => Math.max(top, t.id), 0);
      if (topTransfer > 0) this.db.prepare(`UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = 'txns'`).run(topTransfer);
      if (extra.reserve) {
        this.db.prepare(`UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = 'txns'`).run(extra.reserve.txnId);
        this.db.prepare(`UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = 'deliveries'`).run(extra.reserve.deliverySeq);
      }
      if (extra.mark) this.db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)').run(extra.mark, new Date().toISOString());
      for (const [key, value] of Object.entries(extra.settings ?? {})) this.stmts.putSetting.run(key, value);
      return n;
    });
  }

  /**
   * Runs a bulk load (seed, import) on a ledger no emulator serves: commits are not synced one by
   * one (a crash may lose the last batches, never the ledger's consistency: WAL), and the end is a
   * synced checkpoint, so what `fn` stored is durable when this resolves.
   */
  async bulkLoad<R>(fn: () => Promise<R>): Promise<R> {
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('cache_size = -131072');
    this.db.pragma('wal_autocheckpoint = 65536');
    try {
      return await fn();
    } finally {
      this.db.pragma('synchronous = FULL');
      this.db.pragma('cache_size = -2000');
      this.db.pragma('wal_autocheckpoint = 1000');
      this.db.pragma('wal_checkpoint(TRUNCATE)');
    }
  }

  /** Whether a marker was stored by `bulk`. */
  marked(key: string): boolean {
    return this.db.prepare('SELECT 1 FROM meta WHERE key = ?').get(key) !== undefined;
  }

  /** How many transactions match (all of them by default). */
  count(f: TxnFilter = {}): number {
    return this.aggregate(f, { net: false }).count;
  }

  /** Every redirect session (export). */
  sessions(): RedirectSession[] {
    return this.db
      .prepare<[], { body: string }>('SELECT body FROM sessions ORDER BY rowid')
      .all()
      .map((r) => JSON.parse(r.body) as RedirectSession);
  }

  /** Every transaction with its callbacks and their attempts, oldest first, in batches (export). */
  *everything(batch = 1000): Generator<{ txn: Transaction; deliveries: { delivery: Delivery; attempts: AttemptInfo[] }[] }> {
    let after = 0;
    const q = this.db.prepare<[number, number], TxnRow>(`SELECT ${TXN_COLUMNS} FROM txns WHERE id > ? ORDER BY id LIMIT ?`);
    for (;;) {
      const rows = q.all(after, batch);
      for (const r of rows) {
        const deliveries = this.deliveriesOf(r.id).map((delivery) => ({ delivery, attempts: this.attemptsOf(delivery.id) }));
        yield { txn: txnOf(r), deliveries };
      }
      if (rows.length < batch) return;
      after = rows.at(-1)!.id;
    }
  }

  /** Empties the ledger (transactions, callbacks, sessions, parcels' steps and pickups, transfers, members); ids go on from where they were. */
  async reset(): Promise<number> {
    return this.write(() => {
      const n = (this.db.prepare('SELECT count(*) AS n FROM txns').get() as { n: number }).n;
      this.db.exec(
        'DELETE FROM attempts; DELETE FROM deliveries; DELETE FROM parcel_steps; DELETE FROM pickups; DELETE FROM parcel_due; DELETE FROM txns; DELETE FROM sessions; DELETE FROM txn_counts; DELETE FROM transfers; DELETE FROM members;',
      );
      return n;
    });
  }

  /** Transitions without a queued callback of their status (only an imported older journal can have them). */
  unqueued(): Transaction[] {
    return this.db
      .prepare<[], TxnRow>(
        `SELECT ${TXN_COLUMNS} FROM txns t WHERE status <> 'pending' AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.trx_id = t.id AND d.status = t.status)`,
      )
      .all()
      .map(txnOf);
  }

  /** Names this process as the data dir's holder (read by a second emulator to say who holds it). */
  setHolder(pid: number | null): void {
    this.write(() => {
      this.db.prepare('DELETE FROM holder').run();
      if (pid !== null) this.db.prepare('INSERT INTO holder (one, pid, since) VALUES (1, ?, ?)').run(pid, new Date().toISOString());
    });
  }

  holder(): { pid: number | null; since: string } | undefined {
    return this.stmts.holder.get();
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}

/** The WHERE clause of a filter (and of a cursor, for keyset paging). */
function whereOf(f: TxnFilter, after?: { cursor: Cursor; order: TxnOrder }): { where: string; params: (string | number)[] } {
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
  if (after) {
    const op = after.order.desc ? '<' : '>';
    if (after.order.by === 'id') add(`id ${op} ?`, after.cursor.id);
    else add(`(${ORDER_COLUMN[after.order.by]}, id) ${op} (?, ?)`, after.cursor.key, after.cursor.id);
  }
  return { where: terms.length ? `WHERE ${terms.join(' AND ')}` : '', params };
}
