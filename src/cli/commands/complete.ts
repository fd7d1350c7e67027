import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cacheDir } from '../../core/config/paths.js';
import { channelCandidates } from '../completion.js';
import type { Handler } from '../command-env.js';
import type { Define } from '../command-kit.js';
import { topCommand } from './heads.js';

const PARENT: Record<string, RegExp> = { city: /^areas\/province$/, district: /^areas\/city\/\d+$/, village: /^areas\/district\/\d+$/ };

/** `paycli __complete KIND [ARGS…]` (hidden): values known only at run time, for the completion scripts. */
export const completeCommand: Handler<{ describe?: boolean }> = async (env, kind: string, args: string[] = []) => {
  const { ctx } = env;
  let items: string[] = [];
  if (kind === 'profiles') {
    try {
      items = Object.keys((await env.session.userConfig()).profiles);
    } catch {
      items = [];
    }
  } else if (kind === 'channels') {
    // The last `paycli channels` list when there is one (available channels only), else the built-in table.
    const { availableChannels, newestChannelCache } = await import('../../core/api/channel-cache.js');
    const cached = await newestChannelCache(cacheDir(ctx.env, ctx.homedir));
    const i = args.lastIndexOf('--method');
    const rows = cached ? availableChannels(cached, i >= 0 ? args[i + 1] : undefined) : [];
    items = rows.length > 0 ? [...new Set(rows.map((r) => r.channel))] : channelCandidates(args);
  } else if (kind === 'areas' && PARENT[args[0] ?? '']) {
    const dir = join(cacheDir(ctx.env, ctx.homedir), 'areas');
    const files = await readdir(dir).catch(() => [] as string[]);
    const seen = new Set<string>();
    for (const f of files.filter((x) => x.endsWith('.json'))) {
      try {
        const entry = JSON.parse(await readFile(join(dir, f), 'utf8')) as { path: string; data: { code: string; name: string }[] };
        if (!PARENT[args[0]!]!.test(entry.path)) continue;
        for (const r of entry.data) {
          if (seen.has(r.code)) continue;
          seen.add(r.code);
          items.push(env.opts.describe ? `${r.code}\t${r.name}` : r.code);
        }
      } catch {
        /* a torn cache entry completes nothing */
      }
    }
  }
  if (items.length) ctx.stdout.write(items.join('\n') + '\n');
  return 'ok';
};

// ── Definitions ─────────────────────────────────────────────────────────────────────────────────

const defineComplete: Define = (program, bind) =>
  bind(topCommand(program, '__complete').option('--describe', 'add descriptions (fish)').allowUnknownOption(), completeCommand);

export const commands = { __complete: defineComplete };
