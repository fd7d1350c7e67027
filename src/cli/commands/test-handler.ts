import { writeFile } from 'node:fs/promises';
import { UsageError } from '../../core/errors.js';
import { externalId, signCallbackRequest, encodeFormBody, encodeJsonCallbackBody } from '../../core/callback/build.js';
import { sampleCallbackFields } from '../../core/callback/sample.js';
import { canonicalizeCallback } from '../../core/signing/callback-canonical.js';
import { hmacHex } from '../../core/signing/callback-signature.js';
import { describeSendError, sendRaw, type RawResponse } from '../../core/http/raw-post.js';
import type { CallbackStatus } from '../../core/payment-rules.js';
import type { Handler } from '../command-env.js';
import { table } from '../output.js';
import { callbackVa } from './callback-shared.js';
import { checkCallbackFlags } from './trigger.js';
import { describeMaxMs, TIMER_MAX_MS } from '../../core/duration.js';
import { parseHttpUrl } from '../../core/http/serve.js';

interface TestFlags {
  format?: string;
  junit?: string;
  deadline?: string;
  method?: string;
  channel?: string;
}

export interface CheckOutcome {
  name: string;
  format: 'form' | 'json';
  expectation: string;
  observation: string;
  passed: boolean;
  ms: number | null;
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
  const deadline = opts.deadline === undefined ? 5000 : Number(opts.deadline);
  if (!Number.isInteger(deadline) || deadline <= 0) throw new UsageError(`invalid --deadline "${opts.deadline}": milliseconds above 0`);
  if (deadline > TIMER_MAX_MS) throw new UsageError(`invalid --deadline "${opts.deadline}": the maximum is ${describeMaxMs(TIMER_MAX_MS)}`);
  const { method, channel } = checkCallbackFlags({ method: opts.method ?? 'va', channel: opts.channel });
  const va = await callbackVa(env);
  const cfg = await env.session.config();
  // A plausible wrong secret when no API key is configured: what matters is that it is not the VA.
  const apiKey = cfg.apiKey?.value ?? 'SANDBOX-NOT-THE-VA-0000';
  let seq = 0;

  const post = async (b: Body): Promise<{ res?: RawResponse; error?: string }> => {
    try {
      return { res: await sendRaw(url, { headers: b.headers, body: b.body, timeoutMs: deadline }) };
    } catch (err) {
      return { error: describeSendError(err) }; // a timeout reads "no answer within DEADLINE ms"
    }
  };
  const make = (status: CallbackStatus, format: 'form' | 'json', settlement?: 'immediate' | 'deferred') => {
    const now = ctx.now();
    const fields = sampleCallbackFields({ status, method, channel, now, url, settlement });
    return signCallbackRequest(fields, va, format, now, externalId(now, ++seq));
  };
  const encode = (fields: Record<string, string>, format: 'form' | 'json') => (format === 'json' ? encodeJsonCallbackBody(fields) : encodeFormBody(fields));

  const outcomes: CheckOutcome[] = [];
  const expect = async (name: string, format: 'form' | 'json', body: Body, accept: boolean) => {
    const { res, error } = await post(body);
    const observation = res ? `HTTP ${res.status}` : error!;
    const passed = res !== undefined && (accept ? res.status === 200 : res.status !== 200);
    outcomes.push({ name, format, expectation: accept ? 'HTTP 200' : 'rejected (not 200)', observation, passed, ms: res?.ms ?? null });
  };

  for (const format of formats) {
    for (const status of ['berhasil', 'pending', 'expired'] as CallbackStatus[]) {
      await expect(`valid ${status} callback is accepted`, format, make(status, format), true);
    }
    // Paid but settled later (transaction_status_code 6, settlement_status unsettle) is still a payment.
    await expect('valid paid-but-unsettled callback (code 6) is accepted', format, make('berhasil', format, 'deferred'), true);
    const base = make('berhasil', format);
    const tampered = { ...base.fields, amount: String(Number(base.fields.amount) + 1000), total: String(Number(base.fields.total) + 1000) };
    await expect('tampered amount is rejected', format, { body: encode(tampered, format), headers: base.headers }, false);
    const unsigned = make('berhasil', format);
    const { 'X-Signature': _dropped, ...noSig } = unsigned.headers;
    void _dropped;
    await expect('missing signature is rejected', format, { body: unsigned.body, headers: noSig }, false);
    const withKey = make('berhasil', format);
    await expect('signature made with the API key is rejected', format, { body: withKey.body, headers: { ...withKey.headers, 'X-Signature': hmacHex(apiKey, canonicalizeCallback(withKey.fields)) } }, false);
    const unescaped = make('berhasil', format);
    const wrong = hmacHex(va, canonicalizeCallback(unescaped.fields, { json: { escapeSlash: false, escapeUnicode: true } }));
    await expect('signature over unescaped "/" JSON is rejected', format, { body: unescaped.body, headers: { ...unescaped.headers, 'X-Signature': wrong } }, false);
    const dup = make('berhasil', format);
    const first = await post(dup);
    const second = await post({ body: dup.body, headers: { ...dup.headers, 'X-External-ID': externalId(ctx.now(), ++seq) } });
    const both = first.res?.status === 200 && second.res?.status === 200;
    outcomes.push({
      name: 'duplicate delivery is answered 200 both times', format, expectation: 'HTTP 200, HTTP 200',
      observation: `${first.res ? `HTTP ${first.res.status}` : first.error}, ${second.res ? `HTTP ${second.res.status}` : second.error}`, passed: both, ms: second.res?.ms ?? null,
    });
  }
  const slowest = Math.max(0, ...outcomes.map((o) => o.ms ?? 0));
  outcomes.push({ name: `every answer within ${deadline} ms`, format: formats[0]!, expectation: `≤ ${deadline} ms`, observation: outcomes.some((o) => o.ms === null) ? 'some requests got no answer' : `slowest ${slowest} ms`, passed: outcomes.every((o) => o.ms !== null), ms: slowest });

  if (opts.junit) await writeFile(opts.junit, junitXml(url, outcomes));
  const failed = outcomes.filter((o) => !o.passed).length;
  if (out.json) out.data({ url, passed: failed === 0, total: outcomes.length, failed, checks: outcomes });
  else {
    const c = out.c;
    out.out(table(outcomes.map((o) => [o.passed ? c.green('✓') : c.red('✗'), o.name, o.format, o.expectation, o.observation]), ['', 'CHECK', 'FORMAT', 'EXPECTED', 'OBSERVED'], (s) => c.bold(s)));
    out.out(failed === 0 ? c.green(`\nall ${outcomes.length} checks passed`) : c.red(`\n${failed} of ${outcomes.length} checks failed`));
  }
  return failed === 0 ? 0 : 6;
};
