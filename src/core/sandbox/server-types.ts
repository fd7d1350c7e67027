import type { SandboxAccount } from './accounts.js';
import type { ClockResult, SandboxClock } from './clock.js';
import type { LockOwner } from './datadir.js';
import type { ApiFault } from './faults.js';
import type { MerchantApi } from './merchant-api.js';
import type { CallbackAttemptEvent, DeliveryFaults } from './outbox.js';
import type { RegionIndex } from './regions.js';
import type { RequestLog, RequestNote } from './request-log.js';
import type { SandboxLedger, SandboxState } from './state.js';
import type { Action } from '../statuses.js';
import type { ResendResult, StoreErrorEvent, TransitionEvent, TransitionResult } from './transitions.js';
import { deepFreeze } from '../freeze.js';

/* The emulator's options, events and handle (server.ts starts it). */

export const DEFAULT_RETRY_SCHEDULE = deepFreeze([500, 1000, 2000, 5000, 10_000, 30_000, 60_000, 300_000]);

export interface SandboxOptions {
  /** Port; 4010 by default, 0 for any free port. */
  port?: number;
  host?: string;
  /** The data directory (its ledger is `ledger.db`); in memory when absent. */
  dataDir?: string;
  /** This process, for the data dir's lock: its pid is recorded for others to name, its uid must own the files. */
  lockOwner?: LockOwner;
  va?: string;
  apiKey?: string;
  /** Several merchants (replaces va/apiKey). */
  accounts?: SandboxAccount[];
  callbackFormat?: 'form' | 'json';
  /** `immediate` (default: settled, transaction_status_code 1) or `deferred` (unsettle, 6). */
  settlement?: 'immediate' | 'deferred';
  retrySchedule?: number[];
  callbackTimeoutMs?: number;
  faults?: DeliveryFaults;
  /** Faults of the API itself (api-500, api-timeout, api-slow), for the merchant's client. */
  apiFaults?: ApiFault[];
  /** Random source of the API faults (tests make it certain). */
  random?: () => number;
  /** The base of the business clock (payment times, expiry); tests move it. The user's offset is added. */
  now?: () => Date;
  onEvent?: (e: SandboxEvent) => void;
  maxBodyBytes?: number;
  /** How often pending payments are checked for expiry. */
  expirySweepMs?: number;
  /** Serve the dashboard at `/` (default true; answered on loopback addresses only). */
  dashboard?: boolean;
  /**
   * Host names the emulator answers to besides IP addresses, `localhost`, `*.localhost`, `*.internal`
   * and the `host` it listens on (a name): any other Host is refused (DNS rebinding).
   */
  allowedHosts?: string[];
}

/** What start-up found in the data dir (logged by `paycli sandbox`). */
export interface StartupEvent {
  type: 'startup';
  /** Lines of an older version's journal that could not be read and were skipped on its import. */
  skippedLines: number;
  /** Paid or expired transactions of an older journal found without a queued callback; queued now. */
  reconciled: number;
  /** Transactions imported from an older version's `journal.jsonl` (now `journal.jsonl.migrated`), if any. */
  migrated?: number;
}

export interface RequestEvent extends RequestNote {
  type: 'request';
  method: string;
  path: string;
  status: number;
  ms: number;
  message?: string;
}
export type SandboxEvent = RequestEvent | TransitionEvent | CallbackAttemptEvent | StartupEvent | StoreErrorEvent;

export interface SandboxHandle {
  /** `http://host:port` */
  url: string;
  /** `http://host:port/api`, the base URL for paycli (`--base-url`). */
  apiUrl: string;
  /** The dashboard's address (`http://host:port/`), null when it is off. */
  dashboardUrl: string | null;
  port: number;
  accounts: SandboxAccount[];
  /** The ledger, read-only: transactions, their callbacks and attempts, sessions, COD and transfer records. */
  state: SandboxLedger;
  regions: RegionIndex;
  /** Check transaction, history, balance, channels and redirect payments, as the API answers them. */
  merchant: MerchantApi;
  /** Marks a pending payment paid and sends its callback. */
  pay(idOrPaymentNo: string): Promise<TransitionResult>;
  /** Expires a pending payment and sends its callback. */
  expire(idOrPaymentNo: string): Promise<TransitionResult>;
  /** Any admin action of the table in statuses.ts (cancel, fail, error, refund, settle, release…), with its callback. */
  act(idOrPaymentNo: string, action: Action): Promise<TransitionResult>;
  /** Sends a payment's callback again now (a retry that is due now, or a new delivery; to another URL with `to`). */
  resend(idOrPaymentNo: string, to?: string): Promise<ResendResult>;
  /** Expires every pending payment whose expiry has passed on the business clock. */
  expireDue(): Promise<number>;
  /** The emulator's clock (base clock plus the user's offset, stored in the data dir). */
  clock: SandboxClock;
  /** Moves the clock forward; what becomes due (expiry, settlement, retries) happens before it resolves. */
  advanceClock(ms: number): Promise<ClockResult>;
  /** Sets the clock (never backwards: 409). */
  setClock(at: Date): Promise<ClockResult>;
  /** Resolves when every callback is delivered or has failed. */
  idle(timeoutMs?: number): Promise<boolean>;
  /** What start-up found in the data dir. */
  startup: StartupEvent;
  /** Recent API requests, with why any was refused. */
  requests: RequestLog;
  close(): Promise<void>;
}

/** The handle as the emulator's own code and tests hold it: the ledger itself (writes, its SQLite handle). */
export interface EmulatorHandle extends SandboxHandle {
  state: SandboxState;
}
