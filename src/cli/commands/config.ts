import { AuthError, UsageError } from '../../core/errors.js';
import { cacheDir, configDir, dataDir } from '../../core/config/paths.js';
import { parseSetting, SETTING_KEYS, writeUserConfig, type SettingKey, type UserConfig } from '../../core/config/profiles.js';
import type { ProfileChoice, ResolvedConfig, Sourced } from '../../core/config/resolve.js';
import { maskApiKey, maskSecret } from '../../core/signing/request-signature.js';
import type { Handler } from '../command-env.js';
import { readStdin } from '../io.js';
import { examples, type Define } from '../command-kit.js';
import { configInit } from './config-init.js';
import { topCommand } from './heads.js';

/** Why a profile was chosen, in words, for messages that must say which profile they change. */
function chosenBy(choice: ProfileChoice): string {
  switch (choice.source) {
    case 'flag':
      return 'by --profile';
    case 'env':
      return 'by PAYCLI_PROFILE';
    case 'project':
      return `by the ${choice.origin}`;
    default:
      return 'as the default';
  }
}

/** `, chosen by …` when the profile was not simply the default or named on the command line. */
function noteChoice(choice: ProfileChoice): string {
  return choice.source === 'env' || choice.source === 'project' ? ` (chosen ${chosenBy(choice)})` : '';
}

function checkKey(key: string): SettingKey {
  if (!(key in SETTING_KEYS)) throw new UsageError(`unknown setting "${key}"`, { hint: `settings: ${Object.keys(SETTING_KEYS).join(', ')}` });
  return key as SettingKey;
}

/** Secrets (the API key, and the VA: the callback signing key) are shown masked unless revealed. */
function display(key: string, value: unknown, reveal = false): string {
  if (value === undefined) return '';
  if (reveal) return String(value);
  return key === 'api-key' ? maskApiKey(String(value)) : key === 'va' ? maskSecret(String(value)) : String(value);
}

/**
 * A production profile's secrets are changed only when the command names the profile with
 * --profile: `config set va …` after `config init --profile prod …` must not overwrite production.
 */
function guardProductionSecret(user: UserConfig, choice: ProfileChoice, key: SettingKey, action: string): void {
  const name = choice.value;
  if (key !== 'va' && key !== 'api-key') return;
  if ((user.profiles[name]?.env ?? 'sandbox') !== 'production' || choice.source === 'flag') return;
  throw new UsageError(`refusing to ${action} ${key} of profile "${name}": it is a production profile, selected ${chosenBy(choice)}`, {
    hint: `name it to confirm: paycli config ${action} ${key} … --profile ${name}`,
  });
}

export const configSet: Handler = async (env, key: string, rawValue: string) => {
  const k = checkKey(key);
  const { session, out } = env;
  let value = rawValue;
  if (value === '-') value = (await readStdin(env.ctx)).replace(/\r?\n$/, '');
  const parsed = parseSetting(k, value);
  const user = await session.userConfig();
  const choice = await session.profileChoice();
  const name = choice.value;
  guardProductionSecret(user, choice, k, 'set');
  if (k === 'env' && parsed === 'production' && (user.profiles[name]?.env ?? 'sandbox') !== 'production' && choice.source !== 'flag') {
    throw new UsageError(`refusing to turn profile "${name}" into a production profile without naming it`, {
      hint: `paycli config set env production --profile ${name} (or create one: paycli config init --profile prod --env production)`,
    });
  }
  const profile = (user.profiles[name] ??= {});
  (profile as Record<string, unknown>)[SETTING_KEYS[k]] = parsed;
  user.defaultProfile ??= name;
  await writeUserConfig(session.userPath, user);
  if (out.json) out.data({ profile: name, key: k, value: display(k, parsed), profileOrigin: choice.origin });
  else out.out(`set ${k} = ${display(k, parsed)} in profile "${name}"${noteChoice(choice)}`);
  return 'ok';
};

export const configUnset: Handler = async (env, key: string) => {
  const k = checkKey(key);
  const { session, out } = env;
  const user = await session.userConfig();
  const choice = await session.profileChoice();
  const name = choice.value;
  guardProductionSecret(user, choice, k, 'unset');
  const profile = user.profiles[name];
  const had = profile !== undefined && SETTING_KEYS[k] in profile;
  if (profile) delete (profile as Record<string, unknown>)[SETTING_KEYS[k]];
  if (had) await writeUserConfig(session.userPath, user);
  if (out.json) out.data({ profile: name, key: k, removed: had });
  else out.out((had ? `removed ${k} from profile "${name}"` : `${k} was not set in profile "${name}"`) + noteChoice(choice));
  return 'ok';
};

function entries(cfg: ResolvedConfig): [SettingKey | 'profile', Sourced<unknown> | undefined][] {
  return [
    ['profile', cfg.profile],
    ['env', cfg.env],
    ['base-url', cfg.baseUrl],
    ['va', cfg.va],
    ['api-key', cfg.apiKey],
    ['timeout', cfg.timeout],
    ['notify-url', cfg.notifyUrl],
  ];
}

export const configGet: Handler<{ reveal?: boolean }> = async (env, key: string) => {
  const k = key === 'profile' ? 'profile' : checkKey(key);
  const cfg = await env.session.config();
  const found = entries(cfg).find(([name]) => name === k)?.[1];
  if (!found) throw new AuthError(`${k} is not set`, { hint: `set it with \`paycli config set ${k} VALUE\` or its environment variable` });
  const value = display(k, found.value, env.opts.reveal);
  if (env.out.json) env.out.data({ key: k, value, origin: found.origin });
  else env.out.out(value);
  return 'ok';
};

