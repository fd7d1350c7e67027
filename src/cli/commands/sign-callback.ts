import { encodeFormBody } from '../../core/callback/build.js';
import { UsageError } from '../../core/errors.js';
import { parseHttpUrl } from '../../core/http/serve.js';
import { canonicalizeCallback } from '../../core/signing/callback-canonical.js';
import { hmacHex } from '../../core/signing/callback-signature.js';
import type { Handler } from '../command-env.js';
import { readCallbackPayload } from '../callback-payload.js';
import { callbackVa } from '../callback-shared.js';
import { examples, type Define } from '../command-kit.js';
import { topCommand } from './heads.js';

interface SignFlags {
  data?: string;
  showCanonical?: boolean;
  /** A switch with --to URL; a URL value is the old, deprecated spelling. */
  curl?: string | boolean;
  to?: string;
}

/** `paycli sign-callback`: the X-Signature the gateway would send for a payload, or a curl command that posts it signed. */
export const signCallbackCommand: Handler<SignFlags> = async (env, file?: string) => {
  const parsed = await readCallbackPayload(env, file);
  const va = await callbackVa(env);
  const canonical = canonicalizeCallback(parsed.fields);
  const signature = hmacHex(va, canonical);
  const { out, opts } = env;
  if (opts.to !== undefined && opts.curl === undefined) throw new UsageError('--to needs --curl: sign-callback only prints the command that posts it');
  if (opts.curl !== undefined) {
    // --curl is a switch everywhere; the URL goes in --to. `--curl URL` still works, with a note.
    if (typeof opts.curl === 'string' && opts.to === undefined) out.warn('--curl URL is deprecated: use --curl --to URL');
    const url = opts.to ?? (typeof opts.curl === 'string' ? opts.curl : undefined);
    if (url === undefined)
      throw new UsageError('--curl needs --to URL: where the signed callback is posted', {
        hint: 'e.g. paycli sign-callback payload.form --curl --to http://127.0.0.1:3000/callback',
      });
    const target = parseHttpUrl(url, opts.to !== undefined ? '--to' : '--curl');
    const body =
      parsed.format === 'form'
        ? parsed.body.includes('=')
          ? parsed.body.replace(/\r?\n$/, '')
          : encodeFormBody(parsed.fields as Record<string, string>)
        : parsed.body;
    // Single quotes keep every byte but control characters, which the output would escape: those go in $'…' as \xHH.
    const q = (s: string) =>
      /[\x00-\x1f\x7f]/.test(s)
        ? `$'${s.replace(/[\\']/g, (c) => `\\${c}`).replace(/[\x00-\x1f\x7f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`)}'`
        : `'${s.replace(/'/g, `'\\''`)}'`;
    out.out(
      [
        `curl -sS -X POST ${q(target.toString())} \\`,
        `  -H 'Accept: application/json' \\`,
        `  -H 'Content-Type: ${parsed.format === 'json' ? 'application/json' : 'application/x-www-form-urlencoded'}' \\`,
        `  -H "X-External-ID: $(date +%Y%m%d%H%M%S)$(printf '%06d' $RANDOM)" \\`,
        `  -H 'X-Signature: ${signature}' \\`,
        `  -H "X-Timestamp: $(TZ=Asia/Jakarta date +%Y-%m-%dT%H:%M:%S+07:00)" \\`,
        `  --data-binary ${q(body)}`,
      ].join('\n'),
    );
    return 'ok';
  }
  if (out.json) out.data(opts.showCanonical ? { signature, canonical } : { signature });
  else out.out(opts.showCanonical ? `${signature}\n${canonical}` : signature);
  return 'ok';
};

// ── Definitions ─────────────────────────────────────────────────────────────────────────────────

const defineSignCallback: Define = (program, bind) => {
  bind(
    examples(
      topCommand(program, 'sign-callback')
        .option('--data <text>', 'the payload inline instead of a file')
        .option('--show-canonical', 'also print the canonical JSON')
        .option('--curl [url]', 'print a curl command that posts the payload, signed, to --to URL')
        .option('--to <url>', 'with --curl: where the callback is posted'),
      [
        'paycli sign-callback payload.form --va 1179000899',
        'paycli sign-callback payload.json --show-canonical --json',
        'paycli sign-callback payload.form --curl --to http://127.0.0.1:3000/callback',
      ],
    ),
    signCallbackCommand,
  );
};

export const commands = { 'sign-callback': defineSignCallback };
