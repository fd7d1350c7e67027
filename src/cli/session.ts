import { readFileSync } from 'node:fs';
import { AuthError, UsageError } from '../core/errors.js';
import { ApiClient } from '../core/api/client.js';
import { userConfigPath } from '../core/config/paths.js';
import { readUserConfig, parseSetting, userConfigWarnings, type UserConfig } from '../core/config/profiles.js';
import {
  EMULATOR_DEFAULT_API_KEY,
  EMULATOR_DEFAULT_VA,
  requireCredentials,
  resolveConfig,
  selectProfile,
  targetsProduction,
  type ProfileChoice,
  type ProjectConfig,
  type ResolvedConfig,
} from '../core/config/resolve.js';
import { findProjectConfig } from '../core/config/project-file.js';
import { modeOf } from '../core/config/secure-file.js';
import type { HttpClient } from '../core/http/client.js';
import type { Envelope, EnvelopeExpectation } from '../core/http/envelope.js';
import { toCurl, type SignedRequest } from '../core/api/signed-request.js';
import { maskSecret } from '../core/signing/request-signature.js';
import type { CliContext } from './context.js';
import type { Output } from './output.js';
import { VERSION } from './version.js';
import { canPrompt } from './interaction.js';
import { maskedStringToSign } from '../core/api/signed-request.js';

export { canPrompt, maskedStringToSign };

/** Options every command may receive from the root program. */
export interface CommonOptions {
  json?: boolean;
  color?: boolean;
  debug?: boolean;
  input?: boolean;
  yes?: boolean;
  va?: string;
  apiKey?: string;
  apiKeyFile?: string;
  env?: string;
  baseUrl?: string;
  profile?: string;
  timeout?: string;
  dryRun?: boolean;
  curl?: boolean;
  cache?: boolean;
  /** pay's callback URL (a command flag, not a global one). */
  notifyUrl?: string;
}

/**
 * Per-run services for commands: resolved configuration, credentials and the signed API runner.
 * Everything is loaded on first use, so commands that need no config pay nothing.
 */
export class Session {
  private resolved?: Promise<ResolvedConfig>;
  private httpClient?: Promise<HttpClient>;
  private apiClient?: Promise<ApiClient>;
  private project?: Promise<ProjectConfig | null>;
  private warnedUserConfig = false;
  readonly userPath: string;

  constructor(
    readonly ctx: CliContext,
    readonly out: Output,
    readonly opts: CommonOptions,
  ) {
    this.userPath = userConfigPath(ctx.env, ctx.homedir);
  }

  async userConfig(): Promise<UserConfig> {
    const mode = await modeOf(this.userPath);
    // Said once a run, however many times the file is read (config set reads it, then picks the profile).
    if (mode !== undefined && (mode & 0o077) !== 0 && !this.warnedUserConfig) {
      this.out.warn(`${this.userPath} has mode ${mode.toString(8).padStart(4, '0')}; it holds secrets and should be 0600 (chmod 600 ${this.userPath})`);
    }
    const { config, text } = await readUserConfig(this.userPath);
    if (!this.warnedUserConfig) {
      this.warnedUserConfig = true;
      for (const w of userConfigWarnings(config, this.userPath, text)) this.out.warn(w);
    }
    return config;
  }

  config(): Promise<ResolvedConfig> {
    this.resolved ??= this.loadConfig();
    return this.resolved;
  }