export const configList: Handler<{ showOrigin?: boolean }> = async (env) => {
  const cfg = await env.session.config();
  const rows = entries(cfg).map(([k, s]) => ({ key: k, value: s ? display(k, s.value) : null, origin: s?.origin ?? null }));
  if (env.out.json) env.out.data(rows);
  else env.out.out(env.out.table(rows.map((r) => (env.opts.showOrigin ? [r.key, r.value ?? '-', r.origin ?? ''] : [r.key, r.value ?? '-']))));
  return 'ok';
};

/** `paycli config profiles`: every profile, its environment and masked VA; the active one marked. */
export const configProfiles: Handler = async (env) => {
  const { session, out } = env;
  const user = await session.userConfig();
  const active = (await session.profileChoice()).value;
  const rows = Object.entries(user.profiles).map(([name, p]) => ({
    name,
    active: name === active,
    default: name === user.defaultProfile,
    env: p.env ?? 'sandbox',
    va: p.va ? maskSecret(p.va) : null,
    apiKey: p.apiKey ? maskApiKey(p.apiKey) : null,
  }));
  if (out.json) {
    out.data(rows);
    return 'ok';
  }
  if (rows.length === 0) {
    out.info(`no profiles in ${session.userPath}; create one with \`paycli config init\``);
    return 'ok';
  }
  out.out(
    out.table(
      rows.map((r) => [r.active ? '*' : ' ', r.name, r.env, r.va ?? '-', r.apiKey ? 'key set' : 'no key', r.default ? 'default' : '']),
      [' ', 'PROFILE', 'ENV', 'VA', 'API KEY', ''],
      (t) => out.c.bold(t),
    ),
  );
  return 'ok';
};

/** `paycli config use NAME`: makes a profile the default. */
export const configUse: Handler = async (env, name: string) => {
  const { session, out } = env;
  const user = await session.userConfig();
  const profile = user.profiles[name];
  if (!profile) {
    const known = Object.keys(user.profiles);
    throw new UsageError(`no profile "${name}" in ${session.userPath}`, {
      hint: known.length ? `profiles: ${known.join(', ')}` : `create it with \`paycli config init --profile ${name}\``,
    });
  }
  user.defaultProfile = name;
  await writeUserConfig(session.userPath, user);
  const envName = profile.env ?? 'sandbox';
  if (out.json) out.data({ profile: name, env: envName, default: true });
  else out.out(`default profile is now "${name}" (${envName})`);
  if (envName === 'production') out.warn('the default profile is now production: every command without --profile or --env talks to the real gateway');
  return 'ok';
};

export const configPath: Handler = async (env) => {
  const { ctx, session, out } = env;
  const paths = {
    config: session.userPath,
    configDir: configDir(ctx.env, ctx.homedir),
    cache: cacheDir(ctx.env, ctx.homedir),
    data: dataDir(ctx.env, ctx.homedir),
  };
  if (out.json) out.data(paths);
  else out.out(out.table(Object.entries(paths)));
  return 'ok';
};

// ── Definitions ─────────────────────────────────────────────────────────────────────────────────

const defineConfig: Define = (program, bind) => {
  const config = topCommand(program, 'config');
  examples(config, [
    'paycli config init',
    'paycli config set va 1179000899',
    'printf %s "$KEY" | paycli config set api-key -',
    'paycli config list --show-origin',
  ]);
  bind(
    examples(
      config
        .command('init')
        .description('create or update a profile (wizard on a terminal; flags otherwise)')
        .option('--default', 'make it the default profile (a production profile never becomes the default otherwise)'),
      ['paycli config init', 'paycli config init --profile prod --env production --va 1234567890 --api-key-file key.txt --no-input'],
    ),
    configInit,
  );
  bind(
    examples(
      config
        .command('set <key> <value>')
        .description('set a setting of the profile (value "-" reads stdin); keys: env, va, api-key, base-url, timeout, notify-url'),
      ['paycli config set env local', 'paycli config set api-key - < key.txt'],
    ),
    configSet,
  );
  bind(
    examples(
      config
        .command('get <key>')
        .description('print one resolved setting (the VA and API key masked unless --reveal)')
        .option('--reveal', 'print the VA or API key in full'),
      ['paycli config get va', 'paycli config get api-key --reveal'],
    ),
    configGet,
  );
  bind(
    examples(config.command('unset <key>').description('remove a setting from the profile'), [
      'paycli config unset base-url',
      'paycli --profile prod config unset notify-url',
    ]),
    configUnset,
  );
  bind(
    examples(config.command('list').description('list resolved settings').option('--show-origin', 'say where each value came from'), [
      'paycli config list',
      'paycli config list --show-origin --json',
    ]),
    configList,
  );
  bind(
    examples(config.command('profiles').description('list the profiles: environment, masked VA, the active one marked'), [
      'paycli config profiles',
      'paycli config profiles --json',
    ]),
    configProfiles,
  );
  bind(examples(config.command('use <name>').description('make a profile the default'), ['paycli config use sandbox', 'paycli config use prod']), configUse);
  bind(
    examples(config.command('path').description('print the paths of the user config, cache and data directories'), [
      'paycli config path',
      'paycli config path --json',
    ]),
    configPath,
  );
};

export const commands = { config: defineConfig };
