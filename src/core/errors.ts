/**
 * Typed errors. Each carries a stable `code` (ERR_…, shown in `--json` errors; docs/errors.md
 * lists them), its kind (the category of the CLI's exit-code contract), a one-line message and an
 * optional hint. The core speaks in codes and kinds; the CLI maps kinds to exit codes in exactly
 * one place (src/cli/exit-codes.ts).
 */
export type ErrorKind = 'usage' | 'gateway' | 'auth' | 'network' | 'signature' | 'check' | 'internal' | 'interrupted';

/** Every error code paycli emits, with its kind (docs/errors.md says when each is used). */
export const ERROR_CODES = Object.freeze({
  ERR_USAGE: 'usage',
  ERR_MALFORMED_PAYLOAD: 'usage',
  ERR_INVALID_PAYMENT: 'usage',
  ERR_STORE_BUSY: 'usage',
  ERR_GATEWAY: 'gateway',
  ERR_AUTH: 'auth',
  ERR_MISSING_VA: 'auth',
  ERR_NETWORK: 'network',
  ERR_MALFORMED_RESPONSE: 'network',
  ERR_SIGNATURE: 'signature',
  ERR_CHECK_FAILED: 'check',
  ERR_NOT_PAID: 'check',
  ERR_WAIT_TIMEOUT: 'check',
  ERR_INTERNAL: 'internal',
  ERR_INTERRUPTED: 'interrupted',
} as const satisfies Record<string, ErrorKind>);
export type ErrorCode = keyof typeof ERROR_CODES;

/** The general code of each kind (an error without a more precise one). */
const CODE_OF_KIND: Readonly<Record<ErrorKind, ErrorCode>> = Object.freeze({
  usage: 'ERR_USAGE',
  gateway: 'ERR_GATEWAY',
  auth: 'ERR_AUTH',
  network: 'ERR_NETWORK',
  signature: 'ERR_SIGNATURE',
  check: 'ERR_CHECK_FAILED',
  internal: 'ERR_INTERNAL',
  interrupted: 'ERR_INTERRUPTED',
});

export interface PaycliErrorOptions {
  hint?: string;
  cause?: unknown;
  details?: unknown;
  /** A more precise code than the kind's general one (its kind must be the error's). */
  code?: ErrorCode;
}

export class PaycliError extends Error {
  readonly kind: ErrorKind;
  readonly code: ErrorCode;
  readonly hint?: string;
  readonly details?: unknown;

  constructor(kind: ErrorKind, message: string, options: PaycliErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'PaycliError';
    this.kind = kind;
    this.code = options.code !== undefined && ERROR_CODES[options.code] === kind ? options.code : CODE_OF_KIND[kind];
    this.hint = options.hint;
    this.details = options.details;
  }
}

/** The internal error's code: what an unexpected exception reports. */
export const INTERNAL_ERROR_CODE: ErrorCode = 'ERR_INTERNAL';

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

/** Something paycli was asked to check did not hold: a transaction --wait did not end paid, a demo step failed. Exit 6. */
export class CheckFailedError extends PaycliError {
  constructor(message: string, options?: PaycliErrorOptions) {
    super('check', message, options);
    this.name = 'CheckFailedError';
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
