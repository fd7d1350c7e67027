import type { SandboxAccount } from './accounts.js';
import type { Outbox } from './outbox.js';
import type { ShipmentStage } from './records.js';
import { StoreError, type SandboxState, type Transaction } from './state.js';
import { refusal, statusInfo, targetOf, type Action, type StatusKey } from '../statuses.js';

/** With deferred settlement, a paid transaction settles one day after payment (on the clock). */
export const DEFERRED_SETTLEMENT_MS = 86_400_000;

export interface TransitionEvent {
  type: 'transition';
  trxId: number;
  from: string;
  to: string;
  by: 'buyer' | 'admin' | 'clock';
  action?: Action;
}

/** The ledger could not take a change (a full disk): it was answered 503 and nothing changed. */
export interface StoreErrorEvent {
  type: 'store-error';
  message: string;
}

export type TransitionResult = { ok: true; txn: Transaction; changed: boolean } | { ok: false; status: number; message: string; txn?: Transaction };

export type ResendResult =
  | { ok: true; txn: Transaction; deliveryId: string; queued: boolean }
  | { ok: false; status: number; message: string; txn?: Transaction };

export interface TransitionDeps {
  state: SandboxState;
  outbox: Outbox;
  now(): Date;
  /** How a paid payment settles: at once (1) or a day later (6, then 1). */
  settlement?: 'immediate' | 'deferred';
  /** The callback body format of the payment's merchant. */
  formatOf(t: Transaction): SandboxAccount['callbackFormat'];
  emit(e: TransitionEvent | StoreErrorEvent): void;
}

/**
 * A payment's life after it is created, by the table of statuses.ts: pending → paid (berhasil, or 6
 * with deferred settlement, or 7 escrow), expired, cancelled, failed, error; paid → refund; 6 → 1
 * (settle); 7 → paid (release). Each change is stored together with its callback (one SQLite transaction),
 * and only then the callback's delivery started. Callers: the buyer's pages, the admin API, the
 * clock (expiry, deferred settlement) and the redirect flow.
 */
export class Transitions {
  constructor(private readonly d: TransitionDeps) {}

  /** Transition → store (status, callback and the parcel step making it, in one transaction) → deliver. `at`: when it happened on the clock (now by default). */
  private async change(t: Transaction, to: StatusKey, by: TransitionEvent['by'], action: Action, step?: ShipmentStage, at?: number): Promise<void> {
    const { state, outbox, now, formatOf, emit } = this.d;
    const from = t.status;
    const d = await state.transition(t.id, to, at ?? now().getTime(), outbox.entry(t, to, formatOf(t)), step);
    emit({ type: 'transition', trxId: t.id, from, to, by, action });
    if (d) outbox.start(d);
  }

  /**
   * Whether a pending payment's expiry no longer applies: a COD parcel the courier picked up is paid
   * at the door, whenever it gets there (cod-clock.ts). The ledger's expiry sweep skips them too.
   */
  private onItsWay(t: Transaction): boolean {
    return t.via === 'cod' && this.d.state.parcelSteps(t.id).length > 0;
  }

  /**
   * An action (pay, cancel, refund…), checked and stored while no other transition of the same
   * payment runs; `step`: the COD parcel step that makes it, `at`: when on the clock (now by default).
   */
  transition(txn: Transaction, action: Action, by: TransitionEvent['by'], step?: ShipmentStage, at?: number): Promise<TransitionResult> {
    const { state, now } = this.d;
    return state.exclusive(txn.id, async (): Promise<TransitionResult> => {
      // As stored now (another transition may have run since the caller read it).
      const current = () => state.get(txn.id) ?? txn;
      let t = current();
      // A pending payment past its expiry is expired first (once), whatever is asked.
      if (t.status === 'pending' && action !== 'expire' && t.expiresAt <= now().getTime() && !this.onItsWay(t)) {
        await this.change(t, 'expired', 'clock', 'expire');
        t = current();
      }
      const to = targetOf(action, { escrow: t.escrow, settlement: this.d.settlement });
      if (t.status === to || (action === 'pay' && statusInfo(t.status).paid)) return { ok: true, txn: t, changed: false };
      const refused =
        action === 'expire' && t.status === 'pending' && this.onItsWay(t)
          ? `transaction ${t.id} cannot expire: its COD parcel was picked up and the buyer pays on delivery`
          : refusal(action, t.status, t.id);
      if (refused) return { ok: false, status: 409, message: refused, txn: t };
      await this.change(t, to, by, action, step, at);
      return { ok: true, txn: current(), changed: true };
    });
  }