  /** The API key given by --api-key or --api-key-file, without resolving anything else. */
  async flagApiKey(): Promise<string | undefined> {
    const o = this.opts;
    if (!o.apiKeyFile) return o.apiKey;
    let apiKey: string;
    try {
      apiKey = readFileSync(o.apiKeyFile, 'utf8').trim();
    } catch (err) {
      throw new UsageError(`cannot read --api-key-file ${o.apiKeyFile}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
    if (!apiKey) throw new UsageError(`--api-key-file ${o.apiKeyFile} is empty`);
    return apiKey;
  }

  /** The project config found from the working directory (notes about ignored files said once). */
  projectConfig(): Promise<ProjectConfig | null> {
    this.project ??= findProjectConfig(this.ctx.cwd, this.ctx.homedir).then((search) => {
      for (const note of search.notes) this.out.warn(note);
      return search.project;
    });
    return this.project;
  }

  /**
   * Which profile this run uses, and why (core/config/resolve.ts selectProfile): the same answer
   * for commands that read the configuration and for `config set`/`unset`/`init` that write it.
   */
  async profileChoice(): Promise<ProfileChoice> {
    const [project, user] = await Promise.all([this.projectConfig(), this.userConfig()]);
    const raw = project?.config.profile;
    return selectProfile({
      flag: this.opts.profile,
      env: this.ctx.env,
      projectProfile: raw === undefined || raw === null ? undefined : String(raw),
      projectPath: project?.filepath,
      user,
      userPath: this.userPath,
    });
  }

  private async loadConfig(): Promise<ResolvedConfig> {
    const o = this.opts;
    const apiKey = await this.flagApiKey();
    const flags = {
      env: o.env !== undefined ? String(parseSetting('env', o.env)) : undefined,
      va: o.va !== undefined ? String(parseSetting('va', o.va)) : undefined,
      apiKey,
      baseUrl: o.baseUrl !== undefined ? String(parseSetting('base-url', o.baseUrl)) : undefined,
      timeout: o.timeout !== undefined ? Number(parseSetting('timeout', o.timeout)) : undefined,
      profile: o.profile,
      // pay's --notify-url, so that the configuration knows where callbacks go (resolveConfig).
      notifyUrl: o.notifyUrl,
    };
    const [project, user] = await Promise.all([this.projectConfig(), this.userConfig()]);
    const resolved = resolveConfig({ flags, env: this.ctx.env, project, user, userPath: this.userPath });
    for (const w of resolved.warnings) this.out.warn(w);
    return resolved;
  }

  async credentials(): Promise<{ va: string; apiKey: string }> {
    return requireCredentials(await this.config());
  }

  /** The transport every API request goes through (node:http(s) keep-alive, or a proxy agent). */
  async client(): Promise<HttpClient> {
    this.httpClient ??= (async () => {
      const cfg = await this.config();
      const { createHttpClient } = await import('../core/http/client.js');
      return createHttpClient({ timeoutMs: cfg.timeout.value, userAgent: `paycli/${VERSION}`, env: this.ctx.env, dispatcher: this.ctx.dispatcher });
    })();
    return this.httpClient;
  }

  /** The core API client for the resolved base URL and credentials, on this run's transport. */
  async api(): Promise<ApiClient> {
    this.apiClient ??= (async () => {
      const cfg = await this.config();
      return new ApiClient({
        baseUrl: cfg.baseUrl.value,
        credentials: () => this.credentials(),
        http: () => this.client(),
        now: () => this.ctx.now(),
        signal: () => this.ctx.interrupts(),
        emulatorMerchant: { va: EMULATOR_DEFAULT_VA, apiKey: EMULATOR_DEFAULT_API_KEY },
      });
    })();
    return this.apiClient;
  }

  async close(): Promise<void> {
    if (this.httpClient) await (await this.httpClient).close();
  }

  /** Builds the signed request for an API path; secrets come from the resolved config. */
  async signed(method: string, path: string, body?: string): Promise<SignedRequest> {
    return (await this.api()).sign(method, path, body);
  }

  /**
   * Handles `--dry-run` and `--curl`: prints the request instead of sending it. Returns true when
   * the command should stop there.
   */
  async preview(req: SignedRequest, secret?: { what: string; mask: (body: string) => string }): Promise<boolean> {
    if (this.opts.curl && secret) {
      throw new UsageError(`--curl would put ${secret.what} on a command line`, { hint: 'use --dry-run to see the request with it masked' });
    }
    if (this.opts.curl) {
      this.out.out(toCurl(req));
      this.out.info('# needs PAYCLI_VA and PAYCLI_API_KEY in the environment; nothing was sent');
      return true;
    }
    if (!this.opts.dryRun) return false;
    const headers = { ...req.headers, va: maskSecret(req.headers.va) };
    // The VA is masked wherever it appears, the body included (balance sends it as `account`);
    // the hash and signature are still those of the real body.
    const body = req.body === undefined ? undefined : maskVa(secret ? secret.mask(req.body) : req.body, req.headers.va);
    if (this.out.json) {
      this.out.data({ method: req.method, url: req.url, headers, body: body ?? null, bodyHash: req.signature.bodyHash, stringToSign: maskedStringToSign(req) });
    } else {
      const lines = [`${req.method} ${req.url}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), ''];
      if (body) lines.push(body);
      lines.push('', `# body sha256:   ${req.signature.bodyHash}`, `# string to sign: ${maskedStringToSign(req)}`, '# dry run: nothing was sent');
      this.out.out(lines.join('\n'));
    }
    return true;
  }

  /**
   * Sends a signed request through the core API client (src/core/api/client.ts): Ctrl-C aborts it
   * at once (exit 130); after a payment POST, a failure says the payment may exist and how to look it up.
   */
  async send<T>(req: SignedRequest, expectation: EnvelopeExpectation = {}): Promise<Envelope<T>> {
    return (await this.api()).send<T>(req, expectation);
  }

  /**
   * Refuses a money-moving request to production without confirmation (a prompt on a terminal,
   * --yes in scripts). Production is decided by where the request goes (targetsProduction): the
   * environment named production, or a base URL on the production host under any environment.
   * `action` words the refusal and the question (pay's by default).
   */
  async guardProduction(summary: string, action: { refuse: string; ask: string; cancelled: string } = PAYMENT_ACTION): Promise<void> {
    const cfg = await this.config();
    if (!targetsProduction(cfg) || this.opts.yes || this.opts.dryRun || this.opts.curl) return;
    const where = cfg.env.value === 'production' ? '' : ` (${cfg.baseUrl.value}, from ${cfg.baseUrl.origin}, is the production gateway)`;
    if (!canPrompt(this.ctx, this.opts)) {
      throw new AuthError(`refusing to ${action.refuse} without confirmation: ${summary}${where}`, {
        hint: 'add --yes to confirm in scripts, or run it in a terminal',
      });
    }
    const { confirm } = await import('@inquirer/prompts');
    const ok = await confirm({ message: `PRODUCTION${where}: ${summary}. ${action.ask}`, default: false }, { input: this.ctx.stdin, output: this.ctx.stderr });
    if (!ok) throw new UsageError(`cancelled: ${action.cancelled}`);
  }
}

const PAYMENT_ACTION = { refuse: 'send a production payment', ask: 'Send it?', cancelled: 'nothing was sent' };

/** `text` with every occurrence of the VA replaced by its masked form (maskSecret). */
export function maskVa(text: string, va: string | undefined): string {
  return va && va.length >= 4 ? text.split(va).join(maskSecret(va)) : text;
}
