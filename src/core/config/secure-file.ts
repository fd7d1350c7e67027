import { chmod, mkdir, open, readdir, rename, stat, unlink } from 'node:fs/promises';
import { statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';

/** A temporary file older than this is left over from a run that died mid-write. */
const STALE_TMP_MS = 60_000;

/** `config.json.<12 hex digits>.tmp`: the names writeSecureFile gives its temporary files. */
function tmpPattern(name: string): RegExp {
  return new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.[0-9a-f]{12}\\.tmp$`);
}

/**
 * Removes temporary files of `path` (writeSecureFile's naming only) that a run which died mid-write
 * (killed, power cut) left behind. Recent ones are kept: another paycli may be writing them now.
 */
async function removeStaleTemps(path: string, now = Date.now()): Promise<void> {
  const dir = dirname(path);
  const pattern = tmpPattern(basename(path));
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!pattern.test(name)) continue;
    const file = join(dir, name);
    try {
      const st = await stat(file);
      if (st.isFile() && now - st.mtimeMs > STALE_TMP_MS) await unlink(file);
    } catch {
      // gone already, or not ours to remove: never a reason to fail the write
    }
  }
}

/**
 * Writes a file that may hold secrets: the directory is created 0700, the file 0600, and the write
 * is atomic (temporary file, fsync, rename), so a crash never leaves a half-written config. A write
 * that fails removes its temporary file; temporary files a killed run left behind are removed by
 * the next write.
 */
export async function writeSecureFile(path: string, content: string): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  await removeStaleTemps(path);
  const tmp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  const fh = await open(tmp, 'wx', 0o600);
  try {
    try {
      await fh.writeFile(content);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await chmod(tmp, 0o600);
    await rename(tmp, path);
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
  // The rename is durable once the directory is synced (best effort: not every file system can).
  const dh = await open(dir, 'r').catch(() => undefined);
  if (dh)
    await dh
      .sync()
      .catch(() => undefined)
      .finally(() => dh.close());
}
/** Permission bits of a path, or undefined when it does not exist. */
export async function modeOf(path: string): Promise<number | undefined> {
  try {
    return statSync(path).mode & 0o777; // synchronous: one stat, without loading node:fs/promises
  } catch {
    return undefined;
  }
}
