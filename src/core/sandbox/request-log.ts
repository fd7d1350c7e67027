import type { ServerResponse } from 'node:http';
import type { AuthFailure } from './auth-diagnosis.js';

/** What a route learnt about a request beyond its status: why it was refused. */
export interface RequestNote {
  auth?: AuthFailure;
  /** A 400's field errors (the envelope's `Error`). */
  fieldErrors?: Record<string, unknown>;
  /** An injected API fault (`--faults api-500=…`). */
  fault?: 'api-500' | 'api-timeout' | 'api-slow';
}

const notes = new WeakMap<ServerResponse, RequestNote>();

/** Attaches what the log should say about this request (merged with earlier notes). */
export function noteRequest(res: ServerResponse, note: RequestNote): void {
  notes.set(res, { ...notes.get(res), ...note });
}

export function noteOf(res: ServerResponse): RequestNote | undefined {
  return notes.get(res);
}

/** One API request as the log keeps it (no header, no body: nothing secret). */
export interface RequestEntry extends RequestNote {
  seq: number;
  /** ISO 8601 with the WIB offset, on the emulator's clock. */
  time: string;
  method: string;
  path: string;
  status: number;
  ms: number;
}

/**
 * The emulator's recent API requests, newest last, bounded (`paycli sandbox logs`, the dashboard's
 * Requests page). In memory: a log, not state.
 */
export class RequestLog {
  private entries: RequestEntry[] = [];
  private seq = 0;
  private listeners = new Set<(e: RequestEntry) => void>();

  constructor(private readonly limit = 1000) {}

  add(e: Omit<RequestEntry, 'seq'>): RequestEntry {
    const entry = { seq: ++this.seq, ...e };
    this.entries.push(entry);
    if (this.entries.length > this.limit) this.entries.splice(0, this.entries.length - this.limit);
    for (const l of this.listeners) l(entry);
    return entry;
  }

  /** Entries after `seq` (all kept ones for 0), oldest first, at most `max`. */
  since(seq = 0, max = this.limit): RequestEntry[] {
    const from = this.entries.findIndex((e) => e.seq > seq);
    return from < 0 ? [] : this.entries.slice(from, from + max);
  }

  get lastSeq(): number {
    return this.seq;
  }

  subscribe(l: (e: RequestEntry) => void): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }
}
