import type { IncomingMessage } from 'node:http';
import { hmacHex, signaturesEqual } from '../signing/callback-signature.js';
import { hashRequestBody } from '../signing/request-signature.js';
import type { SandboxAccount } from './accounts.js';

/**
 * The gateway's authentication of an API request (docs/gateway.md, "Request signing"), checked before
 * any route logic: the `va` and `signature` headers, an active account with a key, and
 * HMAC-SHA256(METHOD:VA:sha256(body):KEY, KEY), `body` being one of what the request's form lets a
 * signature cover (request-body.ts: the bytes of a JSON body, the JSON of a form's fields). Returns the account, or the gateway's 401 message.
 */
export function authenticate(req: IncomingMessage, signed: Buffer | readonly Buffer[], accounts: ReadonlyMap<string, SandboxAccount>): SandboxAccount | string {
  const va = req.headers['va'];
  const signature = req.headers['signature'];
  if (typeof va !== 'string' || va === '') return 'invalid header param - va is required';
  if (typeof signature !== 'string' || signature === '') return 'invalid header param - signature is required';
  const account = accounts.get(va);
  if (!account?.active || !account.apiKey) return 'unauthorized credential';
  if (signature === account.apiKey) return 'unauthorized signature';
  const method = (req.method ?? 'GET').toUpperCase();
  // What a signature may cover depends on the body's form (request-body.ts): any one must match.
  for (const body of Buffer.isBuffer(signed) ? [signed] : signed) {
    const expected = hmacHex(account.apiKey, `${method}:${va}:${hashRequestBody(body)}:${account.apiKey}`);
    if (signaturesEqual(expected, signature)) return account;
  }
  return 'unauthorized signature';
}
