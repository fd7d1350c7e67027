/**
 * Typed errors. Each carries the exit code category of the CLI contract, a one-line message and
 * an optional hint. The CLI maps them to exit codes in exactly one place (src/cli/exit-codes.ts).
 */
export type ErrorKind = 'usage' | 'gateway' | 'auth' | 'network' | 'signature' | 'internal' | 'interrupted';

export interface PaycliErrorOptions {
  hint?: string;
  cause?: unknown;
  details?: unknown;
}

export class PaycliError extends Error {
  readonly kind: ErrorKind;
  readonly hint?: string;
  readonly details?: unknown;

  constructor(kind: ErrorKind, message: string, options: PaycliErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'PaycliError';
    this.kind = kind;
    this.hint = options.hint;
    this.details = options.details;
  }
}

/** Bad input given by the user: flag values, files, payloads. Exit 2. */
export class UsageError extends PaycliError {
  constructor(message: string, options?: PaycliErrorOptions) {
    super('usage', message, options);
    this.name = 'UsageError';
  }
}

/** The gateway answered with an error other than authentication. Exit 3. */
export class GatewayError extends PaycliError {
  readonly status: number;
  constructor(status: number, message: string, options?: PaycliErrorOptions) {
    super('gateway', message, options);
    this.name = 'GatewayError';
    this.status = status;
  }
}

/** Missing credentials, a 401, or input needed but disabled. Exit 4. */
export class AuthError extends PaycliError {
  constructor(message: string, options?: PaycliErrorOptions) {
    super('auth', message, options);
    this.name = 'AuthError';
  }
}

/** Connection refused, DNS, TLS, timeout, malformed response. Exit 5. */
export class NetworkError extends PaycliError {
  constructor(message: string, options?: PaycliErrorOptions) {
    super('network', message, options);
    this.name = 'NetworkError';
  }
}

/** A signature did not verify. Exit 6. */
export class SignatureError extends PaycliError {
  constructor(message: string, options?: PaycliErrorOptions) {
    super('signature', message, options);
    this.name = 'SignatureError';
  }
}

export function isPaycliError(err: unknown): err is PaycliError {
  return err instanceof PaycliError;
}
