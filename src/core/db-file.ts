// The files of paycli's SQLite databases: made 0600 in a 0700 directory, never reached through a
// link or owned by another user (db.ts opens them).
import { chmodSync, closeSync, constants, lstatSync, mkdirSync, openSync, type Stats } from 'node:fs';
import { dirname } from 'node:path';
import { UsageError } from './errors.js';
import { fsError } from './fs-errors.js';

function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** Refuses a path that is a symlink, or a file or directory owned by someone else. */
function checkOwned(path: string, st: Stats | undefined, what: string, uid: number | undefined): void {
  if (!st) return;
  if (st.isSymbolicLink()) {
    throw new UsageError(`refusing to open ${what} ${path}: it is a symbolic link`, { hint: 'give the real path of a file you own' });
  }
  if (uid !== undefined && st.uid !== uid) {
    throw new UsageError(`refusing to open ${what} ${path}: it belongs to another user (uid ${st.uid})`, { hint: 'use a file in a directory of your own' });
  }
}

/** The file 0600 in a 0700 directory, created without following a link; refused when not safely the user's. */
export function prepareFile(file: string, what: string, uid: number | undefined): void {
  try {
    const dir = dirname(file);
    const created = mkdirSync(dir, { recursive: true, mode: 0o700 });
    checkOwned(dir, lstatOrUndefined(dir), `the directory of ${what}`, uid);
    if (created) chmodSync(dir, 0o700);
    for (const companion of [`${file}-wal`, `${file}-shm`, `${file}-journal`]) checkOwned(companion, lstatOrUndefined(companion), what, uid);
    const st = lstatOrUndefined(file);
    checkOwned(file, st, what, uid);
    // A directory (`--store /`, `--store ./data/`) is no database, and never has its mode changed.
    if (st && !st.isFile())
      throw new UsageError(`refusing to open ${what} ${file}: it is ${st.isDirectory() ? 'a directory' : 'not a regular file'}`, {
        hint: 'give the path of a file',
      });
    if (!st) {
      // Create it 0600 without following a link planted between the check and the open.
      try {
        closeSync(openSync(file, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY | constants.O_NOFOLLOW, 0o600));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        checkOwned(file, lstatOrUndefined(file), what, uid);
      }
    }
  } catch (err) {
    throw fsError(err, `${what} ${file}`);
  }
}

/** An existing file readable by others made 0600 (once it is known to be one of paycli's databases). */
export function tightenMode(file: string, what: string): void {
  try {
    const st = lstatSync(file);
    if (st.isFile() && (st.mode & 0o077) !== 0) chmodSync(file, 0o600);
  } catch (err) {
    throw fsError(err, `${what} ${file}`);
  }
}
