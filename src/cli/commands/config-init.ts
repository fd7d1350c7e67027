import { AuthError } from '../../core/errors.js';
import { ENVIRONMENTS, parseSetting, writeUserConfig, type Settings } from '../../core/config/profiles.js';
import { maskApiKey, maskSecret } from '../../core/signing/request-signature.js';
import type { Handler } from '../command-env.js';
import { canPrompt } from '../interaction.js';
import { isVaNumber } from '../../core/va.js';

/**
 * `paycli config init`: writes a profile from the flags, or from a wizard in a terminal (the API
 * key never on argv: --api-key-file or PAYCLI_API_KEY); production becomes the default only with --default.
 */
export const configInit: Handler<{ baseUrl?: string; default?: boolean }> = async (env) => {
  const { session, opts, ctx, out } = env;
  const user = await session.userConfig();
  const name = (await session.profileChoice()).value;
  const existing = user.profiles[name] ?? {};
  const settings: Settings = { ...existing };
  if (opts.env) settings.env = String(parseSetting('env', opts.env));
  if (opts.va) settings.va = String(parseSetting('va', opts.va));
  if (opts.baseUrl) settings.baseUrl = String(parseSetting('base-url', opts.baseUrl));
  const keyFromFlags = (await session.flagApiKey()) ?? ctx.env.PAYCLI_API_KEY;
  if (keyFromFlags) settings.apiKey = keyFromFlags;
  if (canPrompt(ctx, opts)) {
    const { select, input, password } = await import('@inquirer/prompts');
    const io = { input: ctx.stdin, output: ctx.stderr };
    if (!opts.env)
      settings.env = await select<string>(
        { message: 'Environment', choices: ENVIRONMENTS.map((e) => ({ value: e, name: e })), default: settings.env ?? 'sandbox' },
        io,
      );
    if (!opts.va) {
      settings.va = await input(
        { message: 'Merchant VA (virtual account number)', default: settings.va, validate: (v) => isVaNumber(v.trim()) || 'digits only' },
        io,
      );
      settings.va = settings.va.trim();
    }
    if (!keyFromFlags) {
      const key = await password({ message: settings.apiKey ? `API key (Enter keeps ${maskApiKey(settings.apiKey)})` : 'API key', mask: '*' }, io);
      if (key.trim()) settings.apiKey = key.trim();
    }
  } else {
    const missing: string[] = [];
    if (!settings.va) missing.push('--va');
    if (!settings.apiKey) missing.push('--api-key-file (or PAYCLI_API_KEY)');
    if (missing.length)
      throw new AuthError(`config init needs ${missing.join(' and ')} when it cannot prompt`, {
        hint: 'run it in a terminal for the wizard, or pass the flags',
      });
  }
  settings.env ??= 'sandbox';
  if (settings.env === 'production' && !opts.yes && !canPrompt(ctx, opts)) {
    out.warn('this profile targets production; payments will need confirmation (or --yes)');
  }
  user.profiles[name] = settings;
  // Production never becomes the default by accident: only with --default.
  if (opts.default) user.defaultProfile = name;
  else if (settings.env !== 'production') user.defaultProfile ??= name;
  await writeUserConfig(session.userPath, user);
  const isDefault = user.defaultProfile === name;
  const summary = {
    profile: name,
    env: settings.env,
    va: maskSecret(settings.va),
    apiKey: maskApiKey(settings.apiKey),
    default: isDefault,
    path: session.userPath,
  };
  if (out.json) out.data(summary);
  else {
    out.out(`saved profile "${name}" (${settings.env}, VA ${summary.va}, API key ${summary.apiKey}) to ${session.userPath}`);
    if (!isDefault) out.info(`"${name}" is not the default profile: use it with --profile ${name}, or make it the default with \`paycli config use ${name}\``);
  }
  return 'ok';
};
