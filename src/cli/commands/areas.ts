import { join } from 'node:path';
import { AuthError } from '../../core/errors.js';
import { AreaCache } from '../../core/api/area-cache.js';
import { areaPath, regionsFromData, type AreaLevel, type Region, PARENT_OF } from '../../core/api/areas.js';
import { cacheDir } from '../../core/config/paths.js';
import { checkRegionsData } from '../../core/http/envelope.js';
import { escapeControl } from '../../core/terminal-text.js';
import type { CommandEnv, Handler } from '../command-env.js';
import { canPrompt } from '../interaction.js';
import { withSpinner } from '../spinner.js';
import { apiFlags, examples, timeoutFlag, type Define } from '../command-kit.js';
import { topCommand } from './heads.js';

export function areaCache(env: CommandEnv): AreaCache {
  return new AreaCache(join(cacheDir(env.ctx.env, env.ctx.homedir), 'areas'));
}

const PLURAL: Record<AreaLevel, string> = { province: 'provinces', city: 'cities', district: 'districts', village: 'villages' };

/**
 * Fetches one level, from the disk cache when possible. Returns null when --dry-run/--curl printed
 * the request instead.
 */
export async function fetchAreas(env: CommandEnv, level: AreaLevel, code?: string): Promise<{ regions: Region[]; cached: boolean } | null> {
  const { session, opts } = env;
  const cfg = await session.config();
  const path = areaPath(level, code);
  const cache = areaCache(env);
  const useCache = opts.cache !== false && !opts.dryRun && !opts.curl;
  if (useCache) {
    const hit = await cache.get(cfg.env.value, cfg.baseUrl.value, path);
    if (hit) return { regions: hit, cached: true };
  }
  const req = await session.signed('GET', path);
  if (await session.preview(req)) return null;
  const envelope = await withSpinner(env, `GET ${path}`, () => session.send<unknown>(req, { checkData: checkRegionsData }));
  const regions = regionsFromData(envelope.Data);
  // An empty answer may be a typo'd code; only non-empty lookups are worth keeping.
  if (regions.length > 0) await cache.set(cfg.env.value, cfg.baseUrl.value, path, regions, env.ctx.now()).catch(() => undefined);
  return { regions, cached: false };
}

function render(env: CommandEnv, level: AreaLevel, code: string | undefined, regions: Region[]): void {
  const { out } = env;
  if (out.json) {
    out.data(regions);
    return;
  }
  if (regions.length === 0) {
    out.info(level === 'province' ? 'no provinces' : `no ${PLURAL[level]} for ${PARENT_OF[level]} ${code}`);
    return;
  }
  const village = level === 'village';
  const rows = regions.map((r) => (village ? [r.code, r.name, r.postal_code ?? '-'] : [r.code, r.name]));
  out.out(out.table(rows, village ? ['CODE', 'NAME', 'POSTAL CODE'] : ['CODE', 'NAME'], (s) => out.c.bold(s)));
}

export function areasList(level: AreaLevel): Handler {
  return async (env, code?: string) => {
    const result = await fetchAreas(env, level, code);
    if (!result) return 'ok';
    render(env, level, code, result.regions);
    if (result.cached) env.out.info(env.out.e.dim(`(${result.regions.length} ${PLURAL[level]} from cache; --no-cache to refresh)`));
    return 'ok';
  };
}

export const areasPick: Handler = async (env) => {
  if (!canPrompt(env.ctx, env.opts)) {
    throw new AuthError('`paycli areas pick` needs a terminal to ask in', {
      hint: 'use `paycli areas province`, `city CODE`, `district CODE` and `village CODE` in scripts',
    });
  }
  const { search } = await import('@inquirer/prompts');
  const io = { input: env.ctx.stdin, output: env.ctx.stderr };
  const chosen: Partial<Record<AreaLevel, Region>> = {};
  let code: string | undefined;
  for (const level of ['province', 'city', 'district', 'village'] as AreaLevel[]) {
    const result = await fetchAreas(env, level, code);
    const regions = result?.regions ?? [];
    if (regions.length === 0) break;
    const pickedCode = await search<string>(
      {
        message: `${level[0]!.toUpperCase()}${level.slice(1)} (type to filter)`,
        source: (term) => {
          const t = (term ?? '').toUpperCase();
          return regions
            .filter((r) => !t || r.name.includes(t) || r.code.startsWith(t))
            .map((r) => ({ name: escapeControl(`${r.name} (${r.code})`), value: r.code }));
        },
      },
      io,
    );
    chosen[level] = regions.find((r) => r.code === pickedCode)!;
    code = pickedCode;
  }
  if (env.out.json) env.out.data(chosen);
  else env.out.out(env.out.table(Object.entries(chosen).map(([level, r]) => [level, r!.code, r!.name + (r!.postal_code ? ` (${r!.postal_code})` : '')])));
  return 'ok';
};

export const areasCacheClear: Handler = async (env) => {
  const n = await areaCache(env).clear();
  if (env.out.json) env.out.data({ cleared: n });
  else env.out.out(`cleared ${n} cached region ${n === 1 ? 'lookup' : 'lookups'}`);
  return 'ok';
};

// ── Definition ──────────────────────────────────────────────────────────────────────────────────

const define: Define = (program, bind) => {
  const areas = topCommand(program, 'areas');
  examples(areas, ['paycli areas province', 'paycli areas city 51', 'paycli areas village 517101 --json', 'paycli areas pick']);
  for (const [level, arg, parent] of [
    ['province', '', ''],
    ['city', '<province>', 'province'],
    ['district', '<city>', 'city'],
    ['village', '<district>', 'district'],
  ] as const) {
    const cmd = areas
      .command(`${level}${arg ? ' ' + arg : ''}`)
      .description(
        level === 'province' ? 'list provinces (sorted by name)' : `list the ${level === 'city' ? 'cities and regencies' : level + 's'} of a ${parent} code`,
      );
    const list = apiFlags(cmd).option('--no-cache', 'bypass the disk cache');
    examples(
      list,
      level === 'province'
        ? ['paycli areas province', 'paycli areas province --json | jq ".[0]"']
        : [
            `paycli areas ${level} ${({ city: '51', district: '5171', village: '517101' } as Record<string, string>)[level]}`,
            `paycli --env local areas ${level} ${({ city: '51', district: '5171', village: '517101' } as Record<string, string>)[level]} --json`,
          ],
    );
    bind(list, areasList(level));
  }
  bind(
    examples(
      timeoutFlag(
        areas
          .command('pick')
          .description('walk the cascade interactively (type to filter) and print the chosen regions')
          .option('--no-cache', 'bypass the disk cache'),
      ),
      ['paycli areas pick', 'paycli --env local areas pick --json'],
    ),
    areasPick,
  );
  const cache = areas.command('cache').description('the region cache on disk');
  bind(
    examples(cache.command('clear').description('empty the region cache'), ['paycli areas cache clear', 'paycli areas cache clear --json']),
    areasCacheClear,
  );
};

export const commands = { areas: define };
