import { hmacSha256Hex, sha256Hex } from './digest.js';

export interface RequestSignatureInput {
  method: string;
  va: string;
  apiKey: string;
  /** The exact bytes sent. Undefined or empty for a request without a body: `{}` is hashed. */
  body?: string | Uint8Array;
}

export interface RequestSignature {
  method: string;
  bodyHash: string;
  /** The string to sign with the API key replaced by a mask: safe to print. */
  stringToSignMasked: string;
  signature: string;
}

/** Lower-case hex SHA-256 of the body bytes; `{}` for a request without a body (docs/gateway.md, "Request signing"). */
export function hashRequestBody(body?: string | Uint8Array): string {
  return sha256Hex(body === undefined || body.length === 0 ? '{}' : body);
}

/** Computes the request signature (docs/gateway.md, "Request signing"): HMAC-SHA256(METHOD:VA:sha256(body):KEY, KEY). */
export function signRequest(input: RequestSignatureInput): RequestSignature {
  const method = input.method.toUpperCase();
  const bodyHash = hashRequestBody(input.body);
  const stringToSign = `${method}:${input.va}:${bodyHash}:${input.apiKey}`;
  const signature = hmacSha256Hex(input.apiKey, stringToSign);
  return {
    method,
    bodyHash,
    stringToSignMasked: `${method}:${input.va}:${bodyHash}:${maskApiKey(input.apiKey)}`,
    signature,
  };
}

/**
 * The API key as it may be shown: none of its characters, only a fingerprint (the first 8 hex digits
 * of its SHA-256) that tells two keys apart: `[API key sha256=1a2b3c4d]`. A merchant compares it
 * with `printf %s "$KEY" | sha256sum | cut -c1-8`. (The VA is shown as maskSecret shows it.)
 */
export function maskApiKey(key: string | undefined): string {
  if (!key) return '';
  return `[API key sha256=${sha256Hex(key).slice(0, 8)}]`;
}

/** Masks a secret as its first and last four characters (`abcd…wxyz`); shorter ones show less. */
export function maskSecret(secret: string | undefined): string {
  if (!secret) return '';
  if (secret.length >= 12) return `${secret.slice(0, 4)}…${secret.slice(-4)}`;
  if (secret.length >= 8) return `…${secret.slice(-4)}`;
  return '•'.repeat(secret.length);
}
