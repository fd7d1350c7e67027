import type { RedirectSession } from './redirect-session.js';
import type { Member, PickupRequest, ShipmentStage, Transfer } from './records.js';
import type { StatusKey } from '../statuses.js';

// The emulator ledger's records as its callers see them (state.ts re-exports them all).

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

/**
 * Where the previous page ended: the order key and id of its last row, and the ledger as the walk
 * of pages found it on its first page. The key of the paid-time order is the paid time the row had
 * then (-1: not paid then), so a payment paid during the walk keeps its place.
 */
export interface Cursor {
  key: number;
  id: number;
  /** Set on every `next` of `page`; without it (an older client's cursor), the ledger as it stands. */
  snapshot?: PageSnapshot;
}

/** The ledger when a walk of pages began: its newest transaction id, and the number of its latest first payment (`paid_seq`). */
export interface PageSnapshot {
  maxId: number;
  paidSeq: number;
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
  reserve?: { txnId: number; deliverySeq: number; memberSeq?: number };
  /** A marker stored in the same transaction (the import of an older journal, once). */
  mark?: string;
  /** COD parcels' steps and pickups, Close API transfers and members (an export's, or an older journal's). */
  records?: Partial<ServiceRecords>;
  /** Settings stored in the same transaction (an export's clock offset). */
  settings?: Record<string, string>;
}

/** Why a transfer was not stored: its referenceId was used by the caller before, or the sender's balance does not cover it. */
export type TransferRefusal = 'exists' | 'short';

/** What the Close API and COD logistics stored, carried by a ledger export (one line each). */
export interface ServiceRecords {
  steps: { trxId: number; stage: ShipmentStage; at: number }[];
  pickups: PickupRequest[];
  transfers: Transfer[];
  members: Member[];
}

/** Members registered through the Close API get VAs `11799` + 6 digits (an assumption: the docs show only an example). */
const MEMBER_PREFIX = '11799';

/** The VA of the `n`th member the emulator registers. */
export const memberVa = (n: number): string => `${MEMBER_PREFIX}${String(n).padStart(6, '0')}`;

/** The number a member VA was made from (memberVa's inverse), or null for a VA of another shape. */
export function memberNumber(va: string): number | null {
  const m = /^11799(\d{6})$/.exec(va);
  return m ? Number(m[1]) : null;
}
