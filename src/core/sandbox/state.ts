import { join } from 'node:path';
import { SandboxLog } from './log.js';
import type { Member, PickupRequest, ShipmentEvent, ShipmentStage, Transfer } from './records.js';

export type TxnStatus = 'pending' | 'berhasil' | 'expired';

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
  /** Epoch milliseconds. */
  createdAt: number;
  expiresAt: number;
  paidAt?: number;
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

/** One journalled attempt of a delivery; `detail` is absent in journals of older versions. */
export interface AttemptInfo {
  deliveryId: string;
  attempt: number;
  state: DeliveryState;
  nextAt: number | null;
  result: string;
  detail?: AttemptDetail;
}

export type JournalRecord =
  | { t: 'txn'; txn: Transaction }
  /** Ids below `upTo` may have been handed out; after a restart numbering goes on above it. */
  | { t: 'ids'; upTo: number }
  /** A transition and, in the same record, the callback it queues. */
  | { t: 'status'; id: number; status: TxnStatus; at: number; d?: Delivery }
  | { t: 'delivery'; d: Delivery }
  | { t: 'attempt'; id: string; attempts: number; state: DeliveryState; nextAt: number | null; result: string; a?: AttemptDetail }
  /** A COD parcel's step (cod-api.ts), and a pickup request. */
  | { t: 'ship'; id: number; stage: ShipmentStage; at: number }
  | { t: 'pickup'; p: PickupRequest }
  /** The Close API's balance transfers and registered members (close-api.ts). */
  | { t: 'transfer'; tr: Transfer }
  | { t: 'member'; m: Member };

/** Ids are reserved in durable blocks of this size (see `reserveId`). */
export const ID_BLOCK = 1000;
const FIRST_ID = 100_001;

const STATUSES = new Set(['pending', 'berhasil', 'expired']);
const DELIVERY_STATES = new Set(['pending', 'delivered', 'failed']);
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isInt = (v: unknown): v is number => Number.isSafeInteger(v);
const isStr = (v: unknown): v is string => typeof v === 'string';

function validTxn(t: unknown): t is Transaction {
  return isObj(t) && isInt(t.id) && t.id > 0 && isStr(t.merchantVa) && isStr(t.via) && isStr(t.channel) && isStr(t.paymentNo) && isInt(t.amount) && isInt(t.fee) &&
    isStr(t.status) && STATUSES.has(t.status) && isInt(t.createdAt) && isInt(t.expiresAt) && isStr(t.notifyUrl) && isObj(t.buyer) && Array.isArray(t.items);
}

function validDelivery(d: unknown): d is Delivery {
  return isObj(d) && isStr(d.id) && /^cb-\d+$/.test(d.id) && isInt(d.trxId) && isStr(d.status) && STATUSES.has(d.status) && isStr(d.url) &&
    (d.format === 'form' || d.format === 'json') && isInt(d.attempts) && isStr(d.state) && DELIVERY_STATES.has(d.state) && (d.nextAt === null || isInt(d.nextAt));
}

function validDetail(a: unknown): a is AttemptDetail {
  return isObj(a) && isInt(a.at) && isStr(a.url) && isObj(a.headers) && Object.values(a.headers).every(isStr) && isStr(a.body) &&
    (a.httpStatus === null || isInt(a.httpStatus)) && (a.ms === null || typeof a.ms === 'number') && isStr(a.answer) && (a.truncated === undefined || typeof a.truncated === 'boolean') &&
    (a.duplicate === undefined || typeof a.duplicate === 'boolean');
}

/** Whether a journal line holds a record this version can apply (anything else is counted and skipped). */
export function validRecord(r: unknown): r is JournalRecord {
  if (!isObj(r)) return false;
  switch (r.t) {
    case 'txn':
      return validTxn(r.txn);
    case 'ids':
      return isInt(r.upTo) && r.upTo > 0;
    case 'status':
      return isInt(r.id) && isStr(r.status) && STATUSES.has(r.status) && isInt(r.at) && (r.d === undefined || validDelivery(r.d));
    case 'delivery':
      return validDelivery(r.d);
    case 'attempt':
      return isStr(r.id) && isInt(r.attempts) && isStr(r.state) && DELIVERY_STATES.has(r.state) && (r.nextAt === null || isInt(r.nextAt)) && isStr(r.result) && (r.a === undefined || validDetail(r.a));
    case 'ship':
      return isInt(r.id) && isStr(r.stage) && ['picked_up', 'in_transit', 'delivered'].includes(r.stage) && isInt(r.at);
    case 'pickup':
      return isObj(r.p) && isInt(r.p.trxId) && isStr(r.p.date) && isStr(r.p.time) && isStr(r.p.vehicle) && isInt(r.p.requestedAt);
    case 'transfer':
      return isObj(r.tr) && isInt(r.tr.id) && isStr(r.tr.by) && isStr(r.tr.sender) && isStr(r.tr.receiver) && isInt(r.tr.amount) && r.tr.amount > 0 && isStr(r.tr.referenceId) && isStr(r.tr.notes) && isInt(r.tr.at);
    case 'member':
      return isObj(r.m) && isStr(r.m.va) && isStr(r.m.name) && isStr(r.m.email) && isStr(r.m.phone) && isStr(r.m.parent) && isInt(r.m.at);
    default:
      return false;
  }
}

