import { maskApiKey, maskSecret } from '../../core/signing/request-signature.js';
import type { Handler } from '../command-env.js';
import { examples, type Define } from '../command-kit.js';
import { topCommand } from './heads.js';

/** `paycli whoami`: the resolved profile, environment, base URL and masked credentials, each with its origin. */
export const whoamiCommand: Handler = async (env) => {
  const cfg = await env.session.config();
  const info = {
    profile: cfg.profile,
    env: cfg.env,
    baseUrl: cfg.baseUrl,
    va: cfg.va ? { value: maskSecret(cfg.va.value), origin: cfg.va.origin } : null,
    apiKey: cfg.apiKey ? { value: maskApiKey(cfg.apiKey.value), origin: cfg.apiKey.origin } : null,
  };
  if (env.out.json) {
    env.out.data(info);
    return 'ok';
  }
  const row = (label: string, s: { value: unknown; origin: string } | null) => [label, s ? String(s.value) : '(not set)', s ? env.out.c.dim(s.origin) : ''];
  env.out.out(
    env.out.table([row('profile', info.profile), row('environment', info.env), row('base URL', info.baseUrl), row('VA', info.va), row('API key', info.apiKey)]),
  );
  if (!cfg.va || !cfg.apiKey) env.out.info(`hint: no credentials for ${cfg.env.value}; run \`paycli config init\` or set PAYCLI_VA and PAYCLI_API_KEY`);
  return 'ok';
};

// ── Definitions ─────────────────────────────────────────────────────────────────────────────────

const defineWhoami: Define = (program, bind) =>
  bind(examples(topCommand(program, 'whoami'), ['paycli whoami', 'paycli --env local whoami --json']), whoamiCommand);

export const commands = { whoami: defineWhoami };
