import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { UsageError } from '../../core/errors.js';
import { checkCallback, type CallbackCheck } from '../../core/callback/check.js';
import { MalformedPayloadError, parseCallbackInput, parseCaptureObject, type ParsedCallback } from '../../core/callback/parse.js';
import { canonicalizeCallback } from '../../core/signing/callback-canonical.js';
import { hmacHex, signaturesEqual } from '../../core/signing/callback-signature.js';
import { encodeFormBody } from '../../core/callback/build.js';
import type { CommandEnv, Handler } from '../command-env.js';
import { readInput } from '../io.js';
import { callbackVa, diagnosisKeys, eventStore } from './callback-shared.js';

interface VerifyFlags {
  signature?: string;
  data?: string;
  event?: string;
  store?: string;
  showCanonical?: boolean;
  jsonl?: string;
  curl?: string;
}

/** Reads the payload from --data, --event, a FILE or stdin. */
async function readPayload(env: CommandEnv<VerifyFlags>, file: string | undefined): Promise<ParsedCallback> {
  const { opts } = env;
  const sources = [opts.data !== undefined, opts.event !== undefined, file !== undefined].filter(Boolean).length;
  if (sources > 1) throw new UsageError('give the payload one way: FILE, --data or --event');
  if (opts.event !== undefined) {
    const store = eventStore(env);
    const event = await store.find(opts.event);
    if (!event) throw new UsageError(`no event "${opts.event}" in ${store.path}`, { hint: 'list them with `paycli events list`' });
    return parseCaptureObject({ headers: event.headers, body: event.body });
  }
  const text = opts.data ?? (await readInput(env.ctx, file, 'the callback payload'));
  return parseCallbackInput(text);
}

function pickSignature(env: CommandEnv<VerifyFlags>, parsed: ParsedCallback): { value: string; from: string } {
  if (env.opts.signature !== undefined) return { value: env.opts.signature, from: '--signature' };
  if (parsed.headerSignature !== undefined) return { value: parsed.headerSignature, from: 'the X-Signature header' };
  const field = parsed.fields.signature;
  if (typeof field === 'string') return { value: field, from: 'the body field "signature"' };
  throw new UsageError('no signature to check: the input has no X-Signature header and no "signature" field', { hint: 'pass --signature HEX (the X-Signature header the callback arrived with)' });
}

function render(env: CommandEnv<VerifyFlags>, check: CallbackCheck, from: string): void {
  const { out } = env;
  if (out.json) {
    const diagnosis = check.verdict === 'valid' ? [] : [check.reason];
    const doc: Record<string, unknown> = {
      valid: check.verdict !== 'invalid',
      verdict: check.verdict,
      received: check.received.trim(),
      expected: check.expected,
      variant: check.diagnosis?.id ?? null,
      diagnosis,
    };
    if (env.opts.showCanonical) doc.canonical = check.canonical;
    out.data(doc);
    return;
  }
  const c = out.c;
  const lines: string[] = [];
  if (check.verdict === 'valid') lines.push(c.green('✓ valid signature') + c.dim(` (${from})`));
  else if (check.verdict === 'valid-variant') lines.push(c.yellow('✓ authentic, with an undocumented encoding') + c.dim(` (${from})`));
  else lines.push(c.red('✗ invalid signature') + c.dim(` (${from})`));
  lines.push(`  received  ${check.received.trim()}`, `  expected  ${check.expected}`);
  if (check.verdict !== 'valid') lines.push(`  ${check.verdict === 'invalid' ? 'diagnosis' : 'note'}: ${check.reason}`);
  if (env.opts.showCanonical) lines.push('', check.canonical);
  out.out(lines.join('\n'));
}

export const verifyCallbackCommand: Handler<VerifyFlags> = async (env, file?: string) => {
  if (env.opts.jsonl !== undefined) return verifyBatch(env, env.opts.jsonl);
  const parsed = await readPayload(env, file);
  const va = await callbackVa(env);
  const sig = pickSignature(env, parsed);
  const check = checkCallback(parsed.fields, sig.value, va, await diagnosisKeys(env));
  render(env, check, sig.from);
  return check.verdict === 'invalid' ? 6 : 0;
};

