import type { Database, Statement } from '../db.js';
import { parcelDue } from './state-schema.js';
import { SessionTaken, StoreError } from './state-types.js';

/** The statements of the ledger's holder (each part extends `stmts` with its own). */
export interface CoreStatements {
  holder: Statement<[], { pid: number | null; since: string }>;
}

function prepareCore(db: Database): CoreStatements {
  return {
    holder: db.prepare<[], { pid: number | null; since: string }>(`SELECT pid, since FROM holder`),
  };
}

/**
 * The ledger's base (state.ts composes the parts on it): the database, its writes (one SQLite
 * transaction each, a failure a `StoreError`), the per-transaction lock, the holder, and the
 * object of prepared statements that every part extends with its own: spread into a new object, as
 * added one by one (Object.assign) the 40 statements would put the object in V8's slower dictionary mode.
 */
export class LedgerCore {
  /** Called after every committed change (the dashboard's live updates). */
  onChange?: () => void;
  /** What the one-time import of an older journal found (see `journal-import.ts`). */
  skipped = 0;
  reconciled = 0;
  private locks = new Map<number, Promise<unknown>>();
  protected readonly stmts: CoreStatements;
  protected readonly refreshDue: (trxId: number) => void;

  protected constructor(
    readonly db: Database,
    readonly path: string,
  ) {
    this.stmts = prepareCore(db);
    this.refreshDue = parcelDue(db);
  }

  /** Runs `fn` as one SQLite transaction; a failure rolls all of it back and throws a `StoreError`. */
  write<R>(fn: () => R): R {
    let result: R;
    try {
      result = this.db.transaction(fn).immediate();
    } catch (err) {
      if (err instanceof SessionTaken) throw err;
      if ((err as Error)?.name === 'SqliteError' || (err as { code?: unknown })?.code === 'ENOSPC') throw new StoreError(err, this.path);
      throw err;
    }
    this.onChange?.();
    return result;
  }

  /** Runs `fn` alone for one transaction (a transition is checked and stored before the next one looks). */
  async exclusive<R>(id: number, fn: () => Promise<R>): Promise<R> {
    const prev = this.locks.get(id) ?? Promise.resolve();
    const run = prev.then(fn, fn);
    const tail = run.catch(() => undefined);
    this.locks.set(id, tail);
    try {
      return await run;
    } finally {
      if (this.locks.get(id) === tail) this.locks.delete(id);
    }
  }

  /** Names this process as the data dir's holder (read by a second emulator to say who holds it). */
  setHolder(pid: number | null): void {
    this.write(() => {
      this.db.prepare('DELETE FROM holder').run();
      if (pid !== null) this.db.prepare('INSERT INTO holder (one, pid, since) VALUES (1, ?, ?)').run(pid, new Date().toISOString());
    });
  }

  holder(): { pid: number | null; since: string } | undefined {
    return this.stmts.holder.get();
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