/**
 * The emulator's state: transactions and the callback outbox, in memory, journalled to
 * `DATA_DIR/journal.jsonl` when a data dir is given. Every change is written first and applied to
 * memory only once the journal has it, so a failed write (a full disk) changes nothing and the
 * caller answers 503; nothing is acknowledged that a restart would not find.
 */
export class SandboxState {
  readonly txns = new Map<number, Transaction>();
  readonly deliveries = new Map<string, Delivery>();
  /** Every journalled attempt, by delivery id, oldest first. */
  readonly attempts = new Map<string, AttemptInfo[]>();
  /** COD parcels' steps and pickup requests, by transaction id, oldest first. */
  readonly shipments = new Map<number, ShipmentEvent[]>();
  readonly pickups = new Map<number, PickupRequest[]>();
  /** The Close API's transfers (oldest first) and registered members by VA. */
  readonly transfers: Transfer[] = [];
  readonly members = new Map<string, Member>();
  /** Called after every change is journalled and applied (the dashboard's live updates). */
  onChange?: () => void;
  private log?: SandboxLog<JournalRecord>;
  private nextId = FIRST_ID;
  /** Ids below this are covered by a durable reservation. */
  private reservedUpTo = FIRST_ID;
  private reserving?: Promise<void>;
  private deliverySeq = 0;
  private locks = new Map<number, Promise<unknown>>();
  /** Unreadable or unknown journal lines skipped on load (a torn line after a crash, a hand edit). */
  skipped = 0;
  /** Transitions found on load without a queued callback (journals of older versions); queued now. */
  reconciled = 0;

  static async open(dataDir?: string, log?: SandboxLog<JournalRecord>): Promise<SandboxState> {
    const s = new SandboxState();
    if (dataDir || log) {
      s.log = log ?? new SandboxLog<JournalRecord>(join(dataDir!, 'journal.jsonl'));
      let highest = FIRST_ID;
      const unreadable = await s.log.scan((r) => {
        if (!validRecord(r)) {
          s.skipped++;
          return;
        }
        s.apply(r);
        if (r.t === 'ids') highest = Math.max(highest, r.upTo);
      });
      s.skipped += unreadable;
      // Never hand out an id that may have been answered before: go on above every reservation.
      s.nextId = Math.max(s.nextId, highest);
      s.reservedUpTo = s.nextId;
      await s.log.open();
    }
    return s;
  }

  private apply(r: JournalRecord): void {
    switch (r.t) {
      case 'txn':
        this.txns.set(r.txn.id, r.txn);
        this.nextId = Math.max(this.nextId, r.txn.id + 1);
        break;
      case 'ids':
        break;
      case 'status': {
        const t = this.txns.get(r.id);
        if (t) {
          t.status = r.status;
          if (r.status === 'berhasil') t.paidAt = r.at;
          t.endedAt = r.at;
        }
        if (r.d) this.applyDelivery(r.d);
        break;
      }
      case 'delivery':
        this.applyDelivery(r.d);
        break;
      case 'ship':
        this.shipments.set(r.id, [...(this.shipments.get(r.id) ?? []), { stage: r.stage, at: r.at }]);
        break;
      case 'pickup':
        this.pickups.set(r.p.trxId, [...(this.pickups.get(r.p.trxId) ?? []), r.p]);
        break;
      case 'transfer':
        this.transfers.push(r.tr);
        this.nextId = Math.max(this.nextId, r.tr.id + 1);
        break;
      case 'member':
        this.members.set(r.m.va, r.m);
        break;
      case 'attempt': {
        const d = this.deliveries.get(r.id);
        if (d) {
          Object.assign(d, { attempts: r.attempts, state: r.state, nextAt: r.nextAt, lastResult: r.result });
          const list = this.attempts.get(r.id) ?? [];
          list.push({ deliveryId: r.id, attempt: r.attempts, state: r.state, nextAt: r.nextAt, result: r.result, ...(r.a ? { detail: r.a } : {}) });
          this.attempts.set(r.id, list);
        }
        break;
      }
    }
  }

