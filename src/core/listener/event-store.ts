import { randomBytes } from 'node:crypto';
import { mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fsError } from '../fs-errors.js';
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
export interface EventStoreOptions {
  /**
   * A tag registered beside the store while it is open for appending (the CLI uses its process id),
   * so that `events prune` and `events clear` can tell a listener still writes to it: replacing the
   * file under an open writer would lose everything it appends afterwards.
   */
  writer?: string;
}

export interface PruneResult {
  before: number;
  removed: number;
  kept: number;
  /** Lines that were not events (a torn last line): dropped. */
  unreadable: number;
}

export class EventStore {
  private journal: Journal<StoredEvent>;
  private opening?: Promise<void>;
  private registered?: string;

  constructor(
    readonly path: string,
    private readonly options: EventStoreOptions = {},
  ) {
    this.journal = new Journal<StoredEvent>(path);
  }

  /** Where open writers register (`<store>.writers/<tag>`). */
  get writersDir(): string {
    return `${this.path}.writers`;
  }

  /** The tags of the writers registered on this store: live ones, or left behind by a crash. */
  async writers(): Promise<string[]> {
    try {
      return await readdir(this.writersDir);
    } catch {
      return [];
    }
  }

  /** Removes a writer's registration (one a crash left behind). */
  async forgetWriter(tag: string): Promise<void> {
    await rm(join(this.writersDir, tag), { force: true });
  }

  /**
   * Rewrites the store without the events older than `notBefore` and beyond the newest `keepNewest`,
   * atomically (a temporary file renamed over it, mode 0600). The caller makes sure no writer is open.
   */
  async prune(rule: { keepNewest?: number; notBefore?: Date }): Promise<PruneResult> {
    const { records, skipped } = await this.journal.read();
    const events = records.filter(isEvent);
    let kept = rule.notBefore ? events.filter((e) => !(Date.parse(e.receivedAt) < rule.notBefore!.getTime())) : events;
    if (rule.keepNewest !== undefined) kept = rule.keepNewest === 0 ? [] : kept.slice(-rule.keepNewest);
    const tmp = `${this.path}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      await writeFile(tmp, kept.map((e) => JSON.stringify(e) + '\n').join(''), { mode: 0o600 });
      await rename(tmp, this.path);
    } catch (err) {
      await rm(tmp, { force: true });
      throw fsError(err, `the event store ${this.path}`);
    }
    return { before: events.length, removed: events.length - kept.length, kept: kept.length, unreadable: skipped };
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
    this.opening ??= this.openForAppend();
    await this.opening;
    await this.journal.append(event);
  }

  private async openForAppend(): Promise<void> {
    await this.journal.open();
    const tag = this.options.writer;
    if (tag) {
      try {
        await mkdir(this.writersDir, { recursive: true, mode: 0o700 });
        await writeFile(join(this.writersDir, tag), '', { mode: 0o600 });
        this.registered = tag;
      } catch {
        /* unregistered: prune and clear cannot see this writer, appending still works */
      }
    }
  }

  async close(): Promise<void> {
    if (this.opening) {
      await this.opening.catch(() => undefined);
      await this.journal.close();
      if (this.registered) await this.forgetWriter(this.registered).catch(() => undefined);
      this.registered = undefined;
    }
  }
}
