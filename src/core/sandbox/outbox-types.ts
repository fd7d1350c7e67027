// The outbox's options and events (outbox.ts delivers the callbacks).

export interface DeliveryFaults {
  /** Deliver every successful callback a second time (a retry the merchant must treat as duplicate). */
  duplicate?: boolean;
  /** Wait this long before every attempt. */
  delayMs?: number;
  /** Send every callback attempt this many more times at the same moment (parallel retries). */
  concurrentDuplicates?: number;
}

export interface CallbackAttemptEvent {
  type: 'callback';
  deliveryId: string;
  trxId: number;
  status: string;
  attempt: number;
  url: string;
  ok: boolean;
  result: string;
  httpStatus?: number;
  ms?: number;
  /** Milliseconds until the next attempt; null when finished. */
  nextInMs: number | null;
  final: 'delivered' | 'failed' | null;
  duplicate?: boolean;
}

export interface OutboxOptions {
  schedule: number[];
  /** How paid transactions settle in their callbacks. */
  settlement?: 'immediate' | 'deferred';
  attemptTimeoutMs: number;
  now: () => Date;
  faults: DeliveryFaults;
  onEvent: (e: CallbackAttemptEvent) => void;
}
