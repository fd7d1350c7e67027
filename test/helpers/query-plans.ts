import type { Database } from '../../src/core/db.js';

/** The statements `fn` prepares on `db`, each with its query plan's steps (every parameter bound to 0). */
export function plansOf(db: Database, fn: () => unknown): { sql: string; plan: string[] }[] {
  const seen: string[] = [];
  const prepare = db.prepare;
  db.prepare = ((sql: string) => {
    seen.push(sql);
    return prepare.call(db, sql);
  }) as typeof db.prepare;
  try {
    fn();
  } finally {
    db.prepare = prepare;
  }
  return seen.map((sql) => ({
    sql,
    plan: (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...Array((sql.match(/\?/g) ?? []).length).fill(0)) as { detail: string }[]).map((p) => p.detail),
  }));
}
