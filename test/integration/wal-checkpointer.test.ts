// The listener's WAL is copied back into its database by a worker thread, not by the thread that
// answers callbacks (src/core/wal-checkpointer.ts).
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/core/db.js';
import { BACKSTOP_PAGES, startWalCheckpointer } from '../../src/core/wal-checkpointer.js';

const dir = mkdtempSync(join(tmpdir(), 'paycli-ckpt-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('WAL checkpoints in a worker thread', () => {
  it('copy what the writer committed into the database while the writer never checkpoints itself', async () => {
    const file = join(dir, 'events.db');
    const db = await openDatabase(file, { what: 'a test store', migrations: [(d) => d.exec('CREATE TABLE t (x TEXT)')] });
    let checkpoints = 0;
    let checkpointed: () => void = () => undefined;
    const ckpt = await startWalCheckpointer(db, file, {
      synchronous: 'NORMAL',
      intervalMs: 1,
      onCheckpoint: () => {
        checkpoints++;
        checkpointed();
      },
    });
    // The writer's own automatic checkpoint is moved out of the way (a backstop only).
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(BACKSTOP_PAGES);
    const before = statSync(file).size;
    const insert = db.prepare('INSERT INTO t (x) VALUES (?)');
    db.transaction(() => {
      for (let i = 0; i < 2000; i++) insert.run('x'.repeat(1000));
    })();
    // Committed to the WAL only: the database file has not grown.
    expect(statSync(file).size).toBe(before);
    await new Promise<void>((resolve) => {
      checkpointed = resolve;
      ckpt.poke();
    });
    expect(checkpoints).toBe(1);
    expect(statSync(file).size).toBeGreaterThan(before + 1_000_000);
    // Nothing left for anyone to copy: the worker did it all.
    const [row] = db.pragma('wal_checkpoint(PASSIVE)') as { busy: number; log: number; checkpointed: number }[];
    expect(row!.log).toBe(row!.checkpointed);
    await ckpt.close();
    // Closed: the writer checkpoints itself again, at SQLite's usual size.
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    ckpt.poke(); // ignored once closed
    db.close();
  });
});
