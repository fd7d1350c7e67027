import type { RedirectSession } from './redirect-session.js';
import type { Member, PickupRequest, ShipmentEvent, Transfer } from './records.js';
import type { AttemptInfo, Cursor, Delivery, Transaction, TxnFilter, TxnOrder } from './state-types.js';

/**
 * The emulator's ledger as a test reads it (`SandboxHandle.state` of `paycli/sandbox`): what was
 * stored, read back from the ledger itself. Read-only: a test changes state the way a merchant's
 * code and the buyer do, through the API and the handle's actions (`pay`, `act`, `advanceClock`…),
 * so that every change goes through the emulator's rules and sends its callbacks. SandboxState
 * (state.ts) implements it; its writes and its SQLite handle stay inside the emulator.
 */
export interface SandboxLedger {
  /** The ledger's file (`DATA_DIR/ledger.db`), or `:memory:`. */
  readonly path: string;
  /** A transaction by its id. */
  get(id: number): Transaction | undefined;
  /** A transaction by its id or its payment number (VA number, QRIS id, …). */
  find(idOrPaymentNo: string): Transaction | undefined;
  /** How many transactions the filter selects (all of them without one). */
  count(filter?: TxnFilter): number;
  /** The count and the net amount of the selected transactions. */
  aggregate(filter?: TxnFilter, options?: { net?: boolean }): { count: number; net: number };
  /** A page of transactions in `order`, after a cursor (or at an offset); `next` is null on the last page. */
  page(filter: TxnFilter, order: TxnOrder, limit: number, from?: { cursor?: Cursor; offset?: number }): { rows: Transaction[]; next: Cursor | null };
  /** The payment methods transactions were made with. */
  methods(): string[];
  /** A callback delivery by its id. */
  delivery(id: string): Delivery | undefined;
  /** A transaction's callback deliveries, oldest first. */
  deliveriesOf(trxId: number): Delivery[];
  /** The recorded attempts of a delivery, in order. */
  attemptsOf(deliveryId: string): AttemptInfo[];
  /** Whether a callback is still waiting to be delivered. */
  hasPendingDeliveries(): boolean;
  /** A redirect session by its id. */
  session(sid: string): RedirectSession | undefined;
  /** Every redirect session. */
  sessions(): RedirectSession[];
  /** The transaction a redirect session of this merchant became, if any. */
  sessionTransaction(sid: string, merchantVa: string): Transaction | undefined;
  /** A COD payment's shipment steps, in order. */
  parcelSteps(trxId: number): ShipmentEvent[];
  /** A COD payment's pickup requests. */
  pickupsOf(trxId: number): PickupRequest[];
  /** Every transfer between merchants, oldest first. */
  transfers(): Transfer[];
  /** What transfers added to (or took from) a VA's balance. */
  transferNet(va: string): number;
  /** A child account (member) by its VA, or by its email. */
  member(va: string): Member | undefined;
  memberByEmail(email: string): Member | undefined;
  memberCount(): number;
  /** A stored setting of the emulator (`clock.offsetMs`: the clock's offset). */
  setting(key: string): string | undefined;
}

/** The ledger as the merchant API (merchant-api.ts) uses it: reads, and storing redirect sessions and the payments they become. */
export interface MerchantLedger extends SandboxLedger {
  addSession(s: RedirectSession): Promise<void>;
  addTransaction(txn: Transaction | ((id: number) => Transaction), session?: string): Promise<Transaction>;
}

/**
 * What `paycli/sandbox` hands out as `handle.state`: the ledger's reads and nothing else, so the
 * published handle is what its type says (no write, no SQLite handle, even from plain JavaScript).
 * Each read goes to the ledger itself: the view is never a copy.
 */
export function ledgerView(s: SandboxLedger): SandboxLedger {
  const view: SandboxLedger = {
    path: s.path,
    get: (id: number) => s.get(id),
    find: (idOrPaymentNo: string) => s.find(idOrPaymentNo),
    count: (filter?: TxnFilter) => s.count(filter),
    aggregate: (filter?: TxnFilter, options?: { net?: boolean }) => s.aggregate(filter, options),
    page: (filter: TxnFilter, order: TxnOrder, limit: number, from?: { cursor?: Cursor; offset?: number }) => s.page(filter, order, limit, from),
    methods: () => s.methods(),
    delivery: (id: string) => s.delivery(id),
    deliveriesOf: (trxId: number) => s.deliveriesOf(trxId),
    attemptsOf: (deliveryId: string) => s.attemptsOf(deliveryId),
    hasPendingDeliveries: () => s.hasPendingDeliveries(),
    session: (sid: string) => s.session(sid),
    sessions: () => s.sessions(),
    sessionTransaction: (sid: string, merchantVa: string) => s.sessionTransaction(sid, merchantVa),
    parcelSteps: (trxId: number) => s.parcelSteps(trxId),
    pickupsOf: (trxId: number) => s.pickupsOf(trxId),
    transfers: () => s.transfers(),
    transferNet: (va: string) => s.transferNet(va),
    member: (va: string) => s.member(va),
    memberByEmail: (email: string) => s.memberByEmail(email),
    memberCount: () => s.memberCount(),
    setting: (key: string) => s.setting(key),
  };
  return Object.freeze(view);
}
