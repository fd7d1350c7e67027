import type { Database, Statement } from '../db.js';
import type { Member, PickupRequest, ShipmentEvent, ShipmentStage, Transfer } from './records.js';
import { type MemberRow, memberOf, type PickupRow, pickupOf, type TransferRow, transferOf } from './state-rows.js';
import { type SessionStatements, SessionLedger } from './state-sessions.js';
import type { ServiceRecords, TransferRefusal } from './state-types.js';

/** The statements of COD parcels (steps, due times, pickups) and the Close API (transfers, members), with those of the parts below. */
export interface ServiceStatements extends SessionStatements {
  insertPendingStep: Statement<[number, string, number, number]>;
  stepsOf: Statement<[number], { stage: string; at: number }>;
  insertPickup: Statement<[number, string, string, string, number]>;
  pickupsOf: Statement<[number], PickupRow>;
  transferByRef: Statement<[string, string], { one: number }>;
  insertTransfer: Statement;
  takeId: Statement;
  transferNet: Statement<[string], { net: number }>;
  member: Statement<[string], MemberRow>;
  memberByEmail: Statement<[string], MemberRow>;
  memberCount: Statement<[], { n: number }>;
  insertMember: Statement;
  dueParcels: Statement<[number, number, number, number], { trx_id: number; due_at: number }>;
}

function prepareServices(db: Database): Omit<ServiceStatements, keyof SessionStatements> {
  return {
    // A step of a parcel still on its way (its payment pending); a step already taken is not taken again.
    insertPendingStep: db.prepare<[number, string, number, number]>(
      `INSERT INTO parcel_steps (trx_id, stage, at) SELECT ?, ?, ? WHERE EXISTS (SELECT 1 FROM txns WHERE id = ? AND status = 'pending') ON CONFLICT DO NOTHING`,
    ),
    stepsOf: db.prepare<[number], { stage: string; at: number }>(`SELECT stage, at FROM parcel_steps WHERE trx_id = ? ORDER BY at, rowid`),
    insertPickup: db.prepare<[number, string, string, string, number]>(
      `INSERT INTO pickups (trx_id, date, time, vehicle, requested_at) VALUES (?, ?, ?, ?, ?)`,
    ),
    pickupsOf: db.prepare<[number], PickupRow>(`SELECT * FROM pickups WHERE trx_id = ? ORDER BY id`),
    transferByRef: db.prepare<[string, string], { one: number }>(`SELECT 1 AS one FROM transfers WHERE by_va = ? AND reference_id = ? AND reference_id <> ''`),
    insertTransfer: db.prepare(
      `INSERT INTO transfers (id, by_va, sender, receiver, amount, reference_id, related_id, notes, at)
         VALUES (@id, @by, @sender, @receiver, @amount, @referenceId, @relatedId, @notes, @at) ON CONFLICT DO NOTHING`,
    ),
    takeId: db.prepare(`UPDATE sqlite_sequence SET seq = seq + 1 WHERE name = 'txns'`),
    // What transfers moved to and from each VA, kept by triggers on transfers (state-schema.ts, 7): it summed all of a VA's transfers.
    transferNet: db.prepare<[string], { net: number }>(`SELECT coalesce((SELECT net FROM transfer_net WHERE va = ?), 0) AS net`),
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

/** COD parcels' steps and pickups (cod-routes.ts), the Close API's transfers and members (close-api.ts). */
export class ServiceLedger extends SessionLedger {
  declare protected readonly stmts: ServiceStatements;

  protected constructor(db: Database, path: string) {
    super(db, path);
    this.stmts = { ...this.stmts, ...prepareServices(db) };
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
      if (!this.storeTransfer(tr)) return 'exists';
      return tr;
    });
  }

  /** Inserts a transfer (false: its id or its caller's referenceId is taken); `transfer_net` moves with it (a trigger). */
  protected storeTransfer(t: Transfer): boolean {
    return this.stmts.insertTransfer.run({ ...t, relatedId: t.relatedId ?? null }).changes > 0;
  }

  /** What transfers moved to (+) and from (−) a VA. */
  transferNet(va: string): number {
    return this.stmts.transferNet.get(va)!.net;
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
}
