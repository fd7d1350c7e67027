import type { Database } from '../db.js';
import { seqOf, TXN_COLUMNS, type TxnRow, txnOf } from './state-rows.js';
import { ServiceLedger } from './state-services.js';
import { type AttemptInfo, type BulkExtra, type Delivery, memberNumber, type SeedPayment, StoreError, type Transaction } from './state-types.js';

/** Bulk loads (seed, import), the export's reading of everything, and reset. */
export class BulkLedger extends ServiceLedger {
  protected constructor(db: Database, path: string) {
    super(db, path);
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
      const tally = this.dayTally();
      for (const p of payments) {
        const { txn, deliveries } = typeof p === 'function' ? p(nextId()) : p;
        const paidOff = this.insertTxn(txn, tally);
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
      tally.flush();
      for (const s of extra.sessions ?? []) this.stmts.insertSession.run(s.sid, s.merchantVa, JSON.stringify(s));
      for (const [id, sid] of links) this.stmts.linkSession.run(id, sid);
      const r = extra.records ?? {};
      for (const st of r.steps ?? []) this.stmts.insertStep.run(st.trxId, st.stage, st.at);
      for (const p of r.pickups ?? []) this.stmts.insertPickup.run(p.trxId, p.date, p.time, p.vehicle, p.requestedAt);
      // The due times of the parcels stored or moved here, from their steps and pickups as stored now.
      for (const x of [...(r.steps ?? []), ...(r.pickups ?? [])]) parcels.add(x.trxId);
      for (const id of parcels) this.refreshDue(id);
      for (const t of r.transfers ?? []) this.storeTransfer(t);
      // A member keeps the number its VA was made from (the ledger's sequence then reads as it did where it was exported).
      for (const m of r.members ?? []) this.stmts.insertMember.run({ ...m, seq: memberNumber(m.va), websiteUrl: m.websiteUrl ?? null });
      // A transfer's id came from the transactions' sequence: numbering goes on above it.
      const topTransfer = (r.transfers ?? []).reduce((top, t) => Math.max(top, t.id), 0);
      if (topTransfer > 0) this.db.prepare(`UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = 'txns'`).run(topTransfer);
      if (extra.reserve) {
        this.db.prepare(`UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = 'txns'`).run(extra.reserve.txnId);
        this.db.prepare(`UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = 'deliveries'`).run(extra.reserve.deliverySeq);
        // Members' row appears with the first member: made here when the ledger has had none.
        const members = extra.reserve.memberSeq ?? 0;
        if (members > 0) {
          this.db
            .prepare(`INSERT INTO sqlite_sequence (name, seq) SELECT 'members', 0 WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'members')`)
            .run();
          this.db.prepare(`UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = 'members'`).run(members);
        }
      }
      if (extra.mark) this.db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)').run(extra.mark, new Date().toISOString());
      for (const [key, value] of Object.entries(extra.settings ?? {})) this.stmts.putSetting.run(key, value);
      return n;
    });
  }

  /**
   * The ledger's numbers that are never handed out twice, as they stand (what an export carries):
   * the last transaction id (payment numbers and Close API transfer ids derive from it) and the
   * last callback's (`cb-N`) and the last Close API member's (its VA's number). A reset keeps them;
   * an import raises the ledger's to them.
   */
  idFloors(): { txnId: number; deliverySeq: number; memberSeq: number } {
    const seq = this.db.prepare<[string], { seq: number }>('SELECT seq FROM sqlite_sequence WHERE name = ?');
    return { txnId: seq.get('txns')?.seq ?? 0, deliverySeq: seq.get('deliveries')?.seq ?? 0, memberSeq: seq.get('members')?.seq ?? 0 };
  }

  /** What the ledger holds besides its settings: transactions, redirect sessions, transfers, members (an import needs all four at 0). */
  holdings(): { transactions: number; sessions: number; transfers: number; members: number } {
    const n = (table: string) => (this.db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    return { transactions: n('txns'), sessions: n('sessions'), transfers: n('transfers'), members: n('members') };
  }

  /** The merchant VA of the newest transaction (the merchant the data dir was last used with), if any. */
  newestMerchant(): string | undefined {
    return (this.db.prepare('SELECT merchant_va AS va FROM txns ORDER BY id DESC LIMIT 1').get() as { va: string } | undefined)?.va;
  }

  /**
   * Runs a bulk load (seed, import) on a ledger no emulator serves: commits are not synced one by
   * one (a crash may lose the last batches, never the ledger's consistency: WAL), and the end is a
   * synced checkpoint, so what `fn` stored is durable when this resolves. When `fn` failed, its
   * error is the one thrown: the settings are put back as far as they can be (on a full disk the
   * checkpoint may fail too), never hiding why the load failed. When `fn` succeeded but the
   * checkpoint cannot copy the log into the database (a disk with room for the log only), the load
   * stays committed in `ledger.db-wal` (synced by the checkpoint before it copies): `onUncopied`
   * hears why, and SQLite copies it at a later checkpoint.
   */
  async bulkLoad<R>(fn: () => Promise<R>, onUncopied?: (err: StoreError) => void): Promise<R> {
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('cache_size = -131072');
    this.db.pragma('wal_autocheckpoint = 65536');
    let failed = false;
    try {
      return await fn();
    } catch (err) {
      failed = true;
      throw err;
    } finally {
      let uncopied: unknown;
      for (const p of ['synchronous = FULL', 'cache_size = -2000', 'wal_autocheckpoint = 1000', 'wal_checkpoint(TRUNCATE)'])
        try {
          this.db.pragma(p);
        } catch (err) {
          uncopied ??= err;
        }
      // After a failed load its own error says what went wrong; after a committed one, only the copy failed.
      if (uncopied !== undefined && !failed) onUncopied?.(new StoreError(uncopied, this.path));
    }
  }

  /** Whether a marker was stored by `bulk`. */
  marked(key: string): boolean {
    return this.db.prepare('SELECT 1 FROM meta WHERE key = ?').get(key) !== undefined;
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

  /** Transitions without a queued callback of their status (only an imported older journal can have them). */
  unqueued(): Transaction[] {
    return this.db
      .prepare<[], TxnRow>(
        `SELECT ${TXN_COLUMNS} FROM txns t WHERE status <> 'pending' AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.trx_id = t.id AND d.status = t.status)`,
      )
      .all()
      .map(txnOf);
  }

  /** Empties the ledger (transactions, callbacks, sessions, parcels' steps and pickups, transfers, members); ids go on from where they were. */
  async reset(): Promise<number> {
    return this.write(() => {
      const n = (this.db.prepare('SELECT count(*) AS n FROM txns').get() as { n: number }).n;
      this.db.exec(
        'DELETE FROM attempts; DELETE FROM deliveries; DELETE FROM parcel_steps; DELETE FROM pickups; DELETE FROM parcel_due; DELETE FROM txns; DELETE FROM sessions; DELETE FROM txn_counts; DELETE FROM txn_spans; DELETE FROM txn_days; DELETE FROM transfers; DELETE FROM transfer_net; DELETE FROM members;',
      );
      return n;
    });
  }
}
