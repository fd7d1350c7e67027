import { createReadStream } from 'node:fs';
import { appendFile, mkdir, open, stat, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fsError } from './fs-errors.js';

/** Writes `length` bytes of `buffer` from `offset` at the end of the file; returns how many it wrote. */
export type JournalWrite = (fh: FileHandle, buffer: Buffer, offset: number, length: number) => Promise<number>;

export interface JournalOptions {
  /**
   * Taken around every write and released after it (returns the release). Other processes that take
   * the same lock may replace or remove the file meanwhile (a prune, a clear): under the lock, the
   * journal notices and reopens the file at its path before writing.
   */
  lock?: () => Promise<() => Promise<void>>;
  /** Where the bytes of a torn last line are kept when it is cut off (appended; best effort). */
  tornPath?: string;
  /** The write itself (a seam for tests that inject short writes and ENOSPC). */
  write?: JournalWrite;
}

const defaultWrite: JournalWrite = async (fh, buffer, offset, length) => (await fh.write(buffer, offset, length)).bytesWritten;

interface Pending {
  line: string;
  done: (err?: unknown) => void;
}

/**
 * An append-only JSONL journal with group commit: records queued while a write is in flight are
 * joined into the next single write. A record is settled once the OS has all of its bytes, so a
 * `kill -9` after an answer loses nothing.
 *
 * A write that fails or comes back short (ENOSPC, EIO, EFBIG, EDQUOT, …) fails every record of that
 * write, and the file is cut back to its length before the write (ftruncate): nothing torn is left
 * for the next record to be glued to. If even the cut fails, the torn tail is cut back to the last
 * complete line before the next write. A torn last line left by a crash is cut off the same way when
 * the journal is opened (its bytes kept in `tornPath` when given); readers skip and count it.
 */
export class Journal<T> {
  private fh?: FileHandle;
  private ino?: number;
  private size = 0;
  /** The tail may hold a torn line (a cut that failed): repair before the next write. */
  private dirty = false;
  private queue: Pending[] = [];
  private writing = false;
  private drained?: () => void;
  private readonly write: JournalWrite;

  constructor(
    readonly path: string,
    private readonly options: JournalOptions = {},
  ) {
    this.write = options.write ?? defaultWrite;
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
  async scan(onRecord: (record: T, line: string) => boolean | void, onUnreadable?: (line: string) => void): Promise<number> {
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
    const release = await this.options.lock?.();
    try {
      await this.reopen();
    } catch (err) {
      throw fsError(err, this.path);
    } finally {
      await release?.().catch(() => undefined);
    }
  }

  private async reopen(): Promise<void> {
    await this.fh?.close().catch(() => undefined);
    this.fh = undefined;
    await mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
    const fh = await open(this.path, 'a+', 0o600);
    const st = await fh.stat();
    this.fh = fh;
    this.ino = st.ino;
    this.size = st.size;
    await this.cutTornTail();
  }

  /**
   * If the file does not end with a newline, cuts it back to just after its last one (keeping the
   * cut bytes in `tornPath` when given). Only the tail is read, however large the file.
   */
  private async cutTornTail(): Promise<void> {
    const fh = this.fh!;
    if (this.size === 0) return;
    const last = Buffer.alloc(1);
    await fh.read(last, 0, 1, this.size - 1);
    if (last[0] === 0x0a) return;
    let end = this.size;
    let cut = 0;
    const chunk = Buffer.alloc(64 * 1024);
    search: while (end > 0) {
      const start = Math.max(0, end - chunk.length);
      const { bytesRead } = await fh.read(chunk, 0, end - start, start);
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
      await fh.read(torn, 0, torn.length, cut);
      await appendFile(this.options.tornPath, Buffer.concat([torn, Buffer.from('\n')]), { mode: 0o600 }).catch(() => undefined);
    }
    await fh.truncate(cut);
    this.size = cut;
  }

  /** Appends one record; resolves once the OS has all its bytes, rejects when it could not be written. */
  append(record: T): Promise<void> {
    return new Promise((resolve, reject) => this.appendLine(JSON.stringify(record) + '\n', (err) => (err === undefined ? resolve() : reject(err))));
  }

  /** `append` without a promise: `done` is called with nothing once written, or with the error. */
  appendWith(record: T, done: (err?: unknown) => void): void {
    this.appendLine(JSON.stringify(record) + '\n', done);
  }

  private appendLine(line: string, done: (err?: unknown) => void): void {
    this.queue.push({ line, done });
    if (!this.writing) void this.flush();
  }

  private async flush(): Promise<void> {
    this.writing = true;
    while (this.queue.length > 0) {
      const batch = this.queue;
      this.queue = [];
      let error: unknown;
      let release: (() => Promise<void>) | undefined;
      try {
        if (this.options.lock) {
          release = await this.options.lock();
          // Under the lock the file may have been replaced (prune) or removed (clear) since the last write.
          let current: { ino: number; size: number } | undefined;
          try {
            current = await stat(this.path);
          } catch (err) {
            if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
          }
          if (!this.fh || !current || current.ino !== this.ino) await this.reopen();
          else this.size = current.size;
        } else if (!this.fh) await this.reopen();
        if (this.dirty) {
          this.size = (await this.fh!.stat()).size;
          await this.cutTornTail();
          this.dirty = false;
        }
        await this.writeAll(Buffer.from(batch.length === 1 ? batch[0]!.line : batch.map((b) => b.line).join('')));
      } catch (err) {
        error = err ?? new Error('write failed');
      }
      // Settled before the lock is released: the bytes are written (or cut back) either way.
      for (const b of batch) b.done(error);
      if (release) await release().catch(() => undefined);
    }
    this.writing = false;
    this.drained?.();
  }

  private async writeAll(buf: Buffer): Promise<void> {
    const fh = this.fh!;
    const before = this.size;
    let off = 0;
    try {
      while (off < buf.length) {
        const n = await this.write(fh, buf, off, buf.length - off);
        if (!(n > 0)) throw Object.assign(new Error(`short write to ${this.path}`), { code: 'EIO' });
        off += n;
      }
      this.size = before + buf.length;
    } catch (err) {
      // Nothing torn may stay: cut back to the length before this write.
      try {
        await fh.truncate(before);
        this.size = before;
      } catch {
        this.dirty = true;
      }
      throw err;
    }
  }

  async close(): Promise<void> {
    if (this.writing || this.queue.length > 0) await new Promise<void>((resolve) => (this.drained = resolve));
    this.drained = undefined;
    await this.fh?.close();
    this.fh = undefined;
  }
}
