import type { Database, Statement } from '../db.js';
import type { RedirectSession } from './redirect-session.js';
import { TxnPages } from './state-pages.js';
import type { TxnStatements } from './state-transactions.js';

/** The statements of redirect sessions, with those of the parts below. */
export interface SessionStatements extends TxnStatements {
  insertSession: Statement<[string, string, string]>;
  session: Statement<[string], { body: string }>;
}

function prepareSessions(db: Database): Omit<SessionStatements, keyof TxnStatements> {
  return {
    insertSession: db.prepare<[string, string, string]>(`INSERT INTO sessions (sid, merchant_va, body) VALUES (?, ?, ?)`),
    session: db.prepare<[string], { body: string }>(`SELECT body FROM sessions WHERE sid = ?`),
  };
}

/** Redirect sessions (the one a session becomes is linked by `addTransaction`). */
export class SessionLedger extends TxnPages {
  declare protected readonly stmts: SessionStatements;

  protected constructor(db: Database, path: string) {
    super(db, path);
    this.stmts = { ...this.stmts, ...prepareSessions(db) };
  }

  async addSession(s: RedirectSession): Promise<void> {
    this.write(() => this.stmts.insertSession.run(s.sid, s.merchantVa, JSON.stringify(s)));
  }

  session(sid: string): RedirectSession | undefined {
    const r = this.stmts.session.get(sid);
    return r && (JSON.parse(r.body) as RedirectSession);
  }

  /** Every redirect session (export). */
  sessions(): RedirectSession[] {
    return this.db
      .prepare<[], { body: string }>('SELECT body FROM sessions ORDER BY rowid')
      .all()
      .map((r) => JSON.parse(r.body) as RedirectSession);
  }
}
