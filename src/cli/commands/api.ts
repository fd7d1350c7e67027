import { apiSigned, buildApiBody, readApiMethod, readApiPath } from '../../core/api/raw-request.js';
import { GatewayError } from '../../core/errors.js';
import { parseEnvelope } from '../../core/http/envelope.js';
import type { Handler } from '../command-env.js';
import { apiFlags, collect, examples, type Define } from '../command-kit.js';
import { readInput } from '../io.js';
import { withSpinner } from '../spinner.js';
import { topCommand } from './heads.js';

interface ApiFlags {
  data?: string;
  field?: string[];
  form?: boolean;
}

/** `--data`'s text: inline, `@FILE`, or `-` (stdin). */
async function dataText(env: Parameters<Handler>[0], data: string | undefined): Promise<string | undefined> {
  if (data === undefined) return undefined;
  if (data === '-') return readInput(env.ctx, '-', 'request body');
  if (data.startsWith('@')) return readInput(env.ctx, data.slice(1), 'request body file');
  return data;
}

/** Whether a parsed answer says it failed: an HTTP error, `Success: false` or an error `Status`. */
function saysFailure(httpStatus: number, parsed: unknown): boolean {
  if (httpStatus >= 400) return true;
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return false;
  for (const [k, v] of Object.entries(parsed)) {
    const key = k.toLowerCase();
    if (key === 'success' && v === false) return true;
    if (key === 'status' && Number(v) >= 400) return true;
  }
  return false;
}

/**
 * `paycli api METHOD PATH`: signs and sends any request to the gateway (the escape hatch for an
 * endpoint paycli does not wrap, as `gh api` is for GitHub). The answer is printed whole (JSON
 * pretty-printed; `--json` prints the envelope as one document); an error answer exits as every
 * other command does (3 gateway, 4 authentication, 5 network).
 */
export const apiCommand: Handler<ApiFlags> = async (env, methodText: string, pathText: string) => {
  const { out, session, opts } = env;
  const method = readApiMethod(methodText);
  const path = readApiPath(pathText);
  const built = buildApiBody({ method, data: await dataText(env, opts.data), fields: opts.field ?? [], form: opts.form === true });
  const { body, contentType } = built;
  // A form (or a GET's query) is signed over its fields' JSON, as the gateway's collection signs it.
  const signedText = apiSigned(path, built);
  const req = await session.signed(method, path, signedText);
  req.body = body;
  if (signedText !== body) req.signedText = signedText;
  req.headers['content-type'] = contentType;
  if (method !== 'GET') await session.guardProduction(`${method} ${path}`);
  if (await session.preview(req)) return 'ok';
  const api = await session.api();
  const http = await api.http();
  const res = await withSpinner(env, `${method} ${path}`, () =>
    http.send({ method, url: req.url, headers: req.headers, body: req.body, signal: env.ctx.interrupts() }),
  );
  let parsed: unknown;
  let isJson = false;
  try {
    parsed = JSON.parse(res.text);
    isJson = true;
  } catch {
    // Not JSON: printed as received.
  }
  out.info(`HTTP ${res.status} · ${method} ${req.url}`);
  if (isJson) out.data(parsed);
  else if (res.text.length > 0) out.records(res.text);
  if (!saysFailure(res.status, parsed)) return 'ok';
  try {
    parseEnvelope(res, req.url);
  } catch (err) {
    return out.fail(err);
  }
  return out.fail(new GatewayError(res.status, `the gateway answered ${res.status}`));
};

// ── Definitions ─────────────────────────────────────────────────────────────────────────────────

const defineApi: Define = (program, bind) =>
  bind(
    examples(
      apiFlags(
        topCommand(program, 'api')
          .option('-d, --data <json>', 'the request body, sent byte for byte: JSON text, @FILE, or - for stdin')
          .option('-f, --field <name=value>', 'a body field: name=text, name:=JSON (numbers, true, lists), name[]=… appends to a list (repeatable)', collect)
          .option('--form', 'send the body as application/x-www-form-urlencoded instead of JSON'),
      ),
      [
        'paycli api POST v2/balance --field account=1179000899',
        'paycli api GET v2/payment-channels',
        'paycli api POST v2/transaction --data \'{"transactionId":100001}\'',
        'paycli api POST v2/payment --field product[]=Shirt --field qty[]:=1 --field price[]:=50000 --dry-run',
        'paycli --env local api POST v2/history --data @history.json --json | jq .Data',
      ],
    ),
    apiCommand,
  );

export const commands = { api: defineApi };
