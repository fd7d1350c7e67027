import { channelCacheFile, writeChannelCache } from '../../core/api/channel-cache.js';
import { CHANNELS_PATH, checkChannelsData, describeFee, METHOD_LIST_PATH, readChannels } from '../../core/api/merchant.js';
import { cacheDir } from '../../core/config/paths.js';
import { GatewayError, UsageError } from '../../core/errors.js';
import type { Handler } from '../command-env.js';
import { rupiah } from '../output.js';
import { withSpinner } from '../spinner.js';
import { apiFlags, examples, type Define } from '../command-kit.js';
import { topCommand } from './heads.js';

interface ChannelsFlags {
  legacy?: boolean;
  method?: string;
}

/** `paycli channels`: methods, channels, fees and availability (GET payment-channels, or --legacy). */
export const channelsCommand: Handler<ChannelsFlags> = async (env) => {
  const { opts, out, session } = env;
  const req = opts.legacy ? await session.signed('POST', METHOD_LIST_PATH, '{"request":true}') : await session.signed('GET', CHANNELS_PATH);
  if (await session.preview(req)) return 'ok';
  const envelope = await withSpinner(env, opts.legacy ? 'POST payment-method-list' : 'GET payment-channels', async () => {
    try {
      return await session.send<unknown>(req, { checkData: checkChannelsData });
    } catch (err) {
      // A gateway without the documented GET route: the older POST route the Go SDK uses.
      if (opts.legacy || !(err instanceof GatewayError) || (err.status !== 404 && err.status !== 405)) throw err;
      out.info(out.e.dim(`GET payment-channels answered ${err.status}; using POST payment-method-list`));
      return session.send<unknown>(await session.signed('POST', METHOD_LIST_PATH, '{"request":true}'), { checkData: checkChannelsData });
    }
  });
  let rows = readChannels(envelope.Data);
  const cfg = await session.config();
  await writeChannelCache(channelCacheFile(cacheDir(env.ctx.env, env.ctx.homedir), cfg.env.value, cfg.baseUrl.value), rows, env.ctx.now()).catch(
    () => undefined,
  );
  if (opts.method) {
    rows = rows.filter((r) => r.method === opts.method);
    if (rows.length === 0) throw new UsageError(`no channels for method "${opts.method}"`);
  }
  if (out.json) {
    out.data(rows);
    return 'ok';
  }
  out.out(
    out.table(
      rows.map((r) => [
        r.method,
        r.channel,
        r.name,
        describeFee(r, rupiah),
        r.status === 'active' && r.health === 'online' ? 'available' : `${r.status}/${r.health}`,
      ]),
      ['METHOD', 'CHANNEL', 'NAME', 'FEE', 'STATUS'],
      (s) => out.c.bold(s),
    ),
  );
  return 'ok';
};

// ── Definitions ─────────────────────────────────────────────────────────────────────────────────

const defineChannels: Define = (program, bind) =>
  bind(
    examples(
      apiFlags(
        topCommand(program, 'channels')
          .option('--method <method>', "only this method's channels")
          .option('--legacy', 'use the older POST payment-method-list endpoint'),
      ),
      ['paycli channels', 'paycli --env local channels --method va --json', 'paycli channels --legacy'],
    ),
    channelsCommand,
  );

export const commands = { channels: defineChannels };