/** `--jsonl FILE`: verifies one `{headers, body}` capture per line, streaming. */
async function verifyBatch(env: CommandEnv<VerifyFlags>, path: string): Promise<number> {
  const va = await callbackVa(env);
  const keys = await diagnosisKeys(env);
  const input = path === '-' ? env.ctx.stdin : createReadStream(path);
  const opened = new Promise<void>((resolve, reject) => {
    if (path === '-') resolve();
    else {
      input.once('open', () => resolve());
      input.once('error', (err: NodeJS.ErrnoException) => reject(new UsageError(`cannot read --jsonl ${path}: ${err.code === 'ENOENT' ? 'no such file' : err.message}`)));
    }
  });
  await opened;
  const counts = { total: 0, valid: 0, validVariant: 0, invalid: 0, malformed: 0 };
  const failures: { line: number; verdict: string; reason: string; trx_id: string | null }[] = [];
  const MAX_LISTED = 100;
  let lineNo = 0;
  const rl = createInterface({ input, crlfDelay: Infinity });
  for await (const line of rl) {
    lineNo++;
    if (line.trim() === '') continue;
    counts.total++;
    let parsed: ParsedCallback;
    try {
      const obj = JSON.parse(line) as { headers?: Record<string, unknown>; body?: unknown };
      if (obj === null || typeof obj !== 'object') throw new MalformedPayloadError('the line is not a {headers, body} object');
      parsed = parseCaptureObject(obj);
    } catch (err) {
      counts.malformed++;
      if (failures.length < MAX_LISTED) failures.push({ line: lineNo, verdict: 'malformed', reason: err instanceof SyntaxError ? `not JSON: ${err.message}` : (err as Error).message, trx_id: null });
      continue;
    }
    const received = parsed.headerSignature ?? (typeof parsed.fields.signature === 'string' ? parsed.fields.signature : '');
    // The fast path: one canonicalisation and one HMAC. Diagnosis only for the failures listed.
    if (received && signaturesEqual(hmacHex(va, canonicalizeCallback(parsed.fields)), received)) {
      counts.valid++;
      continue;
    }
    const listed = failures.length < MAX_LISTED;
    const check = listed ? checkCallback(parsed.fields, received, va, keys) : undefined;
    if (check?.verdict === 'valid-variant') {
      counts.validVariant++;
      continue;
    }
    counts.invalid++;
    if (listed) failures.push({ line: lineNo, verdict: 'invalid', reason: check!.reason, trx_id: typeof parsed.fields.trx_id === 'string' ? parsed.fields.trx_id : null });
  }
  const failed = counts.invalid + counts.malformed;
  if (env.out.json) env.out.data({ file: path, ...counts, failures, failuresListed: failures.length, failuresTruncated: failed > failures.length });
  else {
    const c = env.out.c;
    for (const f of failures) env.out.out(`line ${f.line}: ${f.verdict === 'malformed' ? c.yellow('malformed') : c.red('invalid')}${f.trx_id ? ` trx ${f.trx_id}` : ''}: ${f.reason}`);
    if (failed > failures.length) env.out.out(c.dim(`… and ${failed - failures.length} more failures not listed`));
    env.out.out(`${counts.total} captures: ${c.green(`${counts.valid} valid`)}${counts.validVariant ? `, ${counts.validVariant} valid with an undocumented encoding` : ''}, ${failed ? c.red(`${counts.invalid} invalid`) : '0 invalid'}, ${counts.malformed} malformed`);
  }
  return failed > 0 ? 6 : 0;
}

export const signCallbackCommand: Handler<VerifyFlags> = async (env, file?: string) => {
  const parsed = await readPayload(env, file);
  const va = await callbackVa(env);
  const canonical = canonicalizeCallback(parsed.fields);
  const signature = hmacHex(va, canonical);
  const { out, opts } = env;
  if (opts.curl !== undefined) {
    let target: URL;
    try {
      target = new URL(opts.curl);
    } catch {
      throw new UsageError(`invalid --curl URL "${opts.curl}"`);
    }
    const body = parsed.format === 'form' ? (parsed.body.includes('=') ? parsed.body.replace(/\r?\n$/, '') : encodeFormBody(parsed.fields as Record<string, string>)) : parsed.body;
    const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
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
    return 0;
  }
  if (out.json) out.data(opts.showCanonical ? { signature, canonical } : { signature });
  else out.out(opts.showCanonical ? `${signature}\n${canonical}` : signature);
  return 0;
};
