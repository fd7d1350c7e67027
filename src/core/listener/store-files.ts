import {
  closeSync,
  constants,
  copyFileSync,
  existsSync,
  fstatSync,
  linkSync,
  lstatSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  unlinkSync,
} from 'node:fs';
import type { Database } from '../db.js';
import { eventWrites, insertEvents, insertParams } from './event-schema.js';
import { isStoredEvent } from './stored-event.js';

/** The first 16 bytes of every SQLite database file. */
const SQLITE_MAGIC = 'SQLite format 3\u0000';

/** Whether the file `fd` opens begins as every SQLite database does. */
function sqliteHead(fd: number): boolean {
  const head = Buffer.alloc(16);
  return readSync(fd, head, 0, 16, 0) === 16 && head.toString('latin1') === SQLITE_MAGIC;
}

/** The longest first line read to tell a JSONL store (the previous release took bodies of up to 1 MiB, escaped in JSON). */
const FIRST_LINE_MAX = 16 * 1024 * 1024;

/** Whether the first line of the file `fd` opens is an event of the previous release's JSONL store. */
function legacyHead(fd: number): boolean {
  const chunks: Buffer[] = [];
  let size = 0;
  for (;;) {
    const chunk = Buffer.alloc(Math.min(256 * 1024 * 2 ** chunks.length, FIRST_LINE_MAX - size));
    const n = readSync(fd, chunk, 0, chunk.length, size);
    chunks.push(chunk.subarray(0, n));
    size += n;
    const text = Buffer.concat(chunks, size).toString('utf8');
    const first = text.split('\n').find((l, i, all) => l.trim() !== '' && (i < all.length - 1 || n === 0 || size >= FIRST_LINE_MAX));
    if (first !== undefined) {
      try {
        return isStoredEvent(JSON.parse(first));
      } catch {
        return false;
      }
    }
    if (n === 0 || size >= FIRST_LINE_MAX) return false;
  }
}

/**
 * What is at a store's path, judged through one descriptor (another process opening the same store
 * may move a JSONL file aside and make the database in its place meanwhile: each file is judged
 * whole, never the first one's size with the second one's bytes): `none` (absent, empty, or not a
 * regular file: opening the database decides), `sqlite`, `legacy` (a JSONL store of the previous
 * release), or `other` (a README, a CSV, a damaged database).
 */
export function storeFileKind(path: string): 'none' | 'sqlite' | 'legacy' | 'other' {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return 'none';
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size === 0) return 'none';
    return sqliteHead(fd) ? 'sqlite' : legacyHead(fd) ? 'legacy' : 'other';
  } catch {
    return 'other';
  } finally {
    closeSync(fd);
  }
}

/**
 * Moves a JSONL store at `path` to `dest` (`<path>.migrated`) without ever replacing a file there:
 * a hard link, then the name removed. Several processes opening the store at once race for it; the
 * losers find `dest` made and leave it alone (the one file at `path` that may still be removed is
 * that same file, by inode). Returns false when `dest` holds another file and `path` is still a
 * JSONL store (the caller refuses it).
 */
export function moveAside(path: string, dest: string): boolean {
  try {
    linkSync(path, dest);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return true; // another process moved it
    if (code !== 'EEXIST') {
      // No hard links on this file system: a copy that never replaces a file, then the original removed.
      copyFileSync(path, dest, constants.COPYFILE_EXCL);
      unlinkSync(path);
      return true;
    }
    // Another process moved it and made the database here (still empty while it creates it): carry on.
    if (!sameFile(path, dest)) {
      const now = storeFileKind(path);
      return now === 'none' || now === 'sqlite';
    }
  }
  try {
    unlinkSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  return true;
}

function sameFile(a: string, b: string): boolean {
  try {
    const [x, y] = [lstatSync(a), lstatSync(b)];
    return x.ino === y.ino && x.dev === y.dev;
  } catch {
    return false;
  }
}

function isRegularFile(path: string): boolean {
  try {
    return lstatSync(path).isFile();
  } catch {
    return false;
  }
}

/** `<name>.jsonl` beside a `<name>.db`: where the previous release kept the same store. */
export function legacySibling(path: string): string | undefined {
  return path.endsWith('.db') ? `${path.slice(0, -3)}.jsonl` : undefined;
}

/** The JSONL store of the previous release to import for the store at `path`, if there is one. */
export function legacySource(path: string): string | undefined {
  const sibling = legacySibling(path);
  return [`${path}.migrated`, ...(sibling ? [sibling] : [])].find((c) => isRegularFile(c));
}

/**
 * Imports a JSONL store of the previous release once, in one transaction: `source` (legacySource's:
 * `<name>.jsonl` beside a `<name>.db`, or the file this store's path named, already moved to
 * `<path>.migrated`). A marker
 * row in `meta` says it was done, so that a crash between the commit and the rename never imports
 * it twice, and an id seen twice is imported once. Lines that are not events (a torn last line) are skipped.
 */
export function importLegacy(db: Database, path: string, source: string): void {
  const sibling = legacySibling(path);
  const done = db.prepare("SELECT value FROM meta WHERE key = 'legacy-import'").pluck();
  let imported = false;
  db.transaction(() => {
    if (done.get() !== undefined) return;
    const { insert, summarize } = eventWrites(db);
    const rows: unknown[][] = [];
    const ids = new Set<string>();
    for (const line of readFileSync(source, 'utf8').split('\n')) {
      if (!line.trim()) continue;
      let e: unknown;
      try {
        e = JSON.parse(line);
      } catch {
        continue;
      }
      // A line written twice (an append retried) is one event.
      if (isStoredEvent(e) && !ids.has(e.id)) {
        ids.add(e.id);
        rows.push(insertParams(e));
      }
    }
    insertEvents(insert, summarize, rows);
    db.prepare("INSERT INTO meta (key, value) VALUES ('legacy-import', ?)").run(source);
    imported = true;
  }).immediate();
  if (source === sibling && (imported || !existsSync(`${sibling}.migrated`))) {
    try {
      renameSync(sibling, `${sibling}.migrated`);
    } catch {
      /* another process renamed it */
    }
  }
}