  /** An action on the payment with this id or payment number; a full disk is a 503, nothing changed. */
  async act(id: string, action: Action, by: TransitionEvent['by'], step?: ShipmentStage, at?: number): Promise<TransitionResult> {
    const t = this.d.state.find(id);
    if (!t) return { ok: false, status: 404, message: `no transaction with id or payment number "${id}"` };
    try {
      return await this.transition(t, action, by, step, at);
    } catch (err) {
      return this.unstored(err, t);
    }
  }

  /**
   * Re-sends a transaction's callback now: a delivery waiting for its next retry is attempted at
   * once; otherwise (delivered, or given up) a new delivery of the current status is stored and
   * sent, with the usual retries.
   */
  async resend(id: string, to?: string): Promise<ResendResult> {
    const { state, outbox, formatOf } = this.d;
    const t = state.find(id);
    if (!t) return { ok: false, status: 404, message: `no transaction with id or payment number "${id}"` };
    if (t.status === 'pending')
      return { ok: false, status: 409, message: `transaction ${t.id} is pending: it has no callback to send until it is paid or expires`, txn: t };
    if (to !== undefined && !/^https?:\/\/\S+$/.test(to)) return { ok: false, status: 400, message: `invalid URL "${to}": http:// or https:// expected` };
    try {
      return await state.exclusive(t.id, async (): Promise<ResendResult> => {
        const waiting = to === undefined ? state.deliveriesOf(t.id).find((d) => d.state === 'pending' && d.status === t.status) : undefined;
        if (waiting) {
          outbox.sendNow(waiting);
          return { ok: true, txn: t, deliveryId: waiting.id, queued: false };
        }
        const entry = outbox.entry(t, t.status, formatOf(t));
        const d = await state.addDelivery(to === undefined ? entry : { ...entry, url: to });
        outbox.start(d);
        return { ok: true, txn: t, deliveryId: d.id, queued: true };
      });
    } catch (err) {
      return this.unstored(err, t);
    }
  }

  /** Expires every pending payment whose expiry has passed on the clock; returns how many. */
  async expireDue(): Promise<number> {
    const at = this.d.now().getTime();
    let n = 0;
    for (;;) {
      // Batches from the index of pending payments by expiry: a sweep never walks the history.
      const due = this.d.state.dueForExpiry(at);
      let changed = 0;
      for (const t of due) {
        const r = await this.transition(t, 'expire', 'clock');
        if (r.ok && r.changed) changed++;
      }
      n += changed;
      if (changed === 0) return n;
    }
  }

  /** Settles every paid-unsettled payment (6) a day after its payment on the clock; returns how many. */
  async settleDue(): Promise<number> {
    const at = this.d.now().getTime();
    let n = 0;
    for (;;) {
      const due = this.d.state.dueForSettlement(at - DEFERRED_SETTLEMENT_MS);
      let changed = 0;
      for (const t of due) {
        const r = await this.transition(t, 'settle', 'clock');
        if (r.ok && r.changed) changed++;
      }
      n += changed;
      if (changed === 0) return n;
    }
  }

  /**
   * Moves every COD parcel the clock has reached (cod-routes.ts `moveDueParcels`, through the same
   * code path as `sandbox ship|deliver`); set where the courier's side is wired (service-deps.ts).
   */
  moveParcels?: () => Promise<number>;
  private running: Promise<unknown> = Promise.resolve();
  private queued?: Promise<{ parcels: number; expired: number; settled: number }>;

  /**
   * Everything the clock makes due: COD parcels' steps (a pickup due before an expiry happens
   * first), expiry, then deferred settlement. One run at a time (the sweep, a clock move and the
   * merchant API all call it), so what is due is applied in that order; callers that ask while a
   * run waits to start share it (it starts after they asked).
   */
  runDue(): Promise<{ parcels: number; expired: number; settled: number }> {
    if (this.queued) return this.queued;
    const run = this.running.then(async () => {
      this.queued = undefined;
      return { parcels: (await this.moveParcels?.()) ?? 0, expired: await this.expireDue(), settled: await this.settleDue() };
    });
    this.queued = run;
    this.running = run.catch(() => undefined);
    return run;
  }

  private unstored(err: unknown, t: Transaction): { ok: false; status: number; message: string; txn: Transaction } {
    if (!(err instanceof StoreError)) throw err;
    this.d.emit({ type: 'store-error', message: err.message });
    return { ok: false, status: 503, message: `${err.message}; nothing changed, try again`, txn: t };
  }
}
