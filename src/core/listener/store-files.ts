import { closeSync, existsSync, lstatSync, openSync, readFileSync, readSync, renameSync } from 'node:fs';
import type { Database } from '../db.js';
import { INSERT_SQL, insertParams } from './event-schema.js';
import { isStoredEvent } from './stored-event.js';

/** The first 16 bytes of every SQLite database file. */
const SQLITE_MAGIC = 'SQLite format 3\u0000';

export function isSqliteFile(path: string): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const head = Buffer.alloc(16);
    const n = readSync(fd, head, 0, 16, 0);
    return n === 16 && head.toString('latin1') === SQLITE_MAGIC;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Whether a file's first line is an event of the previous release's JSONL store. */
export function isLegacyStore(path: string): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const head = Buffer.alloc(256 * 1024);
    const n = readSync(fd, head, 0, head.length, 0);
    const text = head.subarray(0, n).toString('utf8');
    const first = text.split('\n').find((l) => l.trim() !== '');
    return first !== undefined && isStoredEvent(JSON.parse(first));
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

export function isRegularFile(path: string): boolean {
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

/**
 * Imports a JSONL store of the previous release once, in one transaction: `<name>.jsonl` beside a
 * `<name>.db`, or the file this store's path named (already moved to `<path>.migrated`). A marker
 * row in `meta` says it was done, so that a crash between the commit and the rename never imports
 * it twice; ids are unique anyway. Lines that are not events (a torn last line) are skipped.
 */
export function importLegacy(db: Database, path: string): string | undefined {
  const sibling = legacySibling(path);
  const candidates = [`${path}.migrated`, ...(sibling ? [sibling] : [])];
  const source = candidates.find((c) => isRegularFile(c));
  if (!source) return undefined;
  const done = db.prepare("SELECT value FROM meta WHERE key = 'legacy-import'").pluck();
  let imported = false;
  db.transaction(() => {
    if (done.get() !== undefined) return;
    const insert = db.prepare(INSERT_SQL.replace('INSERT', 'INSERT OR IGNORE'));
    for (const line of readFileSync(source, 'utf8').split('\n')) {
      if (!line.trim()) continue;
      let e: unknown;
      try {
        e = JSON.parse(line);
      } catch {
        continue;
      }
      if (isStoredEvent(e)) insert.run(insertParams(e));
    }
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
  return source;
}
