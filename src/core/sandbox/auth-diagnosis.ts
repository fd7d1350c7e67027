import type { IncomingMessage } from 'node:http';
import { hmacSha256Hex, sha256Hex } from '../signing/digest.js';
import { hashRequestBody, maskApiKey, maskSecret } from '../signing/request-signature.js';
import { encodeJson, REQUEST_BODY } from '../signing/php-json.js';
import type { SandboxAccount } from './accounts.js';

/**
 * Why the emulator refused a request's authentication, for the merchant: which check failed and,
 * for a signature mismatch, what the emulator expected (the string to sign, API key masked), the
 * hash of the body it received, and the most likely mistake, found by recomputing the signature
 * the way common mistakes compute it. Never contains the API key. The HTTP answer itself keeps the
 * gateway's shape; this goes to the log, `--json` logs and the dashboard's Requests page.
 */
export interface AuthFailure {
  check: 'no-va' | 'no-signature' | 'unknown-va' | 'inactive-account' | 'api-key-as-signature' | 'signature-mismatch';
  /** One line for people. */
  reason: string;
  /** For a mismatch: `METHOD:VA:BODYHASH:<key masked>`. */
  expectedStringToSign?: string;
  /** SHA-256 of the body bytes received (`{}` when empty, as the gateway hashes it). */
  receivedBodyHash?: string;
  receivedBodyBytes?: number;
  /** The mistake whose signature equals the one received, when one does. */
  likelyMistake?: string;
}

interface Variant {
  mistake: string;
  signature: () => string;
}

/** Re-serialisations of a JSON body a client may have hashed instead of the bytes it sent. */
function reserialised(body: Buffer): { label: string; text: string }[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return [];
  }
  const sent = body.toString('utf8');
  const out = [
    { label: 'compact JSON (JSON.stringify)', text: JSON.stringify(parsed) },
    { label: 'pretty-printed JSON (2 spaces)', text: JSON.stringify(parsed, null, 2) },
    { label: 'pretty-printed JSON (4 spaces)', text: JSON.stringify(parsed, null, 4) },
    { label: 'JSON with "/" escaped as "\\/" (PHP json_encode without JSON_UNESCAPED_SLASHES)', text: JSON.stringify(parsed).replace(/\//g, '\\/') },
    { label: 'JSON with non-ASCII escaped', text: encodeJson(parsed, REQUEST_BODY) },
  ];
  return out.filter((v, i) => v.text !== sent && out.findIndex((w) => w.text === v.text) === i);
}

/** Explains a failed authentication (call it only when `authenticate` refused). */
export function diagnoseAuth(req: IncomingMessage, body: Buffer, accounts: ReadonlyMap<string, SandboxAccount>): AuthFailure {
  const va = req.headers['va'];
  const signature = req.headers['signature'];
  if (typeof va !== 'string' || va === '') return { check: 'no-va', reason: 'no "va" header: send your merchant VA in a header named va' };
  if (typeof signature !== 'string' || signature === '')
    return { check: 'no-signature', reason: 'no "signature" header: send HMAC-SHA256(METHOD:VA:sha256(body):APIKEY, APIKEY) in a header named signature' };
  const account = accounts.get(va);
  if (!account)
    return {
      check: 'unknown-va',
      reason: `unknown VA ${maskSecret(va)}: this emulator knows ${accounts.size === 1 ? 'one merchant' : `${accounts.size} merchants`} (see its banner, or --accounts)`,
    };
  if (!account.active || !account.apiKey) return { check: 'inactive-account', reason: `the merchant ${maskSecret(va)} is inactive or has no API key` };
  const key = account.apiKey;
  if (signature === key) return { check: 'api-key-as-signature', reason: 'the signature header holds the API key itself: send the HMAC, never the key' };
  const method = (req.method ?? 'GET').toUpperCase();
  const bodyHash = hashRequestBody(body);
  const timestamp = typeof req.headers['timestamp'] === 'string' ? req.headers['timestamp'] : undefined;
  const sts = (m: string, v: string, h: string, k: string) => `${m}:${v}:${h}:${k}`;
  const variants: Variant[] = [
    ...['GET', 'POST', 'PUT', 'PATCH', 'DELETE']
      .filter((m) => m !== method)
      .map((m) => ({
        mistake: `signed the method ${m}, but the request was sent as ${method}`,
        signature: () => hmacSha256Hex(key, sts(m, va, bodyHash, key)),
      })),
    ...reserialised(body).map((r) => ({
      mistake: `hashed the body as ${r.label}, not the bytes sent: hash exactly the bytes you send`,
      signature: () => hmacSha256Hex(key, sts(method, va, sha256Hex(r.text), key)),
    })),
    { mistake: 'hashed an empty body as "" instead of "{}"', signature: () => hmacSha256Hex(key, sts(method, va, sha256Hex(''), key)) },
    { mistake: 'hashed "{}" although the request has a body', signature: () => hmacSha256Hex(key, sts(method, va, sha256Hex('{}'), key)) },
    { mistake: 'signed with the VA as the HMAC key: the key is the API key', signature: () => hmacSha256Hex(va, sts(method, va, bodyHash, key)) },
    { mistake: 'put the VA where the API key goes at the end of the string to sign', signature: () => hmacSha256Hex(key, sts(method, va, bodyHash, va)) },
    { mistake: 'signed with the VA (as key and in the string to sign)', signature: () => hmacSha256Hex(va, sts(method, va, bodyHash, va)) },
    { mistake: 'sent a SHA-256 of the string to sign instead of its HMAC', signature: () => sha256Hex(sts(method, va, bodyHash, key)) },
    { mistake: 'signed the method in lower case', signature: () => hmacSha256Hex(key, sts(method.toLowerCase(), va, bodyHash, key)) },
    ...(timestamp
      ? [
          {
            mistake: 'added the timestamp to the string to sign: the timestamp is not signed',
            signature: () => hmacSha256Hex(key, `${sts(method, va, bodyHash, key)}:${timestamp}`),
          },
          {
            mistake: 'put the timestamp where the API key goes: the timestamp is not signed',
            signature: () => hmacSha256Hex(key, sts(method, va, bodyHash, timestamp)),
          },
          { mistake: 'used the timestamp as the HMAC key', signature: () => hmacSha256Hex(timestamp, sts(method, va, bodyHash, key)) },
        ]
      : []),
  ];
  const received = signature.trim();
  let likelyMistake: string | undefined;
  if (received !== signature) likelyMistake = 'the signature header has white space around it';
  else if (received.toLowerCase() === hmacSha256Hex(key, sts(method, va, bodyHash, key)) && received !== received.toLowerCase())
    likelyMistake = 'sent the signature in upper-case hex: send lower-case hex';
  else likelyMistake = variants.find((v) => v.signature() === received.toLowerCase())?.mistake;
  return {
    check: 'signature-mismatch',
    reason: `signature mismatch${likelyMistake ? `: likely ${likelyMistake}` : ': no known mistake reproduces it (wrong API key, or the body changed after signing?)'}`,
    expectedStringToSign: `${method}:${va}:${bodyHash}:${maskApiKey(key)}`,
    receivedBodyHash: bodyHash,
    receivedBodyBytes: body.length,
    ...(likelyMistake ? { likelyMistake } : {}),
  };
}
