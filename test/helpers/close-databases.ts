// Run after each test file (vitest setupFiles): closes the SQLite databases its tests left open, so
// that the worker's teardown never finalizes a statement of an open database (Node 24 aborts there
// with better-sqlite3 12: see closeOpenDatabases in src/core/db.ts).
import { afterAll } from 'vitest';
import { closeOpenDatabases } from '../../src/core/db.js';

afterAll(() => {
  closeOpenDatabases();
});
