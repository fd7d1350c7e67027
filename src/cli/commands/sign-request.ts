import { UsageError } from '../../core/errors.js';
import type { Handler } from '../command-env.js';
import { readInput } from '../io.js';
import { maskSecret } from '../../core/signing/request-signature.js';
import { maskedStringToSign } from '../../core/api/signed-request.js';
import { Option, examples, type Define } from '../command-kit.js';
import { topCommand } from './heads.js';

/** `paycli sign request`: shows every step of the request signing (docs/gateway.md, "Request signing") for one request. */
export const signRequestCommand: Handler<{ httpMethod?: string; method?: string; path: string; body?: string }> = async (env) => {
  const { opts, session, out } = env;
  if (opts.method !== undefined && opts.httpMethod === undefined)
    out.warn('--method is deprecated for sign request (it names the payment method elsewhere): use --http-method');
  const given = opts.httpMethod ?? opts.method;
  if (given === undefined)
    throw new UsageError("required option '--http-method <method>' not specified", {
      hint: 'e.g. paycli sign request --http-method GET --path areas/province',
    });
  const method = given.toUpperCase();
  if (!/^[A-Z]+$/.test(method)) throw new UsageError(`invalid --http-method "${given}"`);
  const body = opts.body !== undefined ? await readInput(env.ctx, opts.body, 'the body') : undefined;
  const req = await session.signed(method, opts.path.replace(/^\/+/, '').replace(/^api\//, ''), body);
  const headers = { ...req.headers, va: maskSecret(req.headers.va) };
  const result = {
    method,
    url: req.url,
    bodyHashed: body === undefined || body.length === 0 ? '{}' : `${Buffer.byteLength(body)} bytes`,
    bodyHash: req.signature.bodyHash,
    stringToSign: maskedStringToSign(req),
    signature: req.signature.signature,
    headers,
  };
  if (out.json) {
    out.data(result);
    return 'ok';
  }
  const dim = out.c.dim;
  out.out(
    [
      `${dim('request       ')} ${method} ${req.url}`,
      `${dim('body hashed   ')} ${result.bodyHashed}`,
      `${dim('sha256(body)  ')} ${result.bodyHash}`,
      `${dim('string to sign')} ${result.stringToSign}`,
      `${dim('signature     ')} ${out.c.bold(result.signature)}  ${dim('(HMAC-SHA256 with the API key)')}`,
      '',
      ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    ].join('\n'),
  );
  return 'ok';
};

// ── Definition ──────────────────────────────────────────────────────────────────────────────────

export const commands: Record<'sign', Define> = {
  sign: (program, bind) => {
    const sign = topCommand(program, 'sign');
    bind(
      examples(
        sign
          .command('request')
          .description('body hash, string to sign (VA and API key masked), signature and headers of a request')
          .option('--http-method <method>', 'HTTP method (GET, POST, …)')
          // `--method` is the payment method everywhere else; kept here, hidden, for old scripts.
          .addOption(new Option('--method <method>', 'deprecated: use --http-method').hideHelp())
          .requiredOption('--path <path>', 'API path, e.g. areas/province or v2/payment/direct')
          .option('--body <file>', 'the exact body bytes, from a file or - for stdin'),
        [
          'paycli sign request --http-method GET --path areas/province',
          'paycli sign request --http-method POST --path v2/payment/direct --body body.json --json',
        ],
      ),
      signRequestCommand,
    );
  },
};
