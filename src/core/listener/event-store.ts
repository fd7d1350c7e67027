import { randomBytes } from 'node:crypto';
import { Journal } from '../journal.js';

export type Verdict = 'valid' | 'valid-variant' | 'invalid' | 'malformed';

/** One request the listener received, stored before it was answered. */
export interface StoredEvent {
  id: string;
  receivedAt: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  /** The raw body as text (UTF-8). */
  body: string;
  verdict: Verdict;
  /** The encoding variant that matched, for `valid-variant`. */
  variant: string | null;
  reason: string | null;
  duplicate: boolean;
  trx_id: string | null;
  status: string | null;
  /** HTTP status the listener answered. */
  answer: number;
  source?: 'listen' | 'trigger';
}

// Random per process, so that several writers of one store (listen, trigger) never collide. Made on
// the first id, so that merely importing this module does not load node:crypto.
let processTag: string | undefined;
let sequence = 0;

/** A sortable, unique event id: time in base 36, a per-process tag and a counter. */
export function newEventId(now: Date): string {
  sequence = (sequence + 1) % 1_679_616; // 36^4
  return `evt_${now.getTime().toString(36)}${(processTag ??= randomBytes(3).toString('hex'))}${sequence.toString(36).padStart(4, '0')}`;
}

function isEvent(e: StoredEvent | null | undefined): e is StoredEvent {
  return Boolean(e) && typeof e!.id === 'string';
}

/**
 * The listener's JSONL event store (default `$XDG_DATA_HOME/paycli/events.jsonl`). Appends are
 * group-committed and resolve before the request is answered; the reader skips a torn last line.
 */
export class EventStore {
  private journal: Journal<StoredEvent>;
  private opening?: Promise<void>;

  constructor(readonly path: string) {
    this.journal = new Journal<StoredEvent>(path);
  }

  async list(): Promise<StoredEvent[]> {
    return (await this.journal.read()).records.filter(isEvent);
  }

  /** Calls `onEvent` for every stored event, streaming: memory stays flat for a store of any size. */
  async scan(onEvent: (event: StoredEvent) => void): Promise<void> {
    await this.journal.scan((e) => {
      if (isEvent(e)) onEvent(e);
    });
  }

  /** Finds an event by id or a unique id prefix (streaming the store: only candidates are kept). */
  async find(id: string): Promise<StoredEvent | undefined> {
    let exact: StoredEvent | undefined;
    const prefixed: StoredEvent[] = [];
    await this.scan((e) => {
      if (e.id === id) exact ??= e;
      else if (e.id.startsWith(id) && prefixed.length < 2) prefixed.push(e);
    });
    if (exact) return exact;
    return prefixed.length === 1 ? prefixed[0] : undefined;
  }

  async append(event: StoredEvent): Promise<void> {
    this.opening ??= this.journal.open();
    await this.opening;
    await this.journal.append(event);
  }

  async close(): Promise<void> {
    if (this.opening) {
      await this.opening.catch(() => undefined);
      await this.journal.close();
    }
  }
}
