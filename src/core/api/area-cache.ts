import { createHash } from 'node:crypto';
import { mkdir, readFile, rm, writeFile, rename, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Region } from './areas.js';

/** Disk cache of region lookups (region data is static; spec 4 rule 3), keyed by env, base URL and path. */
export class AreaCache {
  constructor(readonly dir: string) {}

  private file(env: string, baseUrl: string, path: string): string {
    const key = createHash('sha256').update(`${env}\n${baseUrl}\n${path}`).digest('hex').slice(0, 32);
    return join(this.dir, `${key}.json`);
  }

  async get(env: string, baseUrl: string, path: string): Promise<Region[] | undefined> {
    try {
      const entry = JSON.parse(await readFile(this.file(env, baseUrl, path), 'utf8')) as { path: string; data: Region[] };
      return entry.path === path && Array.isArray(entry.data) ? entry.data : undefined;
    } catch {
      return undefined; // missing or torn entries are misses
    }
  }

  async set(env: string, baseUrl: string, path: string, data: Region[], now: Date): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const file = this.file(env, baseUrl, path);
    const tmp = `${file}.${createHash('sha256').update(String(Math.random())).digest('hex').slice(0, 8)}.tmp`;
    await writeFile(tmp, JSON.stringify({ env, baseUrl, path, savedAt: now.toISOString(), data }));
    await rename(tmp, file);
  }

  /** Removes every entry; returns how many there were. */
  async clear(): Promise<number> {
    let names: string[];
    try {
      names = (await readdir(this.dir)).filter((n) => n.endsWith('.json'));
    } catch {
      return 0;
    }
    await rm(this.dir, { recursive: true, force: true });
    return names.length;
  }
}
