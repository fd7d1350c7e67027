import { readFileSync } from 'node:fs';
import { AuthError, GatewayError, PaycliError, UsageError } from '../core/errors.js';
import { isLoopbackUrl } from '../core/http/loopback.js';
import { userConfigPath } from '../core/config/paths.js';
import { readUserConfig, parseSetting, userConfigWarnings, type UserConfig } from '../core/config/profiles.js';
import { EMULATOR_DEFAULT_API_KEY, EMULATOR_DEFAULT_VA, requireCredentials, resolveConfig, type ResolvedConfig } from '../core/config/resolve.js';
import { findProjectConfig } from '../core/config/project-file.js';
import { modeOf } from '../core/config/secure-file.js';
import type { HttpClient } from '../core/http/client.js';
import { parseEnvelope, paymentMayExistHint, type Envelope, type EnvelopeExpectation } from '../core/http/envelope.js';
import { buildSignedRequest, toCurl, type SignedRequest } from '../core/api/signed-request.js';
import { maskSecret } from '../core/signing/request-signature.js';
import { formatJakarta } from '../core/time.js';
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
}

/**
 * Per-run services for commands: resolved configuration, credentials and the signed API runner.
 * Everything is loaded on first use, so commands that need no config pay nothing.
 */
export class Session {
  private resolved?: Promise<ResolvedConfig>;
  private httpClient?: Promise<HttpClient>;
  private warnedUserConfig = false;
  readonly userPath: string;

  constructor(readonly ctx: CliContext, readonly out: Output, readonly opts: CommonOptions) {
    this.userPath = userConfigPath(ctx.env, ctx.homedir);
  }

  async userConfig(): Promise<UserConfig> {
    const mode = await modeOf(this.userPath);
    if (mode !== undefined && (mode & 0o077) !== 0) {
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
    };
    const [search, user] = await Promise.all([findProjectConfig(this.ctx.cwd, this.ctx.homedir), this.userConfig()]);
    for (const note of search.notes) this.out.warn(note);
    const project = search.project;
    const resolved = resolveConfig({ flags, env: this.ctx.env, project, user, userPath: this.userPath });
    for (const w of resolved.warnings) this.out.warn(w);
    return resolved;
  }

  async credentials(): Promise<{ va: string; apiKey: string }> {
    return requireCredentials(await this.config());
  }

  async client(): Promise<HttpClient> {
    this.httpClient ??= (async () => {
      const cfg = await this.config();
      const { createHttpClient } = await import('../core/http/client.js');
      return createHttpClient({ timeoutMs: cfg.timeout.value, userAgent: `paycli/${VERSION}`, env: this.ctx.env, dispatcher: this.ctx.dispatcher });
    })();
    return this.httpClient;
  }

  async close(): Promise<void> {
    if (this.httpClient) await (await this.httpClient).close();
  }

  /** Builds the signed request for an API path; secrets come from the resolved config. */
  async signed(method: string, path: string, body?: string): Promise<SignedRequest> {
    const cfg = await this.config();
    const credentials = await this.credentials();
    return buildSignedRequest({ baseUrl: cfg.baseUrl.value, path, method, body, credentials, now: this.ctx.now() });
  }

