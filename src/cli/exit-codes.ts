import type { ErrorKind } from '../core/errors.js';

/** The exit-code contract (README, "Exit codes"), in one place. */
export const EXIT = Object.freeze({
  ok: 0,
  internal: 1,
  usage: 2,
  gateway: 3,
  auth: 4,
  network: 5,
  signature: 6,
  interrupted: 130,
} as const);

/**
 * What a command's handler returns: `ok`, or the kind of what went wrong (an error's kind, or a
 * result such as "some handler tests failed", which is a `signature` outcome). Never a bare number:
 * exitCodeOf maps it.
 */
export type Outcome = 'ok' | ErrorKind;

export const EXIT_BY_KIND: Readonly<Record<ErrorKind, number>> = Object.freeze({
  usage: EXIT.usage,
  gateway: EXIT.gateway,
  auth: EXIT.auth,
  network: EXIT.network,
  signature: EXIT.signature,
  // A check paycli was asked to make did not hold (transaction --wait not paid, a demo step): the
  // same code as a signature check, "the thing you asked me to verify is not so" (docs/errors.md).
  check: EXIT.signature,
  internal: EXIT.internal,
  interrupted: EXIT.interrupted,
});

/** The exit code of a handler's outcome. */
export function exitCodeOf(outcome: Outcome): number {
  return outcome === 'ok' ? EXIT.ok : EXIT_BY_KIND[outcome];
}

export const EXIT_TABLE: readonly (readonly [number, string])[] = Object.freeze([
  [0, 'success (verify-callback: signature valid)'],
  [1, 'unexpected internal error'],
  [2, 'usage error: unknown command or flag, invalid value, failed validation'],
  [3, 'the gateway answered with an error (other than authentication)'],
  [4, 'authentication or configuration: no credentials, 401, no input allowed'],
  [5, 'network: connection refused, DNS, TLS, timeout, malformed response'],
  [6, 'a check failed: signature, test-handler, demo, --wait not paid'],
  [130, 'interrupted (Ctrl-C)'],
] as const);
