import { UsageError } from '../errors.js';
import { maskSecret, signRequest, type RequestSignature } from '../signing/request-signature.js';
import { jakartaTimestamp } from '../time.js';

export interface Credentials {
  va: string;
  apiKey: string;
}

export interface SignedRequest {
  method: string;
  url: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** What the signature covers when it is not the body (a form's fields as JSON: form-signature.ts). */
  signedText?: string;
  signature: RequestSignature;
}

/**
 * Joins the API root (with its /api prefix) and a path. The URL a request is sent to is what URL
 * parsing makes of the joined text: one whose origin or path leaves the API root (`..`, `\..\`) is
 * refused here, for every request.
 */
export function joinUrl(baseUrl: string, path: string): string {
  const root = baseUrl.replace(/\/+$/, '');
  const joined = root + '/' + path.replace(/^\/+/, '');
  let sent: URL;
  let base: URL;
  try {
    sent = new URL(joined);
    base = new URL(root + '/');
  } catch {
    return joined; // an unusable base URL fails where it is sent, with its own message
  }
  if (sent.origin !== base.origin || !sent.pathname.startsWith(base.pathname)) {
    throw new UsageError(`the path ${JSON.stringify(path)} leads out of the API root ${root}`);
  }
  return joined;
}

/** Builds a request signed (docs/gateway.md, "Request signing") over the exact body bytes, with the gateway's headers. */
export function buildSignedRequest(opts: { baseUrl: string; path: string; method: string; body?: string; credentials: Credentials; now: Date }): SignedRequest {
  const signature = signRequest({ method: opts.method, va: opts.credentials.va, apiKey: opts.credentials.apiKey, body: opts.body });
  return {
    method: signature.method,
    url: joinUrl(opts.baseUrl, opts.path),
    path: opts.path,
    headers: {
      'content-type': 'application/json',
      accept: 'application/json',
      va: opts.credentials.va,
      signature: signature.signature,
      timestamp: jakartaTimestamp(opts.now),
    },
    body: opts.body,
    signature,
  };
}

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The body as a shell word, with each occurrence of the VA read from $PAYCLI_VA. */
function bodyWithVa(body: string, va: string | undefined): string {
  if (!va || va.length < 4 || !body.includes(va)) return shellQuote(body);
  return body
    .split(va)
    .map((part) => (part === '' ? '' : shellQuote(part)))
    .join('"$PAYCLI_VA"');
}

/**
 * An equivalent shell command that recomputes the signature from $PAYCLI_VA and $PAYCLI_API_KEY
 * (nothing secret is printed) and sends the request with curl.
 */
export function toCurl(req: SignedRequest): string {
  const body = req.body ?? '';
  const signed = req.signedText !== undefined && req.signedText !== req.body;
  const hashed = signed
    ? `$(printf '%s' "$SIGNED" | sha256sum | cut -d' ' -f1)`
    : req.body
      ? `$(printf '%s' "$BODY" | sha256sum | cut -d' ' -f1)`
      : `$(printf '{}' | sha256sum | cut -d' ' -f1)`;
  const lines = [
    // The VA in a body (balance's `account`) is spliced in from $PAYCLI_VA, so it is not printed.
    `BODY=${bodyWithVa(body, req.headers.va)}`,
    ...(signed ? [`SIGNED=${bodyWithVa(req.signedText!, req.headers.va)}`] : []),
    `SIG=$(printf '%s' "${req.method}:$PAYCLI_VA:${hashed}:$PAYCLI_API_KEY" | openssl dgst -sha256 -hmac "$PAYCLI_API_KEY" | sed 's/^.* //')`,
    `curl -sS -X ${req.method} ${shellQuote(req.url)} \\`,
    `  -H ${shellQuote(`Content-Type: ${req.headers['content-type'] ?? 'application/json'}`)} -H 'Accept: application/json' \\`,
    `  -H "va: $PAYCLI_VA" -H "signature: $SIG" -H "timestamp: $(TZ=Asia/Jakarta date +%Y%m%d%H%M%S)"` + (req.body ? ` \\` : ''),
  ];
  if (req.body) lines.push(`  --data-binary "$BODY"`);
  return lines.join('\n');
}

/**
 * The string to sign as it may be shown: `METHOD:VA:sha256(body):API key` with the VA and the API
 * key masked (maskSecret for the VA, the callback signing secret; maskApiKey for the key).
 */
export function maskedStringToSign(req: SignedRequest): string {
  const { method, bodyHash, stringToSignMasked } = req.signature;
  const maskedKey = stringToSignMasked.slice(method.length + 1 + req.headers.va.length + 1 + bodyHash.length + 1);
  return `${method}:${maskSecret(req.headers.va)}:${bodyHash}:${maskedKey}`;
}
