// The append-only JSONL journal (src/core/journal.ts), which the emulator still writes: a failed or
// short write leaves nothing torn for the next record to be glued to.
import { appendFileSync, existsSync, ftruncateSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Journal, type JournalIo } from '../../src/core/journal.js';
import { tempHome } from '../helpers/cli.js';

let home: ReturnType<typeof tempHome>;
beforeAll(() => (home = tempHome()));
afterAll(() => home.cleanup());

const lines = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8') : '').split('\n').filter(Boolean);

describe('journal: a failed or short write', () => {
  it('rejects every record of the write and cuts the file back to its length before it', async () => {
    const path = join(home.home, 'short.jsonl');
    let mode: 'ok' | 'short-then-enospc' | 'enospc' = 'ok';
    const io: JournalIo = {
      write(fd, buf, off, len) {
        if (mode === 'enospc') throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
        if (mode === 'short-then-enospc') {
          mode = 'enospc'; // the kernel takes a part, then the next write fails
          return writeSync(fd, buf, off, Math.max(1, Math.floor(len / 3)));
        }
        return writeSync(fd, buf, off, len);
      },
      truncate: (fd, len) => ftruncateSync(fd, len),
    };
    const j = new Journal<{ n: number; pad: string }>(path, { io });
    await j.append({ n: 1, pad: 'x'.repeat(100) });
    mode = 'short-then-enospc';
    const failed = await Promise.allSettled([j.append({ n: 2, pad: 'y'.repeat(100) }), j.append({ n: 3, pad: 'z'.repeat(100) })]);
    expect(failed.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect((failed[0] as PromiseRejectedResult).reason.code).toBe('ENOSPC');
    expect(lines(path).map((l) => JSON.parse(l).n)).toEqual([1]); // nothing torn left behind
    mode = 'ok';
    await j.append({ n: 4, pad: '' }); // space is back: a whole line, not glued to a torn one
    await j.close();
    expect(readFileSync(path, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l).n)).toEqual([1, 4]);
    expect(await new Journal(path).read()).toMatchObject({ skipped: 0 });
  });

  it('a write that returns 0 bytes is a failure, not a success', async () => {
    const path = join(home.home, 'zero.jsonl');
    const j = new Journal<{ n: number }>(path, { io: { write: () => 0, truncate: (fd, len) => ftruncateSync(fd, len) } });
    await expect(j.append({ n: 1 })).rejects.toThrow(/short write/);
    await j.close();
    expect(readFileSync(path, 'utf8')).toBe('');
  });

  it('when even the cut fails, the torn tail is cut back to the last complete line before the next write', async () => {
    const path = join(home.home, 'cutfails.jsonl');
    let fail = false;
    let failCut = false;
    const io: JournalIo = {
      write(fd, buf, off, len) {
        if (!fail) return writeSync(fd, buf, off, len);
        fail = false;
        failCut = true;
        writeSync(fd, buf, off, 5); // a torn piece reaches the file …
        throw Object.assign(new Error('I/O error'), { code: 'EIO' });
      },
      truncate(fd, len) {
        if (failCut) {
          failCut = false; // … and the cut back fails once
          throw Object.assign(new Error('I/O error'), { code: 'EIO' });
        }
        ftruncateSync(fd, len);
      },
    };
    const j = new Journal<{ n: number }>(path, { io });
    await j.append({ n: 1 });
    fail = true;
    await expect(j.append({ n: 2 })).rejects.toThrow('I/O error');
    expect(readFileSync(path, 'utf8')).toBe('{"n":1}\n{"n":');
    await j.append({ n: 3 });
    await j.close();
    expect(readFileSync(path, 'utf8')).toBe('{"n":1}\n{"n":3}\n');
  });

  it('a torn line left by another writer between two of our writes is cut off, never glued to the next record', async () => {
    const path = join(home.home, 'shared-writer.jsonl');
    let held = false;
    const lock = async () => {
      held = true;
      return async () => {
        held = false;
      };
    };
    const j = new Journal<{ n: number }>(path, { tornPath: `${path}.unreadable`, lock });
    await j.open();
    await j.append({ n: 1 });
    for (let i = 0; i < 100 && held; i++) await new Promise((r) => setTimeout(r, 10)); // an idle writer lets the lock go
    expect(held).toBe(false);
    appendFileSync(path, '{"n":2,"tor'); // another writer (trigger, a second listener) killed mid-append
    await j.append({ n: 3 }); // same descriptor, same file, grown by someone else
    await j.close();
    expect(readFileSync(path, 'utf8')).toBe('{"n":1}\n{"n":3}\n');
    expect(readFileSync(`${path}.unreadable`, 'utf8')).toBe('{"n":2,"tor\n');
  });

  it('a torn last line left by a crash is cut off at open and kept in the side file', async () => {
    const path = join(home.home, 'torn.jsonl');
    writeFileSync(path, '{"n":1}\n{"n":2}\n{"n":3,"tor');
    const j = new Journal<{ n: number }>(path, { tornPath: `${path}.unreadable` });
    await j.open();
    await j.append({ n: 4 });
    await j.close();
    expect(readFileSync(path, 'utf8')).toBe('{"n":1}\n{"n":2}\n{"n":4}\n');
    expect(readFileSync(`${path}.unreadable`, 'utf8')).toBe('{"n":3,"tor\n');
  });
});

describe('journal: the lines of a group are encoded into one buffer kept from write to write', () => {
  it('writes each record as JSON.stringify gives it, in order, whatever the group sizes and characters', async () => {
    const path = join(home.home, 'groups.jsonl');
    const sizes: number[] = [];
    const io: JournalIo = {
      write(fd, buf, off, len) {
        sizes.push(len);
        return writeSync(fd, buf, off, len);
      },
      truncate: (fd, len) => ftruncateSync(fd, len),
    };
    const j = new Journal<{ n: number; text: string }>(path, { io });
    const texts = ['plain', 'Ñandú 日本 🌺', 'lone \ud800 surrogate', 'quote " backslash \\ nl \n', 'x'.repeat(400_000), 'é'.repeat(200_000), ''];
    const want: string[] = [];
    // Group 1: many small records; group 2: one over the reused buffer's limit at worst; group 3: small again (no bytes of an earlier group may show).
    const groups = [texts.slice(0, 4).concat(texts.slice(0, 4)), [texts[4]!, texts[5]!], [texts[6]!, texts[0]!]];
    let n = 0;
    for (const g of groups) {
      const writes = g.map((text) => {
        const r = { n: n++, text };
        want.push(`${JSON.stringify(r)}\n`);
        return j.append(r);
      });
      await Promise.all(writes);
    }
    await j.close();
    expect(sizes).toHaveLength(3); // one write per group
    expect(readFileSync(path, 'utf8')).toBe(want.join(''));
    expect(readFileSync(path).length).toBe(Buffer.byteLength(want.join('')));
  });
});