  private applyDelivery(d: Delivery): void {
    this.deliveries.set(d.id, { ...d });
    this.deliverySeq = Math.max(this.deliverySeq, Number(d.id.split('-')[1] ?? 0));
  }

  /** Journals a record, then applies it; throws `StoreError` (memory unchanged) when it cannot be stored. */
  private async record(r: JournalRecord): Promise<void> {
    await this.log?.append(r);
    this.apply(r);
    this.onChange?.();
  }

  /**
   * The next transaction id: increasing, and never handed out twice, even across restarts and
   * whatever the journal's tail holds. Ids come from blocks reserved by a journal record written
   * before the first id of the block is used; a restart goes on above the highest reservation.
   */
  async reserveId(): Promise<number> {
    while (this.log && this.nextId >= this.reservedUpTo) {
      if (!this.reserving) {
        const upTo = Math.max(this.nextId, this.reservedUpTo) + ID_BLOCK;
        this.reserving = this.log
          .append({ t: 'ids', upTo })
          .then(() => {
            this.reservedUpTo = Math.max(this.reservedUpTo, upTo);
          })
          .finally(() => {
            this.reserving = undefined;
          });
      }
      await this.reserving;
    }
    return this.nextId++;
  }

  /** Runs `fn` alone for one transaction (a transition is checked and journalled before the next one looks). */
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

  async addTransaction(txn: Transaction): Promise<void> {
    await this.record({ t: 'txn', txn });
  }

  /**
   * Changes a transaction's status and queues its callback in one journal record, so that no
   * crash can leave a paid or expired transaction without a callback to send.
   */
  async transition(id: number, status: TxnStatus, at: number, callback?: Omit<Delivery, 'id'>): Promise<Delivery | undefined> {
    const d: Delivery | undefined = callback ? { ...callback, id: `cb-${this.deliverySeq + 1}` } : undefined;
    if (d) this.deliverySeq++; // burnt even if the write fails: never reused in this run
    await this.record(d ? { t: 'status', id, status, at, d } : { t: 'status', id, status, at });
    return d ? this.deliveries.get(d.id) : undefined;
  }

  /** Queues a callback on its own (for transitions journalled without one by older versions). */
  async addDelivery(d: Omit<Delivery, 'id'>): Promise<Delivery> {
    const delivery: Delivery = { ...d, id: `cb-${++this.deliverySeq}` };
    await this.record({ t: 'delivery', d: delivery });
    return this.deliveries.get(delivery.id)!;
  }

  async recordAttempt(id: string, attempts: number, state: DeliveryState, nextAt: number | null, result: string, detail?: AttemptDetail): Promise<void> {
    await this.record(detail ? { t: 'attempt', id, attempts, state, nextAt, result, a: detail } : { t: 'attempt', id, attempts, state, nextAt, result });
  }

  /** Records a COD parcel's step (journalled first). */
  async addShipmentEvent(id: number, stage: ShipmentStage, at: number): Promise<void> {
    await this.record({ t: 'ship', id, stage, at });
  }

  async addPickup(p: PickupRequest): Promise<void> {
    await this.record({ t: 'pickup', p });
  }

  /** Journals a Close API transfer under a transaction id of its own. */
  async addTransfer(t: Omit<Transfer, 'id'>): Promise<Transfer> {
    const tr: Transfer = { ...t, id: await this.reserveId() };
    await this.record({ t: 'transfer', tr });
    return tr;
  }

  async addMember(m: Member): Promise<void> {
    await this.record({ t: 'member', m });
  }

  /** The callbacks queued for a transaction, oldest first. */
  deliveriesOf(trxId: number): Delivery[] {
    return [...this.deliveries.values()].filter((d) => d.trxId === trxId);
  }

  /** Finds a transaction by id or payment number. */
  find(idOrPaymentNo: string): Transaction | undefined {
    if (/^\d+$/.test(idOrPaymentNo)) {
      const byId = this.txns.get(Number(idOrPaymentNo));
      if (byId) return byId;
    }
    for (const t of this.txns.values()) if (t.paymentNo === idOrPaymentNo || t.referenceId === idOrPaymentNo) return t;
    return undefined;
  }

  /** Stops all further changes (each is refused with a StoreError, answered 503). */
  fence(reason: string): void {
    this.log?.fence(reason);
  }

  async close(): Promise<void> {
    await this.log?.close();
  }
}
