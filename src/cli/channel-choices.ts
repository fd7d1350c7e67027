import { availableChannels, channelCacheFile, readChannelCache } from '../core/api/channel-cache.js';
import { describeFee } from '../core/api/merchant.js';
import { cacheDir } from '../core/config/paths.js';
import { CHANNEL_NAMES, channelsOf } from '../core/payment-rules.js';
import { escapeControl } from '../core/terminal-text.js';
import type { CommandEnv } from './command-env.js';
import { rupiah } from './output.js';

/**
 * The channel choices `pay` prompts with: the channels of the last `paycli channels` for this
 * environment that are available and known to the local validation, with their fees; the built-in
 * table when nothing is cached.
 */
export async function channelChoices(env: CommandEnv, method: string): Promise<{ value: string; name: string }[]> {
  const builtIn = channelsOf(method);
  const cfg = await env.session.config();
  const cached = await readChannelCache(channelCacheFile(cacheDir(env.ctx.env, env.ctx.homedir), cfg.env.value, cfg.baseUrl.value));
  const rows = cached ? availableChannels(cached, method).filter((r) => builtIn.includes(r.channel)) : [];
  // The names came from the gateway (via the cache): the prompt shows them escaped.
  if (rows.length > 0) return rows.map((r) => ({ value: r.channel, name: escapeControl(`${r.channel} — ${r.name} · fee ${describeFee(r, rupiah)}`) }));
  return builtIn.map((c) => ({ value: c, name: `${c} — ${CHANNEL_NAMES[c] ?? c}` }));
}
