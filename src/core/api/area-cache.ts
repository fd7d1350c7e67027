import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sha256Hex } from '../signing/digest.js';
import type { Region } from './areas.js';

/**
 * Disk cache of region lookups (region data is static; docs/gateway.md, "Payments"), keyed by env, base URL and path.
 * Small files, read and written synchronously: a lookup is one command's single step, and this keeps
 * node:fs/promises (~0.7 ms to load) off its start-up.
 */
export class AreaCache {
  constructor(readonly dir: string) {}

  private file(env: string, baseUrl: string, path: string): string {
    const key = sha256Hex(`${env}\n${baseUrl}\n${path}`).slice(0, 32);
    return join(this.dir, `${key}.json`);
  }

  async get(env: string, baseUrl: string, path: string): Promise<Region[] | undefined> {
    try {
      const entry = JSON.parse(readFileSync(this.file(env, baseUrl, path), 'utf8')) as { path: string; data: Region[] };
      return entry.path === path && Array.isArray(entry.data) ? entry.data : undefined;
    } catch {
      return undefined; // missing or torn entries are misses
    }
  }

  async set(env: string, baseUrl: string, path: string, data: Region[], now: Date): Promise<void> {
    mkdirSync(this.dir, { recursive: true });
    const file = this.file(env, baseUrl, path);
    const tmp = `${file}.${Math.random().toString(36).slice(2, 10)}.tmp`;
    writeFileSync(tmp, JSON.stringify({ env, baseUrl, path, savedAt: now.toISOString(), data }));
    renameSync(tmp, file);
  }

  /** Removes every entry; returns how many there were. */
  async clear(): Promise<number> {
    let names: string[];
    try {
      names = readdirSync(this.dir).filter((n) => n.endsWith('.json'));
    } catch {
      return 0;
    }
    rmSync(this.dir, { recursive: true, force: true });
    return names.length;
  }
}
