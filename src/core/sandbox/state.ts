import { join } from 'node:path';
import { Journal } from '../journal.js';

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

type Record_ =
  | { t: 'txn'; txn: Transaction }
  | { t: 'status'; id: number; status: TxnStatus; at: number }
  | { t: 'delivery'; d: Delivery }
  | { t: 'attempt'; id: string; attempts: number; state: DeliveryState; nextAt: number | null; result: string };

/**
 * The emulator's state: transactions and the callback outbox, in memory, journalled to
 * `DATA_DIR/journal.jsonl` before any answer when a data dir is given.
 */
export class SandboxState {
  readonly txns = new Map<number, Transaction>();
  readonly deliveries = new Map<string, Delivery>();
  private journal?: Journal<Record_>;
  private nextId = 100_001;
  private deliverySeq = 0;
  /** Records skipped on load (a torn last line after a crash). */
  skipped = 0;

  static async open(dataDir?: string): Promise<SandboxState> {
    const s = new SandboxState();
    if (dataDir) {
      s.journal = new Journal<Record_>(join(dataDir, 'journal.jsonl'));
      const { records, skipped } = await s.journal.read();
      s.skipped = skipped;
      for (const r of records) s.apply(r);
      await s.journal.open();
    }
    return s;
  }

  private apply(r: Record_): void {
    switch (r.t) {
      case 'txn':
        this.txns.set(r.txn.id, r.txn);
        this.nextId = Math.max(this.nextId, r.txn.id + 1);
        break;
      case 'status': {
        const t = this.txns.get(r.id);
        if (t) {
          t.status = r.status;
          if (r.status === 'berhasil') t.paidAt = r.at;
          t.endedAt = r.at;
        }
        break;
      }
      case 'delivery':
        this.deliveries.set(r.d.id, { ...r.d });
        this.deliverySeq = Math.max(this.deliverySeq, Number(r.d.id.split('-')[1] ?? 0));
        break;
      case 'attempt': {
        const d = this.deliveries.get(r.id);
        if (d) Object.assign(d, { attempts: r.attempts, state: r.state, nextAt: r.nextAt, lastResult: r.result });
        break;
      }
    }
  }

  private async record(r: Record_): Promise<void> {
    this.apply(r);
    await this.journal?.append(r);
  }

  /** Reserves the next transaction id (monotonic, survives restarts). */
  reserveId(): number {
    return this.nextId++;
  }

  async addTransaction(txn: Transaction): Promise<void> {
    await this.record({ t: 'txn', txn });
  }

  async setStatus(id: number, status: TxnStatus, at: number): Promise<void> {
    await this.record({ t: 'status', id, status, at });
  }

  async addDelivery(d: Omit<Delivery, 'id'>): Promise<Delivery> {
    const delivery: Delivery = { ...d, id: `cb-${++this.deliverySeq}` };
    await this.record({ t: 'delivery', d: delivery });
    return this.deliveries.get(delivery.id)!;
  }

  async recordAttempt(id: string, attempts: number, state: DeliveryState, nextAt: number | null, result: string): Promise<void> {
    await this.record({ t: 'attempt', id, attempts, state, nextAt, result });
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

  async close(): Promise<void> {
    await this.journal?.close();
  }
}
