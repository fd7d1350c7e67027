import { chmod, mkdir, open, rename } from 'node:fs/promises';
import { statSync } from 'node:fs';
import { dirname } from 'node:path';
import { randomBytes } from 'node:crypto';

/**
 * Writes a file that may hold secrets: the directory is created 0700, the file 0600, and the write
 * is atomic (temporary file, fsync, rename), so a crash never leaves a half-written config.
 */
export async function writeSecureFile(path: string, content: string): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  const tmp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  const fh = await open(tmp, 'w', 0o600);
  try {
    await fh.writeFile(content);
    await fh.sync();
  } finally {
    await fh.close();
  }
  await chmod(tmp, 0o600);
  await rename(tmp, path);
}

/** Permission bits of a path, or undefined when it does not exist. */
export async function modeOf(path: string): Promise<number | undefined> {
  try {
    return statSync(path).mode & 0o777; // synchronous: one stat, without loading node:fs/promises
  } catch {
    return undefined;
  }
}
