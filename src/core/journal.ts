import { appendFileSync, closeSync, createReadStream, fstatSync, ftruncateSync, mkdirSync, openSync, readSync, statSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { fsError } from './fs-errors.js';

/** The two system calls a journal write makes (a seam for tests that inject short writes, ENOSPC, EIO). */
export interface JournalIo {
  /** Writes `length` bytes of `buffer` from `offset` at the end of the file; returns how many it wrote. */
  write(fd: number, buffer: Buffer, offset: number, length: number): number;
  /** Cuts the file to `length` bytes. */
  truncate(fd: number, length: number): void;
}

export interface JournalOptions {
  /**
   * Held while writing (returns the release): taken before a write, kept across the writes of a busy
   * stretch for at most 1 s, let go 20 ms after the last one. Other processes that take the same
   * lock may replace or remove the file while it is free (a prune, a clear): once it holds the lock
   * again, the journal notices and reopens the file at its path before writing.
   */
  lock?: () => Promise<() => Promise<void>>;
  /** Where the bytes of a torn last line are kept when it is cut off (appended; best effort). */
  tornPath?: string;
  io?: JournalIo;
}

const defaultIo: JournalIo = {
  write: (fd, buffer, offset, length) => writeSync(fd, buffer, offset, length),
  truncate: (fd, length) => ftruncateSync(fd, length),
};

/**
 * Longest stretch a writer keeps the lock under continuous load, then lets it go for YIELD_MS. Every
 * hand-over stalls the answers (nothing may be acknowledged unwritten): at 100 ms the listener
 * answered ≈1/3 fewer requests per second under `wrk` (BENCHMARKS.md); a prune or clear that arrives
 * during a burst waits at most this long.
 */
const HOLD_MS = 1000;
const YIELD_MS = 10;
/** The largest buffer a journal keeps for encoding its writes (a larger group is encoded on its own). */
const REUSED_MAX = 1 << 20;
/** A writer with nothing more to write lets the lock go after this long. */
const IDLE_RELEASE_MS = 20;

interface Pending {
  line: string;
  done: (err?: unknown) => void;
}

/**
 * An append-only JSONL journal with group commit: the records appended during one event-loop turn
 * are written with one `write` at the end of that turn, and their callbacks run right after it, in
 * the same turn. A record is settled once the OS has all of its bytes, so a `kill -9` after an answer
 * loses nothing. The write is synchronous: a write to the page cache costs a few microseconds, less
 * than handing it to the thread pool and back.
 *
 * A write that fails or comes back short (ENOSPC, EIO, EFBIG, EDQUOT, …) fails every record of that
 * write, and the file is cut back to its length before the write (ftruncate): nothing torn is left
 * for the next record to be glued to. If even the cut fails, the torn tail is cut back to the last
 * complete line before the next write. A torn last line left by a crash is cut off the same way when
 * the journal is opened (its bytes kept in `tornPath` when given); readers skip and count it.
 */
export class Journal<T> {
  private fd?: number;
  private ino?: number;
  private size = 0;
  /** The tail may hold a torn line (a cut that failed): repair before the next write. */
  private dirty = false;
  private queue: Pending[] = [];
  /** A write is scheduled for the end of this turn, or the lock is being taken. */
  private busy = false;
  private drained?: () => void;
  private readonly io: JournalIo;
  /** The lock while held (kept across consecutive writes, see flush). */
  private release?: () => Promise<void>;
  private heldSince = 0;
  private idleTimer?: NodeJS.Timeout;
  /** Where a group of lines is encoded for its write (see writeQueued). */
  private out: Buffer = Buffer.allocUnsafe(0);

  constructor(
    readonly path: string,
    private readonly options: JournalOptions = {},
  ) {
    this.io = options.io ?? defaultIo;
  }

  /** Reads every complete record; returns them and how many lines were unreadable. */
  async read(): Promise<{ records: T[]; skipped: number }> {
    const records: T[] = [];
    const skipped = await this.scan((r) => {
      records.push(r);
    });
    return { records, skipped };
  }

  /**
   * Calls `onRecord` for every record, reading the file in 1 MiB chunks, so that memory stays flat
   * however large the journal grows; returns how many lines were unreadable: not JSON (a torn line,
   * a hand edit) or refused by `onRecord` returning false. `onUnreadable` receives those lines. A
   * missing file has no records.
   */
  // biome-ignore lint/suspicious/noConfusingVoidType: callers pass block-bodied callbacks that return nothing (void) or false to stop
  async scan(onRecord: (record: T, line: string) => boolean | undefined | void, onUnreadable?: (line: string) => void): Promise<number> {
    let skipped = 0;
    const take = (line: string) => {
      if (!line.trim()) return;
      let record: T;
      try {
        record = JSON.parse(line) as T;
      } catch {
        skipped++;
        onUnreadable?.(line);
        return;
      }
      if (onRecord(record, line) === false) {
        skipped++;
        onUnreadable?.(line);
      }
    };
    let rest = '';
    try {
      for await (const chunk of createReadStream(this.path, { encoding: 'utf8', highWaterMark: 1 << 20 })) {
        const text = rest + (chunk as string);
        let start = 0;
        for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
          take(text.slice(start, nl));
          start = nl + 1;
        }
        rest = text.slice(start);
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw fsError(err, this.path);
    }
    take(rest);
    return skipped;
  }

  /** Opens the file for appending (created 0600 in a 0700 directory); cuts a torn last line. */
  async open(): Promise<void> {
    const release = this.release ? undefined : await this.options.lock?.();
    try {
      this.reopen();
    } catch (err) {
      throw fsError(err, this.path);
    } finally {
      await release?.().catch(() => undefined);
    }
  }

  private closeFd(): void {
    if (this.fd === undefined) return;
    try {
      closeSync(this.fd);
    } catch {
      /* already unusable */
    }
    this.fd = undefined;
  }

  private reopen(): void {
    this.closeFd();
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
    const fd = openSync(this.path, 'a+', 0o600);
    const st = fstatSync(fd);
    this.fd = fd;
    this.ino = st.ino;
    this.size = st.size;
    this.cutTornTail();
  }

  /**
   * If the file does not end with a newline, cuts it back to just after its last one (keeping the
   * cut bytes in `tornPath` when given). Only the tail is read, however large the file.
   */
  private cutTornTail(): void {
    const fd = this.fd as number;
    if (this.size === 0) return;
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, this.size - 1);
    if (last[0] === 0x0a) return;
    let end = this.size;
    let cut = 0;
    const chunk = Buffer.alloc(64 * 1024);
    search: while (end > 0) {
      const start = Math.max(0, end - chunk.length);
      const bytesRead = readSync(fd, chunk, 0, end - start, start);
      for (let i = bytesRead - 1; i >= 0; i--) {
        if (chunk[i] === 0x0a) {
          cut = start + i + 1;
          break search;
        }
      }
      end = start;
    }
    if (this.options.tornPath) {
      const torn = Buffer.alloc(this.size - cut);
      readSync(fd, torn, 0, torn.length, cut);
      try {
        appendFileSync(this.options.tornPath, Buffer.concat([torn, Buffer.from('\n')]), { mode: 0o600 });
      } catch {
        /* best effort: the torn line was never acknowledged */
      }
    }
    this.io.truncate(fd, cut);
    this.size = cut;
  }

  /** Appends one record; resolves once the OS has all its bytes, rejects when it could not be written. */
  append(record: T): Promise<void> {
    return new Promise((resolve, reject) => this.appendLine(`${JSON.stringify(record)}\n`, (err) => (err === undefined ? resolve() : reject(err))));
  }

  /** `append` without a promise: `done` is called with nothing once written, or with the error. */
  appendWith(record: T, done: (err?: unknown) => void): void {
    this.appendLine(`${JSON.stringify(record)}\n`, done);
  }

  /** `appendWith` for a record already serialised: `json` is what `JSON.stringify(record)` gives. */
  appendJsonWith(json: string, done: (err?: unknown) => void): void {
    this.appendLine(`${json}\n`, done);
  }

  private appendLine(line: string, done: (err?: unknown) => void): void {
    this.queue.push({ line, done });
    if (!this.busy) {
      this.busy = true;
      setImmediate(() => this.flush());
    }
  }

  /** Writes what is queued (after taking the lock if it is not held), then settles it. */
  private flush(): void {
    if (this.idleTimer) {
      clearTimeout(this.idleTimer);
      this.idleTimer = undefined;
    }
    if (this.options.lock && !this.release) {
      this.options.lock().then(
        (release) => {
          this.release = release;
          this.heldSince = Date.now();
          this.flush();
        },
        (err: unknown) => this.settle(err),
      );
      return;
    }
    let error: unknown;
    try {
      if (this.options.lock && this.heldSince > 0) {
        // Just locked: the file may have been replaced (prune) or removed (clear) while the lock was free.
        this.heldSince = -this.heldSince;
        let current: { ino: number; size: number } | undefined;
        try {
          current = statSync(this.path);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
        }
        if (this.fd === undefined || !current || current.ino !== this.ino) this.reopen();
        else {
          // Another writer may have appended meanwhile, and may have died mid-line: never glue onto that.
          this.size = current.size;
          this.cutTornTail();
        }
      } else if (this.fd === undefined) this.reopen();
      if (this.dirty) {
        this.size = fstatSync(this.fd as number).size;
        this.cutTornTail();
        this.dirty = false;
      }
      this.writeQueued();
    } catch (err) {
      error = err ?? new Error('write failed');
    }
    this.settle(error);
  }

  private settle(error: unknown): void {
    const batch = this.queue;
    this.queue = [];
    for (const b of batch) b.done(error);
    // Under steady load the lock is kept from one write to the next (a lock per write costs more than
    // the write), but never longer than HOLD_MS at a stretch: then it is let go for YIELD_MS so that
    // a prune or clear waiting for it gets in. A failed write lets it go too.
    const heldFor = Date.now() + this.heldSince; // heldSince is negative once checked
    if (this.release && (error !== undefined || heldFor >= HOLD_MS)) {
      void this.unlock().then(() => setTimeout(() => this.next(), YIELD_MS));
      return;
    }
    this.next();
  }

  /** After a write: the next one if records came in meanwhile, else idle. */
  private next(): void {
    if (this.queue.length > 0) {
      setImmediate(() => this.flush());
      return;
    }
    this.busy = false;
    if (this.release) {
      this.idleTimer = setTimeout(() => {
        this.idleTimer = undefined;
        if (!this.busy) void this.unlock();
      }, IDLE_RELEASE_MS);
      this.idleTimer.unref?.();
    }
    const drained = this.drained;
    this.drained = undefined;
    drained?.();
  }

  private async unlock(): Promise<void> {
    const release = this.release;
    this.release = undefined;
    this.heldSince = 0;
    await release?.().catch(() => undefined);
  }

  /**
   * Writes the queued lines with one write. They are encoded one after the other into a buffer kept
   * from write to write (no joined text, no new buffer per write); a group too large for it (over
   * REUSED_MAX bytes at worst) is joined and encoded on its own.
   */
  private writeQueued(): void {
    const batch = this.queue;
    let bound = 0;
    for (let i = 0; i < batch.length; i++) bound += (batch[i] as Pending).line.length * 3; // UTF-8 bytes per UTF-16 unit, at most
    if (bound > REUSED_MAX) {
      const buf = Buffer.from(batch.length === 1 ? (batch[0] as Pending).line : batch.map((b) => b.line).join(''));
      this.writeAll(buf, buf.length);
      return;
    }
    if (this.out.length < bound) this.out = Buffer.allocUnsafe(Math.min(REUSED_MAX, Math.max(bound, this.out.length * 2)));
    const out = this.out;
    let at = 0;
    for (let i = 0; i < batch.length; i++) at += out.write((batch[i] as Pending).line, at);
    this.writeAll(out, at);
  }

  private writeAll(buf: Buffer, length: number): void {
    const fd = this.fd as number;
    const before = this.size;
    let off = 0;
    try {
      while (off < length) {
        const n = this.io.write(fd, buf, off, length - off);
        if (!(n > 0)) throw Object.assign(new Error(`short write to ${this.path}`), { code: 'EIO' });
        off += n;
      }
      this.size = before + length;
    } catch (err) {
      // Nothing torn may stay: cut back to the length before this write.
      try {
        this.io.truncate(fd, before);
        this.size = before;
      } catch {
        this.dirty = true;
      }
      throw err;
    }
  }

  async close(): Promise<void> {
    if (this.busy) await new Promise<void>((resolve) => (this.drained = resolve));
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    await this.unlock();
    this.closeFd();
  }
}
