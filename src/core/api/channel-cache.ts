import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { ChannelInfo } from './merchant.js';

/**
 * The last channel list `paycli channels` fetched, per environment and base URL, under
 * `$XDG_CACHE_HOME/paycli/channels/`. `pay` offers its channels in prompts and the completion
 * scripts complete them; without a cache both fall back to the built-in method/channel table.
 */
export function channelCacheFile(cacheRoot: string, envName: string, baseUrl: string): string {
  return join(cacheRoot, 'channels', `${`${envName}-${baseUrl}`.replace(/[^A-Za-z0-9.-]+/g, '_')}.json`);
}

interface CacheEntry {
  fetchedAt: string;
  channels: ChannelInfo[];
}

export async function writeChannelCache(file: string, channels: ChannelInfo[], now: Date): Promise<void> {
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  await writeFile(file, JSON.stringify({ fetchedAt: now.toISOString(), channels } satisfies CacheEntry), { mode: 0o600 });
}

async function readEntry(file: string): Promise<CacheEntry | undefined> {
  try {
    const e = JSON.parse(await readFile(file, 'utf8')) as CacheEntry;
    return Array.isArray(e?.channels) && typeof e.fetchedAt === 'string' ? e : undefined;
  } catch {
    return undefined; // missing or torn: the built-in table is used
  }
}

export async function readChannelCache(file: string): Promise<ChannelInfo[] | undefined> {
  return (await readEntry(file))?.channels;
}

/** The most recently fetched list of any environment (completion scripts do not resolve config). */
export async function newestChannelCache(cacheRoot: string): Promise<ChannelInfo[] | undefined> {
  const dir = join(cacheRoot, 'channels');
  const names = await readdir(dir).catch(() => [] as string[]);
  let best: CacheEntry | undefined;
  for (const n of names.filter((x) => x.endsWith('.json'))) {
    const e = await readEntry(join(dir, n));
    if (e && (!best || e.fetchedAt > best.fetchedAt)) best = e;
  }
  return best?.channels;
}

/** Available channels of a method from a cached list (all methods when none is given). */
export function availableChannels(rows: ChannelInfo[], method?: string): ChannelInfo[] {
  return rows.filter((r) => (!method || r.method === method) && r.status === 'active' && r.health === 'online');
}
