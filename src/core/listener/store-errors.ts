/** SQLite's result codes, as the errno codes the rest of paycli speaks (`cannot store the request (ENOSPC)`). */
const ERRNO: Record<string, [string, string]> = {
  SQLITE_FULL: ['ENOSPC', 'no space left on the device'],
  SQLITE_IOERR: ['EIO', 'input/output error'],
  SQLITE_READONLY: ['EROFS', 'the store is read-only'],
  SQLITE_CANTOPEN: ['EACCES', 'the store cannot be opened'],
  SQLITE_BUSY: ['EBUSY', "another process holds the store's write lock"],
  SQLITE_CORRUPT: ['EIO', 'the database file is corrupt'],
  SQLITE_NOTADB: ['EIO', 'the file is not a database'],
};

/** A write the store could not make: nothing of it was committed. `code` is an errno-style code. */
export class StoreWriteError extends Error {
  readonly code: string;
  readonly sqliteCode: string | undefined;
  constructor(cause: unknown, path: string) {
    const sqliteCode = (cause as { code?: string })?.code;
    const base = sqliteCode?.replace(/^(SQLITE_[A-Z]+)_.*$/, '$1');
    const known = base ? ERRNO[base] : undefined;
    super(`cannot write the event store ${path}: ${known?.[1] ?? (cause as Error)?.message ?? String(cause)}`, { cause });
    this.code = known?.[0] ?? sqliteCode ?? 'EIO';
    this.sqliteCode = sqliteCode;
  }
}

/** Another process held the store's write lock for longer than this one would wait. */
export class StoreBusyError extends Error {
  readonly code = 'ESTOREBUSY';
}

export const isBusy = (err: unknown) => {
  const code = (err as { code?: string })?.code;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_BUSY_SNAPSHOT' || code === 'SQLITE_LOCKED';
};
