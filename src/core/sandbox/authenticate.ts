import type { IncomingMessage } from 'node:http';
import { hmacHex, signaturesEqual } from '../signing/callback-signature.js';
import { hashRequestBody } from '../signing/request-signature.js';
import type { SandboxAccount } from './accounts.js';

/**
 * The gateway's authentication of an API request (docs/gateway.md, "Request signing"), checked before
 * any route logic: the `va` and `signature` headers, an active account with a key, and
 * HMAC-SHA256(METHOD:VA:sha256(body):KEY, KEY). Returns the account, or the gateway's 401 message.
 */
export function authenticate(req: IncomingMessage, body: Buffer, accounts: ReadonlyMap<string, SandboxAccount>): SandboxAccount | string {
  const va = req.headers['va'];
  const signature = req.headers['signature'];
  if (typeof va !== 'string' || va === '') return 'invalid header param - va is required';
  if (typeof signature !== 'string' || signature === '') return 'invalid header param - signature is required';
  const account = accounts.get(va);
  if (!account?.active || !account.apiKey) return 'unauthorized credential';
  if (signature === account.apiKey) return 'unauthorized signature';
  const method = (req.method ?? 'GET').toUpperCase();
  const expected = hmacHex(account.apiKey, `${method}:${va}:${hashRequestBody(body)}:${account.apiKey}`);
  if (!signaturesEqual(expected, signature)) return 'unauthorized signature';
  return account;
}
