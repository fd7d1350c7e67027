import { createReadStream } from 'node:fs';
import { mkdir, open, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fsError } from './fs-errors.js';

/**
 * An append-only JSONL journal with group commit: records written while a write is in flight are
 * joined into the next single write. A record's promise resolves once the OS has the bytes, so a
 * `kill -9` after an answer loses nothing. A torn last line (a crash mid-write) is skipped on read.
 */
export class Journal<T> {
  private fh?: FileHandle;
  private queue: { line: string; resolve: () => void; reject: (e: unknown) => void }[] = [];
  private writing = false;

  constructor(readonly path: string) {}

  /** Reads every complete record; returns them and how many lines were unreadable. */
  async read(): Promise<{ records: T[]; skipped: number }> {
    const records: T[] = [];
    const skipped = await this.scan((r) => records.push(r));
    return { records, skipped };
  }

  /**
   * Calls `onRecord` for every complete record, reading the file in 1 MiB chunks, so that memory
   * stays flat however large the journal grows; returns how many lines were unreadable (a torn
   * last line, a hand-edited one). A missing file has no records.
   */
  async scan(onRecord: (record: T) => void): Promise<number> {
    let skipped = 0;
    const take = (line: string) => {
      if (!line.trim()) return;
      try {
        onRecord(JSON.parse(line) as T);
      } catch {
        skipped++;
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

  async open(): Promise<void> {
    try {
      await mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
      this.fh = await open(this.path, 'a+', 0o600);
      // A torn last line from a crash must not swallow the next record: end it with a newline.
      // (Only the last byte is read, however large the journal.)
      const { size } = await this.fh.stat();
      if (size > 0) {
        const last = Buffer.alloc(1);
        await this.fh.read(last, 0, 1, size - 1);
        if (last[0] !== 0x0a) await this.fh.write('\n');
      }
    } catch (err) {
      throw fsError(err, this.path);
    }
  }

  append(record: T): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ line: JSON.stringify(record) + '\n', resolve, reject });
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    if (this.writing || !this.fh) return;
    this.writing = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, this.queue.length);
        try {
          await this.fh.write(batch.map((b) => b.line).join(''));
          for (const b of batch) b.resolve();
        } catch (err) {
          for (const b of batch) b.reject(err);
        }
      }
    } finally {
      this.writing = false;
    }
  }

  async close(): Promise<void> {
    while (this.writing || this.queue.length > 0) await new Promise((r) => setTimeout(r, 5));
    await this.fh?.close();
    this.fh = undefined;
  }
}
