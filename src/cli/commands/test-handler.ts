import { writeFile } from 'node:fs/promises';
import { NetworkError, PaycliError, UsageError } from '../../core/errors.js';
import { externalId, signCallbackRequest, encodeFormBody, encodeJsonCallbackBody, type JsonCallbackShape } from '../../core/callback/build.js';
import { sampleCallbackFields } from '../../core/callback/sample.js';
import { canonicalizeCallback } from '../../core/signing/callback-canonical.js';
import { hmacHex } from '../../core/signing/callback-signature.js';
import { describeSendError, sendRaw, type RawResponse } from '../../core/http/raw-post.js';
import type { CallbackStatus } from '../../core/payment-rules.js';
import { durationFlag } from '../duration-flag.js';
import type { Handler } from '../command-env.js';
import { callbackVa, checkCallbackFlags } from '../callback-shared.js';
import { parseHttpUrl } from '../../core/http/serve.js';
import { Option, examples, type Define } from '../command-kit.js';
import { METHOD_NAMES } from '../../core/payment-rules.js';
import { topCommand } from './heads.js';
import { createSpinner } from '../spinner.js';

interface TestFlags {
  format?: string;
  junit?: string;
  deadline?: string;
  method?: string;
  channel?: string;
}

/** How a check's callback is sent: a form body, typed JSON (as the gateway), or JSON with every value a string. */
export type Shape = 'form' | 'json' | 'json-strings';

export interface CheckOutcome {
  name: string;
  format: Shape;
  expectation: string;
  observation: string;
  passed: boolean;
  ms: number | null;
  /** The first line of the handler's answer, for a failed check. */
  body?: string;
}

/** Network failures that mean nothing answers at the URL at all (as opposed to a slow handler). */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL']);

/** A line of text from the handler, safe for a terminal: control characters escaped, at most `max` long. */
export function firstLine(text: string, max = 120): string {
  const line = (text.split(/\r?\n/).find((l) => l.trim() !== '') ?? '').trim();
  const safe = line.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  return safe.length > max ? safe.slice(0, max - 1) + '…' : safe;
}

type Body = { body: string; headers: Record<string, string> };

function xmlEscape(s: string): string {
  return s.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!);
}

