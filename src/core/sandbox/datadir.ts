import { mkdir, readdir, readFile, realpath, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { UsageError } from '../errors.js';
import { fsError } from '../fs-errors.js';

/** Normal staleness: a holder that has not refreshed its lock for this long is presumed gone. */
const STALE_MS = 10_000;
/** Staleness used once the recorded holder's process is known to be dead (the library's minimum). */
const DEAD_HOLDER_STALE_MS = 2000;
const UPDATE_MS = 1000;

export interface DataDirLock {
  /** The data directory, symlinks resolved. */
  dir: string;
  /** A crashed holder whose lock was taken over, if any. */
  tookOverFrom?: number;
  /** Partial `*.tmp` files from an interrupted write that were removed. */
  removedTmp: string[];
  release(): Promise<void>;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function holder(dir: string): Promise<number | undefined> {
  try {
    const owner = JSON.parse(await readFile(join(dir, 'owner.json'), 'utf8')) as { pid?: unknown };
    return Number.isSafeInteger(owner.pid) ? (owner.pid as number) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Makes this process the only emulator on a data dir. The lock is `DIR/sandbox.lock`
 * (proper-lockfile: an atomic mkdir, refreshed every second); `DIR/owner.json` names the holder's
 * pid. A second emulator is refused (exit 2) with the dir and that pid. A lock left by a crash
 * (kill -9) is recognised: when the recorded holder's process is gone the lock is taken over as
 * soon as it has gone unrefreshed for 2 s, and in any case after 10 s. Then partial `*.tmp` files
 * of an interrupted write are removed.
 */
export async function lockDataDir(dataDir: string, onCompromised: (err: Error) => void): Promise<DataDirLock> {
  let dir: string;
  try {
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    dir = await realpath(dataDir);
  } catch (err) {
    throw fsError(err, `the emulator data dir ${dataDir}`);
  }
  const { default: lockfile } = await import('proper-lockfile');
  const options = (stale: number) => ({ stale, update: UPDATE_MS, realpath: false, lockfilePath: join(dir, 'sandbox.lock'), onCompromised });
  let release: () => Promise<void>;
  let tookOverFrom: number | undefined;
  try {
    release = await lockfile.lock(dir, options(STALE_MS));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ELOCKED') throw fsError(err, `the emulator data dir ${dir}`);
    let pid = await holder(dir);
    // The holder may be writing owner.json this very moment: give it a little time.
    for (let i = 0; i < 20 && pid === undefined; i++) {
      await new Promise((r) => setTimeout(r, 50));
      pid = await holder(dir);
    }
    if (pid !== undefined && alive(pid)) {
      throw new UsageError(`the emulator data dir ${dir} is in use by another paycli sandbox (pid ${pid})`, {
        hint: 'stop that emulator, or give this one another --data-dir (or --in-memory)',
      });
    }
    // The holder is gone (or never said who it was): wait for its lock to go unrefreshed, then take it.
    const until = Date.now() + STALE_MS + 2000;
    for (;;) {
      try {
        release = await lockfile.lock(dir, options(pid !== undefined ? DEAD_HOLDER_STALE_MS : STALE_MS));
        tookOverFrom = pid;
        break;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ELOCKED' || Date.now() > until) {
          throw new UsageError(`the emulator data dir ${dir} is locked${pid !== undefined ? ` (pid ${pid})` : ''} and the lock is still being refreshed`, {
            hint: 'another paycli sandbox uses it; stop it or pick another --data-dir',
          });
        }
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  }
  try {
    const tmp = join(dir, `owner.json.${process.pid}.tmp`);
    await writeFile(tmp, JSON.stringify({ pid: process.pid, since: new Date().toISOString() }) + '\n', { mode: 0o600 });
    await rename(tmp, join(dir, 'owner.json'));
    const removedTmp: string[] = [];
    for (const name of await readdir(dir)) {
      if (name.endsWith('.tmp')) {
        await rm(join(dir, name), { force: true });
        removedTmp.push(name);
      }
    }
    return {
      dir,
      tookOverFrom,
      removedTmp,
      async release() {
        await rm(join(dir, 'owner.json'), { force: true }).catch(() => undefined);
        await release().catch(() => undefined);
      },
    };
  } catch (err) {
    await release().catch(() => undefined);
    throw fsError(err, `the emulator data dir ${dir}`);
  }
}
