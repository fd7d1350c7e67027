import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { keepUntilExit } from '../../src/core/db.js';
import { type DataDirLock, lockDataDir, openDataDir } from '../../src/core/sandbox/datadir.js';
import { SandboxState } from '../../src/core/sandbox/state.js';
import { afterEachTest } from '../helpers/cleanups.js';

const { tempDir, later } = afterEachTest('paycli-lock-race-');

/** This process holding the lock as another one that has not recorded its pid yet. */
async function holdWithoutPid(dir: string): Promise<DataDirLock> {
  const lock = await lockDataDir(dir, { pid: 4242 });
  later(() => lock.release());
  return lock;
}

async function ledger(dir: string): Promise<SandboxState> {
  const s = await SandboxState.open(dir);
  later(() => s.close());
  return s;
}

const refusal = (p: Promise<unknown>) =>
  p.then(
    () => 'taken',
    (e: Error) => e.message,
  );

describe('the holder of a data dir, named to a process it refuses', () => {
  it('a holder that took the lock but has not created the ledger yet: named once it records its pid', async () => {
    const dir = tempDir();
    await holdWithoutPid(dir);
    const refused = refusal(openDataDir(dir, { pid: 5353, alive: () => true }));
    // The holder goes on starting: the ledger, then its pid (before or after the refused process first looked).
    (await ledger(dir)).setHolder(4242);
    expect(await refused).toBe(`the emulator data dir ${dir} is in use by another paycli process (pid 4242)`);
  });

  it("a killed holder's pid still in the ledger is not named: the new holder's is, once recorded", async () => {
    const dir = tempDir();
    const state = await ledger(dir);
    state.setHolder(999_999); // left by a holder killed with kill -9
    await holdWithoutPid(dir);
    const asked: number[] = [];
    const alive = (pid: number) => {
      asked.push(pid);
      // The new holder records itself while the refused process sees only the dead one.
      if (pid === 999_999) state.setHolder(4242);
      return pid !== 999_999;
    };
    expect(await refusal(openDataDir(dir, { pid: 5353, alive }))).toBe(`the emulator data dir ${dir} is in use by another paycli process (pid 4242)`);
    expect(asked).toEqual([999_999, 4242]);
  });

  it('lock.db locked while another process creates it is "in use", not "cannot open"', async () => {
    const dir = tempDir();
    (await ledger(dir)).setHolder(4242);
    // Another process between creating lock.db and switching it to WAL: an exclusive lock on the file.
    const creating = keepUntilExit(new Sqlite(join(dir, 'lock.db')));
    later(() => creating.close());
    creating.exec('BEGIN EXCLUSIVE');
    expect(await refusal(openDataDir(dir, { pid: 5353, alive: () => true }))).toBe(
      `the emulator data dir ${dir} is in use by another paycli process (pid 4242)`,
    );
  });

  it('a holder that lets go before recording its pid: the waiting process takes the data dir', async () => {
    const dir = tempDir();
    (await ledger(dir)).setHolder(999_999); // left by a holder killed with kill -9
    const lock = await holdWithoutPid(dir);
    // The holder ends (a quick `sandbox seed`) while the refused process sees only the dead pid.
    const alive = (pid: number) => {
      void lock.release();
      return pid !== 999_999;
    };
    const opened = await openDataDir(dir, { pid: 5353, alive });
    later(() => opened.close());
    expect(opened.state.holder()?.pid).toBe(5353);
  });
});
