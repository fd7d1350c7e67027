import { randomBytes } from 'node:crypto';
import { appendFile, mkdir, open, readdir, readFile, realpath, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { fsError } from '../fs-errors.js';
import { Journal, type JournalIo } from '../journal.js';

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

/** `evt_`, the time in base 36 and the tag, for the last millisecond an id was made in (a listener makes many per ms). */
let lastMs = Number.NaN;
let lastPrefix = '';

/** A sortable, unique event id: time in base 36, a per-process tag and a counter. */
export function newEventId(now: Date): string {
  sequence = (sequence + 1) % 1_679_616; // 36^4
  const ms = now.getTime();
  if (ms !== lastMs) {
    lastPrefix = `evt_${ms.toString(36)}${(processTag ??= randomBytes(3).toString('hex'))}`;
    lastMs = ms;
  }
  return `${lastPrefix}${sequence.toString(36).padStart(4, '0')}`;
}

/** A text with nothing JSON.stringify escapes: no `"`, `\\`, control character or surrogate. */
const PLAIN_JSON_TEXT = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;

/**
 * `JSON.stringify(event)`, without scanning a body that has nothing to escape (a form body never
 * has) character by character: the event is serialised with an empty body and the body's text put
 * between its quotes. The last `"body":""` of that text is the body's: nothing serialised after it
 * (verdict … source, whose strings have their quotes escaped) can hold those characters.
 */
export function storedEventJson(event: StoredEvent): string {
  const body = event.body;
  if (typeof body !== 'string' || body === '' || !PLAIN_JSON_TEXT.test(body)) return JSON.stringify(event);
  event.body = '';
  let json: string;
  try {
    json = JSON.stringify(event);
  } finally {
    event.body = body;
  }
  const at = json.lastIndexOf('"body":""') + 8;
  return json.slice(0, at) + body + json.slice(at);
}

const VERDICTS = new Set(['valid', 'valid-variant', 'invalid', 'malformed']);
const strOrNull = (v: unknown) => v === null || typeof v === 'string';

/** Whether a parsed line has the shape of a stored event (anything else is an unreadable line). */
export function isStoredEvent(e: unknown): e is StoredEvent {
  if (typeof e !== 'object' || e === null) return false;
  const x = e as Record<string, unknown>;
  if (typeof x.id !== 'string' || typeof x.receivedAt !== 'string' || typeof x.method !== 'string' || typeof x.path !== 'string' || typeof x.body !== 'string') return false;
  if (typeof x.verdict !== 'string' || !VERDICTS.has(x.verdict) || typeof x.answer !== 'number' || typeof x.duplicate !== 'boolean') return false;
  if (!strOrNull(x.trx_id) || !strOrNull(x.status) || !strOrNull(x.reason ?? null) || !strOrNull(x.variant ?? null)) return false;
  if (x.source !== undefined && x.source !== 'listen' && x.source !== 'trigger') return false;
  if (typeof x.headers !== 'object' || x.headers === null || Array.isArray(x.headers)) return false;
  for (const v of Object.values(x.headers)) if (typeof v !== 'string') return false;
  return true;
}

export interface EventStoreOptions {
  /** The journal's write and truncate (a seam for tests that inject failed and short writes). */
  io?: JournalIo;
  /** How long prune, clear and appends wait for the store's lock before giving up (default 20 s). */
  lockWaitMs?: number;
  /** This process's id, written beside the lock while it holds it, so that a waiting process can name it. */
  holder?: number;
  /** Whether a process id still runs (to say so of a holder that crashed). */
  processRuns?: (pid: number) => boolean;
}

export interface PruneResult {
  before: number;
  removed: number;
  kept: number;
  /** Lines that were not events (torn, edited): moved to the side file, not deleted. */
  unreadable: number;
  /** Where unreadable lines are kept (`<store>.unreadable`). */
  unreadablePath: string;
}

/** The store could not be locked in time: another paycli process holds it (or held it and crashed). */
export class StoreBusyError extends Error {
  readonly code = 'ESTOREBUSY';
}

/**
 * Resolves a store path the way every process must agree on: absolute, with symlinks resolved (the
 * file's own, or those of its nearest existing ancestor when it or its directories do not exist yet).
 */
export async function canonicalStorePath(path: string): Promise<string> {
  const abs = resolve(path);
  const rest: string[] = [];
  for (let at = abs; ; at = dirname(at)) {
    try {
      return join(await realpath(at), ...rest);
    } catch {
      if (dirname(at) === at) return abs;
      rest.unshift(basename(at));
    }
  }
}

/** Names the process that last took a store's lock (as its `holder` tag says), and whether it still runs. */
async function describeHolder(real: string, processRuns?: (pid: number) => boolean): Promise<string> {
  let pid = Number.NaN;
  try {
    pid = Number((await readFile(`${real}.lock-holder`, 'utf8')).trim());
  } catch {
    /* unknown */
  }
  if (!Number.isInteger(pid) || pid <= 0) return 'another paycli process';
  if (processRuns && !processRuns(pid)) return `process ${pid}, which no longer runs (its lock is taken over once it is 10 s old)`;
  return `process ${pid}`;
}

type Lockfile = typeof import('proper-lockfile');
let lockfile: Promise<Lockfile> | undefined;

/**
 * The listener's JSONL event store (default `$XDG_DATA_HOME/paycli/events.jsonl`).
 *
 * Every writer (listen, trigger) takes the store's lock (`<store>.lock`, a directory made atomically
 * by proper-lockfile, refreshed while held, taken over 10 s after a crash) around each group write,
 * and `prune` and `clear` hold it for their whole run. Under the lock a writer checks that the file
 * at the path is still the one it has open and reopens it otherwise. So a prune or clear never
 * loses an event appended while it runs: appends wait for it and go to the new file. The path is
 * resolved with realpath first, so symlinks and relative spellings share one lock.
 */
export class EventStore {
  private journal?: Journal<StoredEvent>;
  private real?: string;

  constructor(
    readonly path: string,
    private readonly options: EventStoreOptions = {},
  ) {}

  /** Resolves the path (once the file exists, for good) and sets up the journal. */
  async prepare(): Promise<Journal<StoredEvent>> {
    if (this.journal && this.real) return this.journal;
    const real = await canonicalStorePath(this.path);
    this.real = real;
    this.journal = new Journal<StoredEvent>(real, { lock: () => this.lock(), tornPath: `${real}.unreadable`, io: this.options.io });
    return this.journal;
  }

  /** Where `prune` keeps lines that are not events. */
  get unreadablePath(): string {
    return `${this.real ?? this.path}.unreadable`;
  }

  /** Takes the store's lock; resolves to its release. Throws StoreBusyError after `lockWaitMs`. */
  async lock(): Promise<() => Promise<void>> {
    const real = this.real ?? (await canonicalStorePath(this.path));
    await mkdir(dirname(real), { recursive: true, mode: 0o700 });
    const lf = await (lockfile ??= import('proper-lockfile').then((m) => ((m as unknown as { default?: Lockfile }).default ?? m) as Lockfile));
    const wait = this.options.lockWaitMs ?? 20_000;
    const started = Date.now();
    for (;;) {
      try {
        // Stale after 10 s without a refresh (a holder killed with -9): then taken over. Polled every
        // few ms: a busy writer lets the lock go for 10 ms at a time (see Journal).
        const release = await lf.lock(real, { realpath: false, stale: 10_000, retries: { retries: 50, minTimeout: 1, maxTimeout: 5, factor: 1.3 }, onCompromised: () => undefined });
        // Who holds it, for the message of whoever waits (beside the lock: its directory must stay empty).
        if (this.options.holder !== undefined) await writeFile(`${real}.lock-holder`, `${this.options.holder}\n`, { mode: 0o600 }).catch(() => undefined);
        return release;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ELOCKED') throw fsError(err, `the event store ${this.path}`);
        if (Date.now() - started >= wait) throw new StoreBusyError(`the event store ${this.path} is locked by ${await describeHolder(real, this.options.processRuns)} (${real}.lock) and stayed locked for ${wait >= 1000 ? `${Math.round(wait / 1000)} s` : `${wait} ms`}`);
      }
    }
  }

  /** Runs `fn` under the store's lock (a crash's half-written `*.tmp` siblings are removed first). */
  private async locked<R>(fn: (real: string) => Promise<R>): Promise<R> {
    await this.prepare();
    const release = await this.lock();
    try {
      await this.removeTemporaries();
      return await fn(this.real!);
    } finally {
      await release().catch(() => undefined);
    }
  }

  /** Removes `<store>.*.tmp` left by a prune that was interrupted (only ever called under the lock). */
  private async removeTemporaries(): Promise<void> {
    const real = this.real!;
    const prefix = `${basename(real)}.`;
    let names: string[] = [];
    try {
      names = await readdir(dirname(real));
    } catch {
      return;
    }
    await Promise.all(names.filter((n) => n.startsWith(prefix) && n.endsWith('.tmp')).map((n) => rm(join(dirname(real), n), { force: true })));
  }

  /**
   * Rewrites the store without the events older than `notBefore` and beyond the newest `keepNewest`,
   * atomically (a synced temporary file renamed over it, mode 0600), under the lock. Lines that are
   * not events are appended to `<store>.unreadable` rather than dropped. Kept lines are copied as
   * they were, byte for byte.
   */
  async prune(rule: { keepNewest?: number; notBefore?: Date }): Promise<PruneResult> {
    return this.locked(async (real) => {
      const kept: { e: StoredEvent; line: string }[] = [];
      const unreadable: string[] = [];
      let before = 0;
      await this.journal!.scan(
        (e, line) => {
          if (!isStoredEvent(e)) return false;
          before++;
          if (!(rule.notBefore && Date.parse(e.receivedAt) < rule.notBefore.getTime())) kept.push({ e, line });
        },
        (line) => unreadable.push(line),
      );
      let keep = kept;
      if (rule.keepNewest !== undefined) keep = rule.keepNewest === 0 ? [] : kept.slice(-rule.keepNewest);
      const tmp = `${real}.${randomBytes(4).toString('hex')}.tmp`;
      try {
        if (unreadable.length > 0) await appendFile(`${real}.unreadable`, unreadable.map((l) => l + '\n').join(''), { mode: 0o600 });
        const fh = await open(tmp, 'w', 0o600);
        try {
          await fh.writeFile(keep.map((k) => k.line + '\n').join(''));
          await fh.sync();
        } finally {
          await fh.close();
        }
        await rename(tmp, real);
      } catch (err) {
        await rm(tmp, { force: true });
        throw fsError(err, `the event store ${this.path}`);
      }
      return { before, removed: before - keep.length, kept: keep.length, unreadable: unreadable.length, unreadablePath: `${real}.unreadable` };
    });
  }

  /** Removes every event (the file), under the lock; returns how many there were. */
  async clear(): Promise<{ cleared: number; unreadable: number }> {
    return this.locked(async (real) => {
      let cleared = 0;
      const unreadable = await this.journal!.scan((e) => {
        if (!isStoredEvent(e)) return false;
        cleared++;
      });
      try {
        await rm(real, { force: true });
      } catch (err) {
        throw fsError(err, `the event store ${this.path}`);
      }
      return { cleared, unreadable };
    });
  }

  /** Every stored event, and how many lines were unreadable. */
  async list(): Promise<StoredEvent[]> {
    const events: StoredEvent[] = [];
    await this.scan((e) => events.push(e));
    return events;
  }

  /**
   * Calls `onEvent` for every stored event, streaming: memory stays flat for a store of any size.
   * Returns how many lines were skipped as unreadable (torn, not JSON, not an event).
   */
  async scan(onEvent: (event: StoredEvent) => void): Promise<number> {
    const journal = await this.prepare();
    return journal.scan((e) => {
      if (!isStoredEvent(e)) return false;
      onEvent(e);
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

  /** Appends one event; resolves once it is written, rejects when it could not be (nothing torn is left). */
  async append(event: StoredEvent): Promise<void> {
    await (await this.prepare()).append(event);
  }

  /**
   * `append` without a promise, for the listener's hot path: call `prepare()` once first. `done`
   * gets nothing once the event is written, or the error.
   */
  appendWith(event: StoredEvent, done: (err?: unknown) => void): void {
    if (!this.journal) throw new Error('EventStore.appendWith before prepare()');
    this.journal.appendJsonWith(storedEventJson(event), done);
  }

  async close(): Promise<void> {
    await this.journal?.close();
  }
}