/** Renders outcomes as JUnit XML for CI systems. */
export function junitXml(url: string, outcomes: CheckOutcome[]): string {
  const failures = outcomes.filter((o) => !o.passed).length;
  const cases = outcomes
    .map((o) => {
      const name = xmlEscape(`${o.name} (${o.format})`);
      const time = ((o.ms ?? 0) / 1000).toFixed(3);
      return o.passed
        ? `    <testcase classname="paycli.test-handler" name="${name}" time="${time}"/>`
        : `    <testcase classname="paycli.test-handler" name="${name}" time="${time}">\n      <failure message="${xmlEscape(`expected ${o.expectation}, got ${o.observation}`)}"/>\n    </testcase>`;
    })
    .join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites>\n  <testsuite name="${xmlEscape(`callback handler ${url}`)}" tests="${outcomes.length}" failures="${failures}">\n${cases}\n  </testsuite>\n</testsuites>\n`;
}

/** `paycli test-handler URL`: a conformance suite for the merchant's own callback handler. */
export const testHandlerCommand: Handler<TestFlags> = async (env, url: string) => {
  const { opts, out, ctx } = env;
  parseHttpUrl(url, 'URL');
  const formats: ('form' | 'json')[] = opts.format === undefined || opts.format === 'both' ? ['form', 'json'] : opts.format === 'form' || opts.format === 'json' ? [opts.format] : [];
  if (formats.length === 0) throw new UsageError(`invalid --format "${opts.format}": form, json or both`);
  // JSON is sent both ways senders write it: typed (as the gateway's field table says) and all strings.
  const shapes: Shape[] = formats.flatMap((f): Shape[] => (f === 'json' ? ['json', 'json-strings'] : ['form']));
  const deadline = durationFlag(opts.deadline, '--deadline', 5000);
  const { method, channel } = checkCallbackFlags({ method: opts.method ?? 'va', channel: opts.channel });
  const va = await callbackVa(env);
  const cfg = await env.session.config();
  // A plausible wrong secret when no API key is configured: what matters is that it is not the VA.
  const apiKey = cfg.apiKey?.value ?? 'SANDBOX-NOT-THE-VA-0000';
  let seq = 0;
  let reached = false;

  const post = async (b: Body): Promise<{ res?: RawResponse; error?: string }> => {
    try {
      const res = await sendRaw(url, { headers: b.headers, body: b.body, timeoutMs: deadline, signal: ctx.interrupts() });
      reached = true;
      return { res };
    } catch (err) {
      // Ctrl-C: stop the suite at once (exit 130), not record a failed check.
      if (ctx.interrupts().aborted) throw new PaycliError('interrupted', 'interrupted: the suite was stopped');
      const code = (err as NodeJS.ErrnoException).code ?? '';
      // Nothing listens there: one line and exit 5, not a list of failed checks.
      if (!reached && UNREACHABLE.has(code)) {
        throw new NetworkError(`cannot reach the handler at ${url}: ${describeSendError(err)}`, { hint: 'start your app (or check the URL and port), then run test-handler again' });
      }
      return { error: describeSendError(err) }; // a timeout reads "no answer within DEADLINE ms"
    }
  };
  const split = (shape: Shape): { format: 'form' | 'json'; json: JsonCallbackShape } => ({ format: shape === 'form' ? 'form' : 'json', json: shape === 'json-strings' ? 'strings' : 'typed' });
  const make = (status: CallbackStatus, shape: Shape, settlement?: 'immediate' | 'deferred') => {
    const now = ctx.now();
    const fields = sampleCallbackFields({ status, method, channel, now, url, settlement });
    const { format, json } = split(shape);
    return signCallbackRequest(fields, va, format, now, externalId(now, ++seq), json);
  };
  const encode = (fields: Record<string, string>, shape: Shape) => (shape === 'form' ? encodeFormBody(fields) : encodeJsonCallbackBody(fields, split(shape).json));

  // Each check is shown as it finishes; on a terminal a spinner says which one is running. It
  // leaves stdin alone (see spinner.ts), so Ctrl-C is SIGINT and stops the suite at once.
  const c = out.c;
  const spinner = !out.json && ctx.stderrIsTTY ? await createSpinner(ctx) : undefined;
  const outcomes: CheckOutcome[] = [];
  const show = (o: CheckOutcome) => {
    outcomes.push(o);
    if (out.json) return;
    spinner?.clear();
    // Fits 80 columns: mark, shape, check, then what was observed (the detail goes on the next line).
    const short = o.passed ? o.observation : o.observation.split(':')[0]!;
    const observed = short.length > 18 ? short.slice(0, 17) + '…' : short;
    out.out(`${o.passed ? c.green('✓') : c.red('✗')} ${o.format.padEnd(13)}${o.name.padEnd(46)} ${observed}`);
    if (!o.passed) {
      const detail = `expected ${o.expectation}, got ${o.observation}`;
      out.out(c.dim(`    ${detail.length > 76 ? detail.slice(0, 75) + '…' : detail}`));
    }
  };
  const running = (name: string, shape: Shape) => {
    if (spinner) {
      spinner.text = `${name} (${shape})`;
      if (!spinner.isSpinning) spinner.start();
      else spinner.render();
    }
  };
  const observe = (r: { res?: RawResponse; error?: string }, passed: boolean): Pick<CheckOutcome, 'observation' | 'body'> => {
    if (!r.res) return { observation: r.error! };
    const line = firstLine(r.res.body);
    return passed || !line ? { observation: `HTTP ${r.res.status}` } : { observation: `HTTP ${r.res.status}: ${line}`, body: line };
  };
  const expect = async (name: string, shape: Shape, body: Body, accept: boolean) => {
    running(name, shape);
    const r = await post(body);
    const passed = r.res !== undefined && (accept ? r.res.status === 200 : r.res.status !== 200);
    show({ name, format: shape, expectation: accept ? 'HTTP 200' : 'rejected (not 200)', ...observe(r, passed), passed, ms: r.res?.ms ?? null });
  };

  try {
    for (const shape of shapes) {
      for (const status of ['berhasil', 'pending', 'expired'] as CallbackStatus[]) {
        await expect(`valid ${status} callback is accepted`, shape, make(status, shape), true);
      }
      // Paid but settled later (transaction_status_code 6, settlement_status unsettle) is still a payment.
      await expect('paid, settled later (code 6), is accepted', shape, make('berhasil', shape, 'deferred'), true);
      const base = make('berhasil', shape);
      const tampered = { ...base.fields, amount: String(Number(base.fields.amount) + 1000), total: String(Number(base.fields.total) + 1000) };
      await expect('tampered amount is rejected', shape, { body: encode(tampered, shape), headers: base.headers }, false);
      const unsigned = make('berhasil', shape);
      const { 'X-Signature': _dropped, ...noSig } = unsigned.headers;
      void _dropped;
      await expect('missing signature is rejected', shape, { body: unsigned.body, headers: noSig }, false);
      const withKey = make('berhasil', shape);
      await expect('signature made with the API key is rejected', shape, { body: withKey.body, headers: { ...withKey.headers, 'X-Signature': hmacHex(apiKey, canonicalizeCallback(withKey.fields)) } }, false);
      const unescaped = make('berhasil', shape);
      const wrong = hmacHex(va, canonicalizeCallback(unescaped.fields, { json: { escapeSlash: false, escapeUnicode: true } }));
      await expect('signature over unescaped "/" JSON is rejected', shape, { body: unescaped.body, headers: { ...unescaped.headers, 'X-Signature': wrong } }, false);
      const dupName = 'duplicate delivery is answered 200 both times';
      running(dupName, shape);
      const dup = make('berhasil', shape);
      const first = await post(dup);
      const second = await post({ body: dup.body, headers: { ...dup.headers, 'X-External-ID': externalId(ctx.now(), ++seq) } });
      const both = first.res?.status === 200 && second.res?.status === 200;
      const one = (r: typeof first) => (r.res ? `HTTP ${r.res.status}` : r.error!);
      const bad = [first, second].find((r) => r.res && r.res.status !== 200);
      const line = bad ? firstLine(bad.res!.body) : '';
      show({
        name: dupName, format: shape, expectation: 'HTTP 200, HTTP 200',
        observation: `${one(first)}, ${one(second)}${!both && line ? `: ${line}` : ''}`, passed: both, ms: second.res?.ms ?? null, ...(!both && line ? { body: line } : {}),
      });
    }
  } finally {
    spinner?.stop();
  }
  const slowest = Math.max(0, ...outcomes.map((o) => o.ms ?? 0));
  show({ name: `every answer within ${deadline} ms`, format: shapes[0]!, expectation: `≤ ${deadline} ms`, observation: outcomes.some((o) => o.ms === null) ? 'some requests got no answer' : `slowest ${slowest} ms`, passed: outcomes.every((o) => o.ms !== null), ms: slowest });

  if (opts.junit) await writeFile(opts.junit, junitXml(url, outcomes));
  const failed = outcomes.filter((o) => !o.passed).length;
  if (out.json) out.data({ url, passed: failed === 0, total: outcomes.length, failed, checks: outcomes });
  else out.out(failed === 0 ? c.green(`\nall ${outcomes.length} checks passed`) : c.red(`\n${failed} of ${outcomes.length} checks failed`));
  return failed === 0 ? 0 : 6;
};

// ── Definition ──────────────────────────────────────────────────────────────────────────────────

const defineTestHandler: Define = (program, bind) => {
  bind(examples(
    topCommand(program, 'test-handler')
      .addOption(new Option('--format <format>', 'body formats to test').choices(['form', 'json', 'both']).default('both'))
      .addOption(new Option('--method <method>', 'payment method of the sample callbacks').choices(METHOD_NAMES as string[]).default('va'))
      .option('--channel <channel>', 'payment channel of the sample callbacks')
      .option('--deadline <duration>', 'each answer must come within this long (e.g. 5s, 500ms)', '5s')
      .option('--junit <file>', 'also write a JUnit XML report'),
    ['paycli --env local test-handler http://127.0.0.1:3000/callback', 'paycli test-handler https://staging.shop.example/ipaymu/callback --va 1179000899 --junit report.xml'],
  ), testHandlerCommand);
};

export const commands = { 'test-handler': defineTestHandler };
