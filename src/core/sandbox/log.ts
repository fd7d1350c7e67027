import { constants } from 'node:fs';
import { mkdir, open, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Journal } from '../journal.js';
import { fsError } from '../fs-errors.js';

/** A journal append that did not reach the file whole: nothing of it is kept, nothing is acknowledged. */
export class StoreError extends Error {
  readonly code: string;
  constructor(cause: unknown, readonly path: string) {
    const code = (cause as NodeJS.ErrnoException)?.code ?? 'EIO';
    super(`cannot write the emulator journal ${path}: ${code === 'ENOSPC' ? 'no space left on the device' : ((cause as Error)?.message ?? String(cause))}`);
    this.code = code;
  }
}

/** The file operations the log uses; tests inject failures through them. */
export interface LogFile {
  write(buffer: Buffer, offset: number, length: number, position: number): Promise<{ bytesWritten: number }>;
  truncate(length: number): Promise<void>;
  stat(): Promise<{ size: number }>;
  read(buffer: Buffer, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
  close(): Promise<void>;
}

/**
 * The emulator's journal writer, on top of the shared reader in `journal.ts`. Appends are grouped
 * (records queued while a write is in flight go out in the next single write) and written at the
 * known end of the file; a record's promise resolves only when every byte of its batch is in the
 * file. A failed or short write (ENOSPC, EIO, EFBIG, EDQUOT…) cuts the file back to its length
 * before the batch and rejects every record of it with a `StoreError`, so a torn line is never
 * left for the next record to be glued onto, and the caller can leave its memory unchanged and
 * answer 503. Durable here means "in the operating system": a `kill -9` loses nothing acknowledged.
 */
export class SandboxLog<T> {
  private fh?: LogFile;
  private size = 0;
  private queue: { line: string; resolve: () => void; reject: (e: unknown) => void }[] = [];
  private writing = false;
  private drained: (() => void)[] = [];

  constructor(
    readonly path: string,
    private readonly openFile: (path: string) => Promise<LogFile> = async (p) => (await open(p, constants.O_RDWR | constants.O_CREAT, 0o600)) as FileHandle,
  ) {}

  /** Reads every readable record in order; returns how many lines were unreadable. */
  scan(onRecord: (record: T) => void): Promise<number> {
    return new Journal<T>(this.path).scan(onRecord);
  }

  async open(): Promise<void> {
    try {
      await mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
      this.fh = await this.openFile(this.path);
      this.size = (await this.fh.stat()).size;
      if (this.size > 0) {
        // A line torn by a crash is unreadable and skipped; end it so the next record starts clean.
        const last = Buffer.alloc(1);
        await this.fh.read(last, 0, 1, this.size - 1);
        if (last[0] !== 0x0a) await this.writeAll(Buffer.from('\n'));
      }
    } catch (err) {
      throw fsError(err, this.path);
    }
  }

  append(record: T): Promise<void> {
    if (!this.fh) return Promise.reject(new StoreError(Object.assign(new Error('the journal is closed'), { code: 'EBADF' }), this.path));
    return new Promise((resolve, reject) => {
      this.queue.push({ line: JSON.stringify(record) + '\n', resolve, reject });
      void this.flush();
    });
  }

  /** Writes the whole buffer at the end of the file, or cuts the file back and throws. */
  private async writeAll(buf: Buffer): Promise<void> {
    const fh = this.fh!;
    let done = 0;
    try {
      while (done < buf.length) {
        const { bytesWritten } = await fh.write(buf, done, buf.length - done, this.size + done);
        if (bytesWritten <= 0) throw Object.assign(new Error('short write'), { code: 'ENOSPC' });
        done += bytesWritten;
      }
      this.size += buf.length;
    } catch (err) {
      if (done > 0) await fh.truncate(this.size).catch(() => undefined);
      throw new StoreError(err, this.path);
    }
  }

  private async flush(): Promise<void> {
    if (this.writing || !this.fh) return;
    this.writing = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, this.queue.length);
        try {
          await this.writeAll(Buffer.from(batch.map((b) => b.line).join('')));
          for (const b of batch) b.resolve();
        } catch (err) {
          for (const b of batch) b.reject(err);
        }
      }
    } finally {
      this.writing = false;
      for (const d of this.drained.splice(0)) d();
    }
  }

  async close(): Promise<void> {
    if (this.writing || this.queue.length > 0) await new Promise<void>((r) => this.drained.push(r));
    const fh = this.fh;
    this.fh = undefined;
    await fh?.close();
  }
}
