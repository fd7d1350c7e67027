import type { Database, Statement } from '../db.js';
import { type DeliveryRow, deliveryOf, seqOf } from './state-rows.js';
import { type SettingsStatements, SettingsLedger } from './state-settings.js';
import type { AttemptDetail, AttemptInfo, Delivery, DeliveryState } from './state-types.js';

/** The statements of the callback outbox: deliveries and their attempts, with those of the parts below. */
export interface CallbackStatements extends SettingsStatements {
  insertDelivery: Statement;
  delivery: Statement<[number], DeliveryRow>;
  deliveriesOf: Statement<[number], DeliveryRow>;
  pending: Statement<[], DeliveryRow>;
  anyPending: Statement<[], { one: number }>;
  updateDelivery: Statement<[number, string, number | null, string, number]>;
  insertAttempt: Statement<[number, number, string, number | null, string, string | null]>;
  attemptsOf: Statement<[number], { attempt: number; state: string; next_at: number | null; result: string; detail: string | null }>;
}

function prepareCallbacks(db: Database): Omit<CallbackStatements, keyof SettingsStatements> {
  return {
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
  };
}

/** The callback outbox: each delivery (a transition to send) and its recorded attempts. */
export class CallbackLedger extends SettingsLedger {
  declare protected readonly stmts: CallbackStatements;

  protected constructor(db: Database, path: string) {
    super(db, path);
    this.stmts = { ...this.stmts, ...prepareCallbacks(db) };
  }

  protected insertDelivery(d: Omit<Delivery, 'id'>, seq: number | null = null): Delivery {
    const { lastInsertRowid } = this.stmts.insertDelivery.run({ ...d, seq, lastResult: d.lastResult ?? null });
    return { ...d, id: `cb-${Number(lastInsertRowid)}` };
  }

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
}
