import { AuthError, GatewayError, PaycliError } from '../errors.js';
import type { HttpClient } from '../http/client.js';
import { parseEnvelope, paymentMayExistHint, type Envelope, type EnvelopeExpectation } from '../http/envelope.js';
import { isLoopbackUrl } from '../http/loopback.js';
import { maskApiKey, maskSecret } from '../signing/request-signature.js';
import { formatJakarta } from '../time.js';
import { buildSignedRequest, type Credentials, type SignedRequest } from './signed-request.js';

/** The emulator's default merchant, named in the hint of a 401 from a loopback base URL. */
export interface EmulatorMerchant {
  va: string;
  apiKey: string;
}

export interface ApiClientOptions {
  /** The API root, including its `/api` prefix. */
  baseUrl: string;
  /** The merchant's credentials, asked for only when a request is signed. */
  credentials: () => Credentials | Promise<Credentials>;
  /** The transport (createHttpClient), or a function that makes it on first use. */
  http: HttpClient | (() => Promise<HttpClient>);
  now: () => Date;
  /** Aborts requests in flight (Ctrl-C); each request reads it when sent. */
  signal?: () => AbortSignal | undefined;
  /** Named in the hint of a 401 from a loopback base URL. */
  emulatorMerchant?: EmulatorMerchant;
}

/**
 * The one signed-request path of paycli: sign (spec 5.1), send through the transport, parse the
 * envelope (spec 2.1) and map failures to typed errors. Every command, `demo` and `doctor` use it;
 * rendering, `--dry-run`/`--curl` and prompts stay in the CLI shell.
 *
 * Failures after a payment POST may have reached the gateway (`paymentReferenceId` set): they say
 * the payment may exist and how to look it up. A 401 from a loopback base URL says which VA was sent
 * and what the emulator accepts.
 */
export class ApiClient {
  private transport?: Promise<HttpClient>;

  constructor(private readonly opts: ApiClientOptions) {}

  get baseUrl(): string {
    return this.opts.baseUrl;
  }

  /** Builds the signed request for an API path (nothing is sent). */
  async sign(method: string, path: string, body?: string): Promise<SignedRequest> {
    const credentials = await this.opts.credentials();
    return buildSignedRequest({ baseUrl: this.opts.baseUrl, path, method, body, credentials, now: this.opts.now() });
  }

  /** The transport, made on first use. */
  http(): Promise<HttpClient> {
    const h = this.opts.http;
    this.transport ??= typeof h === 'function' ? h() : Promise.resolve(h);
    return this.transport;
  }

  /** Signs, sends and parses in one step. */
  async call<T>(method: string, path: string, body?: string, expectation: EnvelopeExpectation = {}): Promise<Envelope<T>> {
    return this.send<T>(await this.sign(method, path, body), expectation);
  }

  /** Sends a signed request and parses the envelope into data or a typed error. */
  async send<T>(req: SignedRequest, given: EnvelopeExpectation = {}): Promise<Envelope<T>> {
    const expectation = given.paymentReferenceId && !given.paymentDay ? { ...given, paymentDay: formatJakarta(this.opts.now()).slice(0, 10) } : given;
    const http = await this.http();
    let res;
    try {
      res = await http.send({ method: req.method, url: req.url, headers: req.headers, body: req.body, signal: this.opts.signal?.() });
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
      if (err instanceof AuthError && res.status === 401 && isLoopbackUrl(req.url)) throw this.emulatorAuthError(err, req);
      // A 5xx after a payment POST (often a proxy or a timeout behind it) does not say the payment was not made.
      if (err instanceof GatewayError && err.status >= 500 && expectation.paymentReferenceId) {
        throw new GatewayError(err.status, err.message, {
          details: err.details,
          hint: paymentMayExistHint(expectation.paymentReferenceId, expectation.paymentDay),
        });
      }
      throw err;
    }
  }

  /** Closes the transport when this client made it. */
  async close(): Promise<void> {
    if (this.transport && typeof this.opts.http === 'function') await (await this.transport).close();
  }

  /** A 401 from a loopback base URL: say which VA was sent and what the emulator accepts. */
  private emulatorAuthError(err: AuthError, req: SignedRequest): AuthError {
    const m = this.opts.emulatorMerchant;
    const accepts = m
      ? `a paycli sandbox started without --va/--accounts accepts its default merchant: VA ${m.va}, API key ${maskApiKey(m.apiKey)} (what --env local uses when no local credentials are given); `
      : '';
    return new AuthError(`${err.message} — sent VA ${maskSecret(req.headers.va!)} to ${new URL(req.url).host}`, {
      details: err.details,
      hint: `${accepts}${err.hint ?? ''}`.replace(/; $/, ''),
    });
  }
}

/** Whether a network failure happened before anything was sent (refused, DNS, TLS). */
function notSent(err: PaycliError): boolean {
  const code =
    (err.cause as { code?: string; cause?: { code?: string } } | undefined)?.code ??
    (err.cause as { cause?: { code?: string } } | undefined)?.cause?.code ??
    '';
  return code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN' || /CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY/.test(code);
}