  /**
   * Handles `--dry-run` and `--curl`: prints the request instead of sending it. Returns true when
   * the command should stop there.
   */
  async preview(req: SignedRequest): Promise<boolean> {
    if (this.opts.curl) {
      this.out.out(toCurl(req));
      this.out.info('# needs PAYCLI_VA and PAYCLI_API_KEY in the environment; nothing was sent');
      return true;
    }
    if (!this.opts.dryRun) return false;
    const headers = { ...req.headers, va: maskSecret(req.headers.va) };
    if (this.out.json) {
      this.out.data({ method: req.method, url: req.url, headers, body: req.body ?? null, bodyHash: req.signature.bodyHash, stringToSign: maskedStringToSign(req) });
    } else {
      const lines = [`${req.method} ${req.url}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), ''];
      if (req.body) lines.push(req.body);
      lines.push('', `# body sha256:   ${req.signature.bodyHash}`, `# string to sign: ${maskedStringToSign(req)}`, '# dry run: nothing was sent');
      this.out.out(lines.join('\n'));
    }
    return true;
  }

  /**
   * Sends a signed request and parses the envelope into data or a typed error. Ctrl-C aborts the
   * request at once (exit 130). For a payment POST (`paymentReferenceId`), any failure after the
   * request may have reached the gateway says the payment may exist and how to look it up.
   */
  async send<T>(req: SignedRequest, given: EnvelopeExpectation = {}): Promise<Envelope<T>> {
    const expectation = given.paymentReferenceId && !given.paymentDay ? { ...given, paymentDay: formatJakarta(this.ctx.now()).slice(0, 10) } : given;
    const client = await this.client();
    let res;
    try {
      res = await client.send({ method: req.method, url: req.url, headers: req.headers, body: req.body, signal: this.ctx.interrupts() });
    } catch (err) {
      const ref = expectation.paymentReferenceId;
      if (ref && err instanceof PaycliError && (err.kind === 'interrupted' || (err.kind === 'network' && !notSent(err)))) {
        throw new PaycliError(err.kind, err.message, { cause: err.cause, hint: paymentMayExistHint(ref, expectation.paymentDay) });
      }
      throw err;
    }
    try {
      return parseEnvelope<T>(res, req.url, expectation);
    } catch (err) {
      if (err instanceof AuthError && res.status === 401 && isLoopbackUrl(req.url)) throw emulatorAuthError(err, req);
      // A 5xx after a payment POST (often a proxy or a timeout behind it) does not say the payment was not made.
      if (err instanceof GatewayError && err.status >= 500 && expectation.paymentReferenceId) {
        throw new GatewayError(err.status, err.message, { details: err.details, hint: paymentMayExistHint(expectation.paymentReferenceId, expectation.paymentDay) });
      }
      throw err;
    }
  }

  /** Refuses a money-moving request to production without confirmation. */
  async guardProduction(summary: string): Promise<void> {
    const cfg = await this.config();
    if (cfg.env.value !== 'production' || this.opts.yes || this.opts.dryRun || this.opts.curl) return;
    if (!canPrompt(this.ctx, this.opts)) {
      throw new AuthError(`refusing to send a production payment without confirmation: ${summary}`, { hint: 'add --yes to confirm in scripts, or run it in a terminal' });
    }
    const { confirm } = await import('@inquirer/prompts');
    const ok = await confirm({ message: `PRODUCTION: ${summary}. Send it?`, default: false }, { input: this.ctx.stdin, output: this.ctx.stderr });
    if (!ok) throw new UsageError('cancelled: nothing was sent');
  }
}

/** Whether a network failure happened before anything was sent (refused, DNS, TLS). */
function notSent(err: PaycliError): boolean {
  const code = (err.cause as { code?: string; cause?: { code?: string } } | undefined)?.code ?? (err.cause as { cause?: { code?: string } } | undefined)?.cause?.code ?? '';
  return code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN' || /CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY/.test(code);
}

/** A 401 from a loopback base URL: say which VA was sent and what the emulator accepts. */
function emulatorAuthError(err: AuthError, req: SignedRequest): AuthError {
  return new AuthError(`${err.message} — sent VA ${maskSecret(req.headers.va)} to ${new URL(req.url).host}`, {
    details: err.details,
    hint: `a paycli sandbox started without --va/--accounts accepts its default merchant: VA ${EMULATOR_DEFAULT_VA}, API key ${maskSecret(EMULATOR_DEFAULT_API_KEY)} (what --env local uses when no local credentials are given); ${err.hint ?? ''}`.replace(/; $/, ''),
  });
}
