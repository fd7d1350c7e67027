import { mkdtempSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/core/db.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'paycli-db-'));
const migrations = [(db: import('../../src/core/db.js').Database) => db.exec('CREATE TABLE t (x INTEGER)')];

describe('openDatabase', () => {
  it('creates the file 0600 in a 0700 directory, in WAL mode, at the newest schema', async () => {
    const dir = join(tmp(), 'sub');
    const db = await openDatabase(join(dir, 'a.db'), { what: 'the test store', migrations });
    expect(statSync(join(dir, 'a.db')).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('user_version', { simple: true })).toBe(1);
    db.prepare('INSERT INTO t VALUES (1)').run();
    db.close();
    const again = await openDatabase(join(dir, 'a.db'), { what: 'the test store', migrations: [...migrations, (d) => d.exec('ALTER TABLE t ADD y TEXT')] });
    expect(again.pragma('user_version', { simple: true })).toBe(2);
    expect(again.prepare('SELECT x, y FROM t').all()).toEqual([{ x: 1, y: null }]);
    again.close();
  });

  it('refuses a symlinked file or companion, and a file another user owns', async () => {
    const dir = tmp();
    writeFileSync(join(dir, 'target'), 'keep');
    symlinkSync(join(dir, 'target'), join(dir, 'a.db'));
    await expect(openDatabase(join(dir, 'a.db'), { what: 'the test store', migrations })).rejects.toThrow(/symbolic link/);
    symlinkSync(join(dir, 'target'), join(dir, 'b.db-wal'));
    await expect(openDatabase(join(dir, 'b.db'), { what: 'the test store', migrations })).rejects.toThrow(/symbolic link/);
    const st = statSync(dir);
    await expect(openDatabase(join(dir, 'c.db'), { what: 'the test store', migrations, uid: st.uid + 1 })).rejects.toThrow(/another user/);
  });

  it('names the lock, not SQLite, when another process holds the store while it needs an upgrade', async () => {
    const file = join(tmp(), 'a.db');
    (await openDatabase(file, { what: 'the test store', migrations })).close();
    const other = await openDatabase(file, { what: 'the test store', migrations });
    other.exec('BEGIN IMMEDIATE');
    const upgrade = [...migrations, (d: import('../../src/core/db.js').Database) => d.exec('ALTER TABLE t ADD y TEXT')];
    await expect(openDatabase(file, { what: 'the test store', migrations: upgrade, busyTimeoutMs: 100 })).rejects.toThrow(
      /^cannot open the test store .*a\.db: another process has held its write lock for over 0\.1 s \(one bringing it to a newer schema/,
    );
    other.exec('COMMIT');
    const db = await openDatabase(file, { what: 'the test store', migrations: upgrade, busyTimeoutMs: 100 });
    expect(db.pragma('user_version', { simple: true })).toBe(2);
    db.close();
    other.close();
  });

  it('refuses a database written by a newer schema', async () => {
    const file = join(tmp(), 'a.db');
    (await openDatabase(file, { what: 'the test store', migrations: [...migrations, () => undefined] })).close();
    await expect(openDatabase(file, { what: 'the test store', migrations })).rejects.toThrow(/newer paycli/);
  });
});
