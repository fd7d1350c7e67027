import type { SandboxAccount } from './accounts.js';
import { Outbox } from './outbox.js';
import type { ShipmentStage } from './records.js';
import { StoreError, type SandboxState, type Transaction } from './state.js';

export interface TransitionEvent {
  type: 'transition';
  trxId: number;
  from: string;
  to: string;
  by: 'buyer' | 'admin' | 'clock';
}

/** The ledger could not take a change (a full disk): it was answered 503 and nothing changed. */
export interface StoreErrorEvent {
  type: 'store-error';
  message: string;
}

export type TransitionResult = { ok: true; txn: Transaction; changed: boolean } | { ok: false; status: number; message: string; txn?: Transaction };

export type ResendResult = { ok: true; txn: Transaction; deliveryId: string; queued: boolean } | { ok: false; status: number; message: string; txn?: Transaction };

export interface TransitionDeps {
  state: SandboxState;
  outbox: Outbox;
  now(): Date;
  /** The callback body format of the payment's merchant. */
  formatOf(t: Transaction): SandboxAccount['callbackFormat'];
  emit(e: TransitionEvent | StoreErrorEvent): void;
}

/**
 * A payment's life after it is created: pending → paid (berhasil) or expired, each change stored
 * together with its callback (one SQLite transaction), and only then the callback's delivery started. Callers:
 * the buyer's payment page, the admin API, the expiry clock, and the redirect flow.
 */
export class Transitions {
  constructor(private readonly d: TransitionDeps) {}

  /** Transition → store (status, callback and the parcel step making it, in one transaction) → deliver. */
  private async change(t: Transaction, to: 'berhasil' | 'expired', by: TransitionEvent['by'], step?: ShipmentStage): Promise<void> {
    const { state, outbox, now, formatOf, emit } = this.d;
    const from = t.status;
    const d = await state.transition(t.id, to, now().getTime(), Outbox.entry(t, to, formatOf(t)), step);
    emit({ type: 'transition', trxId: t.id, from, to, by });
    if (d) outbox.start(d);
  }

  /** A transition, checked and stored while no other transition of the same payment runs; `step`: the COD parcel step that makes it. */
  transition(txn: Transaction, to: 'berhasil' | 'expired', by: TransitionEvent['by'], step?: ShipmentStage): Promise<TransitionResult> {
    const { state, now } = this.d;
    return state.exclusive(txn.id, async (): Promise<TransitionResult> => {
      // As stored now (another transition may have run since the caller read it).
      const current = () => state.get(txn.id) ?? txn;
      let t = current();
      if (t.status === 'pending' && to === 'berhasil' && t.expiresAt <= now().getTime()) {
        await this.change(t, 'expired', 'clock');
        t = current();
      }
      if (t.status === to) return { ok: true, txn: t, changed: false };
      if (t.status !== 'pending') {
        const message = t.status === 'expired' ? `transaction ${t.id} has expired and cannot be paid` : `transaction ${t.id} is already paid and cannot expire`;
        return { ok: false, status: 409, message, txn: t };
      }
      await this.change(t, to, by, step);
      return { ok: true, txn: current(), changed: true };
    });
  }

  /** A transition of the payment with this id or payment number; a full disk is a 503, nothing changed. */
  async act(id: string, to: 'berhasil' | 'expired', by: TransitionEvent['by'], step?: ShipmentStage): Promise<TransitionResult> {
    const t = this.d.state.find(id);
    if (!t) return { ok: false, status: 404, message: `no transaction with id or payment number "${id}"` };
    try {
      return await this.transition(t, to, by, step);
    } catch (err) {
      return this.unstored(err, t);
    }
  }

  /**
   * Re-sends a transaction's callback now: a delivery waiting for its next retry is attempted at
   * once; otherwise (delivered, or given up) a new delivery of the current status is stored and
   * sent, with the usual retries.
   */
  async resend(id: string): Promise<ResendResult> {
    const { state, outbox, formatOf } = this.d;
    const t = state.find(id);
    if (!t) return { ok: false, status: 404, message: `no transaction with id or payment number "${id}"` };
    if (t.status === 'pending') return { ok: false, status: 409, message: `transaction ${t.id} is pending: it has no callback to send until it is paid or expires`, txn: t };
    try {
      return await state.exclusive(t.id, async (): Promise<ResendResult> => {
        const waiting = state.deliveriesOf(t.id).find((d) => d.state === 'pending' && d.status === t.status);
        if (waiting) {
          outbox.sendNow(waiting);
          return { ok: true, txn: t, deliveryId: waiting.id, queued: false };
        }
        const d = await state.addDelivery(Outbox.entry(t, t.status as 'berhasil' | 'expired', formatOf(t)));
        outbox.start(d);
        return { ok: true, txn: t, deliveryId: d.id, queued: true };
      });
    } catch (err) {
      return this.unstored(err, t);
    }
  }

  /** Expires every pending payment whose expiry has passed on the business clock; returns how many. */
  async expireDue(): Promise<number> {
    const at = this.d.now().getTime();
    let n = 0;
    for (;;) {
      // Batches from the index of pending payments by expiry: a sweep never walks the history.
      const due = this.d.state.dueForExpiry(at);
      let changed = 0;
      for (const t of due) {
        const r = await this.transition(t, 'expired', 'clock');
        if (r.ok && r.changed) changed++;
      }
      n += changed;
      if (changed === 0) return n;
    }
  }

  private unstored(err: unknown, t: Transaction): { ok: false; status: number; message: string; txn: Transaction } {
    if (!(err instanceof StoreError)) throw err;
    this.d.emit({ type: 'store-error', message: err.message });
    return { ok: false, status: 503, message: `${err.message}; nothing changed, try again`, txn: t };
  }
}
