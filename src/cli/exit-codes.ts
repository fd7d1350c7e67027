import type { ErrorKind } from '../core/errors.js';

/** The exit-code contract (README, "Exit codes"), in one place. */
export const EXIT = {
  ok: 0,
  internal: 1,
  usage: 2,
  gateway: 3,
  auth: 4,
  network: 5,
  signature: 6,
  interrupted: 130,
} as const;

export const EXIT_BY_KIND: Record<ErrorKind, number> = {
  usage: EXIT.usage,
  gateway: EXIT.gateway,
  auth: EXIT.auth,
  network: EXIT.network,
  signature: EXIT.signature,
  internal: EXIT.internal,
  interrupted: EXIT.interrupted,
};

export const EXIT_TABLE: [number, string][] = [
  [0, 'success (verify-callback: signature valid)'],
  [1, 'unexpected internal error'],
  [2, 'usage error: unknown command or flag, invalid value, failed validation'],
  [3, 'the gateway answered with an error (other than authentication)'],
  [4, 'authentication or configuration: no credentials, 401, no input allowed'],
  [5, 'network: connection refused, DNS, TLS, timeout, malformed response'],
  [6, 'signature invalid (verify-callback, test-handler failures)'],
  [130, 'interrupted (Ctrl-C)'],
];
