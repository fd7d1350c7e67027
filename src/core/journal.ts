import { mkdir, open, readFile, type FileHandle } from 'node:fs/promises';
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
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { records: [], skipped: 0 };
      throw fsError(err, this.path);
    }
    const records: T[] = [];
    let skipped = 0;
    for (const line of text.split('\n')) {
      if (!line.trim()) continue;
      try {
        records.push(JSON.parse(line) as T);
      } catch {
        skipped++;
      }
    }
    return { records, skipped };
  }

  async open(): Promise<void> {
    try {
      await mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
      this.fh = await open(this.path, 'a', 0o600);
      // A torn last line from a crash must not swallow the next record: end it with a newline.
      const text = await readFile(this.path, 'utf8');
      if (text.length > 0 && !text.endsWith('\n')) await this.fh.write('\n');
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
