import type { Database } from '../db.js';
import { nextStep } from './cod-clock.js';
import { rebuildDays } from './state-days.js';
import type { ShipmentStage } from './records.js';
import { type PickupRow, pickupOf, TXN_COLUMNS, type TxnRow, txnOf } from './state-rows.js';

const FIRST_ID = 100_001;
/** The span of created time of a row of `txn_spans` (an hour: a day in Jakarta is 24 of them). */
export const SPAN_MS = 3_600_000;

/** The ledger's schema, one step per version (`PRAGMA user_version`). */
export const MIGRATIONS = [
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
  // 5: each first payment's number, in the order they were stored (`paid_seq`, 1, 2, …; none for a row
  // stored paid: seeded, imported, or paid before this version), so that a walk of history pages
  // ordered by paid time knows which rows were paid when it began (state-query.ts, `pageSegments`).
  (db: Database) => {
    db.exec(`
      ALTER TABLE txns ADD COLUMN paid_seq INTEGER;
      CREATE INDEX txns_paid_seq ON txns (paid_seq) WHERE paid_seq IS NOT NULL;
    `);
  },
  // 6: history in paid-time order (`orderBy=indate`) reads its page's rows, not every row (200 ms per page at
  // 1 000 000 payments): a status's paid payments by paid time (a walk's paid segment, a count within paid dates,
  // state-query.ts `pageSegments`), and the gateway's order of an offset page (`page` 2 and up), coalesce(paid_at, -1).
  (db: Database) => {
    db.exec(`
      CREATE INDEX txns_status_paid ON txns (status, paid_at) WHERE paid_at IS NOT NULL;
      CREATE INDEX txns_paid_order ON txns (coalesce(paid_at, -1));
      CREATE INDEX txns_status_paid_order ON txns (status, coalesce(paid_at, -1));
    `);
  },
  // 7: reads that grew with the ledger (timings at 1 000 000 payments: bench/ledger-shapes.js).
  // - A merchant's count within created or paid dates, from an index alone when the ledger has several merchants.
  // - A method's page in id order, or a rare method's in any order, from txns_via (it scanned until the page was full).
  // - The ids created in each hour (`txn_spans`, kept with every insert): a page in id order within created dates
  //   reads from the range's ids, not every row newer than it (or the whole range, sorted).
  // - What transfers moved to and from each VA (`transfer_net`, kept by triggers in the statement that stores or
  //   deletes a transfer, whoever runs it): no sum of all of a VA's transfers.
  // Written to also run on a ledger that has some of it (a test's ledger set back to an older version).
  (db: Database) => {
    db.exec(`
      CREATE INDEX IF NOT EXISTS txns_merchant_created ON txns (merchant_va, created_at, status, via);
      CREATE INDEX IF NOT EXISTS txns_merchant_paid ON txns (merchant_va, paid_at, status, via) WHERE paid_at IS NOT NULL;
      CREATE INDEX IF NOT EXISTS txns_via ON txns (via);
      CREATE TABLE IF NOT EXISTS txn_spans (hour INTEGER PRIMARY KEY, lo INTEGER NOT NULL, hi INTEGER NOT NULL, n INTEGER NOT NULL);
      DELETE FROM txn_spans;
      INSERT INTO txn_spans SELECT created_at / ${SPAN_MS} - (created_at % ${SPAN_MS} < 0), min(id), max(id), count(*) FROM txns GROUP BY 1;
      CREATE TABLE IF NOT EXISTS transfer_net (va TEXT PRIMARY KEY, net INTEGER NOT NULL) WITHOUT ROWID;
      DELETE FROM transfer_net;
      INSERT INTO transfer_net SELECT va, sum(d) FROM (
        SELECT receiver AS va, amount AS d FROM transfers WHERE sender <> receiver
        UNION ALL SELECT sender, -amount FROM transfers WHERE sender <> receiver
      ) GROUP BY va;
      CREATE TRIGGER IF NOT EXISTS transfer_net_in AFTER INSERT ON transfers WHEN new.sender <> new.receiver BEGIN
        INSERT INTO transfer_net (va, net) VALUES (new.receiver, new.amount) ON CONFLICT DO UPDATE SET net = net + excluded.net;
        INSERT INTO transfer_net (va, net) VALUES (new.sender, -new.amount) ON CONFLICT DO UPDATE SET net = net + excluded.net;
      END;
      CREATE TRIGGER IF NOT EXISTS transfer_net_out AFTER DELETE ON transfers WHEN old.sender <> old.receiver BEGIN
        UPDATE transfer_net SET net = net - old.amount WHERE va = old.receiver;
        UPDATE transfer_net SET net = net + old.amount WHERE va = old.sender;
      END;
    `);
  },
  // 8: counts within dates and pages in id order within paid dates (bench/ledger-shapes.js): per Jakarta day of
  // created and of paid time, each merchant's, status's and method's count, net and ids (state-days.ts, `txn_days`),
  // and the payments paid late by paid time (txns_paid_late). Re-runnable: it fills the table from the rows as they
  // stand (~2 s at 1 000 000 payments).
  rebuildDays,
];

/**
 * Sets (or removes) one payment's row of `parcel_due`: a pending COD parcel's next step's time on
 * the clock (cod-clock.ts `nextStep`), from its payment, steps and pickups as stored. Called in the
 * same SQLite transaction as every change that moves it (the payment created, a step, a pickup, a
 * transition, a bulk load), so the clock's sweep trusts it; no row once the payment is not pending.
 */
export function parcelDue(db: Database): (trxId: number) => void {
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
