import type { CallbackSummary } from '../callback/verifier.js';
import type { CandidateKey } from '../signing/variants.js';
import type { StoredEvent } from './stored-event.js';
import type { ForwardResult } from './forward.js';
import type { ListenerUi } from './ui.js';

export type { ForwardResult } from './forward.js';
export type { StoredEvent, Verdict } from './stored-event.js';

/**
 * What `startListener` needs from a store (`ListenerOptions.store`): paycli's own SQLite store is
 * one; a library user may give another. Every request is stored before it is answered.
 */
export interface CallbackEventStore {
  /** Called once before the listener accepts requests: open, create, migrate. */
  prepare(): Promise<unknown>;
  /**
   * Whether an earlier run acknowledged (answered 200) a callback of this transaction with this
   * retry key (`retryKey`: transaction, status and signature): such a retry is marked a duplicate.
   */
  acknowledged(trxId: string | null, key: string): boolean;
  /**
   * Stores one event; `done` is called once it is durably stored (nothing), or with the error (the
   * request is then answered 503 and counted unstored; an error's `code`, when it has one, is in the
   * answer). The listener answers only after `done`. `key`: the event's `retryKey` when it is an
   * acknowledged valid callback (the listener made it already; null otherwise), for `acknowledged`.
   */
  appendWith(event: StoredEvent, done: (err?: unknown) => void, key?: string | null): void;
  /** Called by the listener's `close()`, after its last request: waits for pending writes. */
  close(): Promise<void>;
}

export interface ListenerEvent {
  type: 'request';
  event: StoredEvent;
  /** Parsed fields useful for display. */
  summary: CallbackSummary;
  /** The first --forward-to target's result (its answer was mirrored); the others come through `onForward`. */
  forwards: ForwardResult[];
  /** False when the store could not take the request: it was answered 503 and is not in the store. */
  stored: boolean;
  ms: number;
}

/** The store's state changed: it started failing (first failure of an episode) or works again. */
export interface StoreTrouble {
  failing: boolean;
  /** The error of the first failed write (failing: true). */
  error?: string;
  code?: string;
  /** Requests answered 503 during the episode (failing: false). */
  refused?: number;
}

export interface ListenerOptions {
  port?: number;
  host?: string;
  /** Only this path is accepted (default `/`; `*` accepts any). */
  path?: string;
  va: string;
  /** Secrets to try when explaining a mismatch (API key, other VAs). */
  otherKeys?: CandidateKey[];
  /** Where every request is stored before it is answered (none: this run only). */
  store?: CallbackEventStore | null;
  maxBodyBytes?: number;
  /** Valid callbacks are forwarded to each; the answer mirrors the first, the others are fire-and-forget. */
  forwardTo?: string[];
  /** Each forward's own time limit (default 10 s). */
  forwardTimeoutMs?: number;
  /** A client must send its whole request within this many ms (slow clients get 408). */
  requestTimeoutMs?: number;
  now?: () => Date;
  onEvent?: (e: ListenerEvent) => void;
  /** The result of a forward to a second or later target, once it is known (after the answer). */
  onForward?: (e: { id: string; result: ForwardResult }) => void;
  /** Called once when the store starts failing (disk full, I/O error) and once when it works again. */
  onStoreTrouble?: (t: StoreTrouble) => void;
  /** Pages served under `ui.prefix` (`paycli listen --ui`); told of every stored event. */
  ui?: ListenerUi;
}

export interface ListenerSummary {
  total: number;
  valid: number;
  'valid-variant': number;
  invalid: number;
  malformed: number;
  duplicates: number;
  /** Requests answered 503 because the store could not take them. */
  unstored: number;
}

export interface ListenerHandle {
  url: string;
  port: number;
  summary: ListenerSummary;
  /** Stops accepting, finishes in-flight requests, returns the counts. */
  close(): Promise<ListenerSummary>;
}
