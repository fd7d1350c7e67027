import { writeFile } from 'node:fs/promises';
import { UsageError } from '../../core/errors.js';
import { parseHttpUrl } from '../../core/http/serve.js';
import { formatJakarta } from '../../core/time.js';
import { METHOD_NAMES } from '../../core/payment-rules.js';
import { durationFlag } from '../duration-flag.js';
import { wholeNumberFlag } from '../flag-values.js';
import type { CommandEnv, Handler } from '../command-env.js';
import { callbackVa, checkCallbackFlags } from '../callback-shared.js';
import { runHttpChecks } from '../handler-suite/basic.js';
import { runEffectChecks } from '../handler-suite/effects.js';
import { CallbackMaker } from '../handler-suite/callbacks.js';
import { Emulator } from '../handler-suite/emulator.js';
import { OrderProbe, OrderSource } from '../handler-suite/orders.js';
import { junitXml, Suite, type Shape } from '../handler-suite/suite.js';
import { collect, Option, examples, type Define } from '../command-kit.js';
import { topCommand } from './heads.js';

interface TestFlags {
  format?: string;
  junit?: string;
  deadline?: string;
  method?: string;
  channel?: string;
  orderUrl?: string;
  paidField?: string;
  amountField?: string;
  countField?: string;
  createOrderUrl?: string;
  orderAmount?: string;
  trx?: string[];
  referenceId?: string[];
  strict?: boolean;
  copies?: string;
}

/** The suite's last check (every answer in time), the JUnit file, and the verdict: how many failed. */
async function report(env: CommandEnv<TestFlags>, suite: Suite, url: string, deadline: number, shape: Shape): Promise<number> {
  const { opts, out } = env;
  const outcomes = suite.outcomes;
  const timed = outcomes.filter((o) => o.observation !== 'not run');
  const slowest = Math.max(0, ...timed.map((o) => o.ms ?? 0));
  suite.show({
    name: `every answer within ${deadline} ms`,
    format: shape,
    expectation: `≤ ${deadline} ms`,
    observation: timed.some((o) => o.ms === null) ? 'some requests got no answer' : `slowest ${slowest} ms`,
    passed: timed.every((o) => o.ms !== null),
    ms: slowest,
  });

  if (opts.junit) await writeFile(opts.junit, junitXml(url, outcomes));
  const failed = outcomes.filter((o) => !o.passed).length;
  const unseen = outcomes.filter((o) => o.passed && o.unobserved);
  const c = out.c;
  if (out.json)
    out.data({
      url,
      passed: failed === 0,
      effectsSeen: unseen.length === 0,
      total: outcomes.length,
      failed,
      unobserved: unseen.map((o) => `${o.name} (${o.format}): ${o.unobserved}`),
      checks: outcomes,
    });
  else if (failed > 0) out.out(c.red(`\n${failed} of ${outcomes.length} checks failed`));
  else if (unseen.length === 0) out.out(c.green(`\nall ${outcomes.length} checks passed`));
  else {
    const names = [...new Set(unseen.map((o) => o.name))];
    out.out(c.yellow(`\n${outcomes.length - unseen.length} of ${outcomes.length} checks passed; ${unseen.length} could not see their effect (~):`));
    for (const n of names) out.out(c.dim(`  ${n.length > 76 ? n.slice(0, 75) + '…' : n}`));
    out.out(
      c.dim(opts.orderUrl ? 'give more orders (--create-order-url) to run them all' : 'add --order-url with --create-order-url (or --trx) to see each effect'),
    );
  }
  return failed;
}

/**
 * `paycli test-handler URL`: a conformance suite for the merchant's own callback handler. Without
 * --order-url it judges HTTP answers in every body shape (and says which effects it could not see);
 * with it, real emulator orders and the app's order probe judge what each callback did.
 */
export const testHandlerCommand: Handler<TestFlags> = async (env, url: string) => {
  const { opts, ctx } = env;
  parseHttpUrl(url, 'URL');
  const formats: ('form' | 'json')[] =
    opts.format === undefined || opts.format === 'both' ? ['form', 'json'] : opts.format === 'form' || opts.format === 'json' ? [opts.format] : [];
  if (formats.length === 0) throw new UsageError(`invalid --format "${opts.format}": form, json or both`);
  const deadline = durationFlag(opts.deadline, '--deadline', 5000);
  const copies = wholeNumberFlag(opts.copies, '--copies', 2, 50) ?? 5;
  const { method, channel } = checkCallbackFlags({ method: opts.method ?? 'va', channel: opts.channel });
  const withOrders = Boolean(opts.createOrderUrl || opts.trx?.length || opts.referenceId?.length);
  if (!opts.orderUrl && (withOrders || opts.strict))
    throw new UsageError(
      `${opts.strict ? '--strict' : '--trx, --reference-id and --create-order-url'} need --order-url (the probe that shows what a callback did)`,
    );
  if (opts.orderUrl && !withOrders)
    throw new UsageError('--order-url needs orders your app knows: --create-order-url URL, or --trx ID / --reference-id REF', {
      hint: 'e.g. paycli --env local test-handler URL --order-url "http://127.0.0.1:3000/orders/{reference_id}" --create-order-url http://127.0.0.1:3000/test/orders',
    });
  if (opts.orderUrl) {
    parseHttpUrl(opts.orderUrl.replaceAll('{trx_id}', '1').replaceAll('{reference_id}', 'R'), '--order-url');
    if (!opts.orderUrl.includes('{trx_id}') && !opts.orderUrl.includes('{reference_id}'))
      throw new UsageError('--order-url needs {trx_id} or {reference_id} in it');
  }
  if (opts.createOrderUrl) parseHttpUrl(opts.createOrderUrl, '--create-order-url');
  const va = await callbackVa(env);
  const cfg = await env.session.config();
  // A plausible wrong secret when no API key is configured: what matters is that it is not the VA.
  const apiKey = cfg.apiKey?.value ?? 'SANDBOX-NOT-THE-VA-0000';
  const maker = new CallbackMaker(va, ctx.now, { method, channel, url });
  const suite = new Suite(env, url, deadline);
  // With orders, one body shape (the first of --format); without, every shape (JSON typed and all strings).
  const shapes: Shape[] = opts.orderUrl ? [formats[0]!] : formats.flatMap((f): Shape[] => (f === 'json' ? ['json', 'json-strings'] : ['form']));

  let source: OrderSource | undefined;
  await suite.start();
  try {
    if (opts.orderUrl) {
      const emulator = await Emulator.of(env, '--order-url with --trx, --reference-id or --create-order-url');
      const amount = wholeNumberFlag(opts.orderAmount, '--order-amount', 10_000, 100_000_000) ?? 50_000;
      const probe = new OrderProbe(
        opts.orderUrl,
        { paid: opts.paidField ?? 'paid', amount: opts.amountField ?? 'amount', count: opts.countField ?? 'fulfilments' },
        deadline,
      );
      source = new OrderSource(
        emulator,
        { trx: opts.trx ?? [], refs: opts.referenceId ?? [] },
        opts.createOrderUrl,
        amount,
        formatJakarta(ctx.now()).replace(/\D/g, ''),
      );
      await runEffectChecks({
        suite,
        shape: shapes[0]!,
        maker,
        probe,
        source,
        emulator,
        strict: Boolean(opts.strict),
        copies,
        apiKey,
        va,
        now: ctx.now,
        signal: ctx.interrupts(),
      });
    } else {
      await runHttpChecks(suite, shapes, maker, { va, apiKey }, copies);
    }
  } finally {
    suite.stop();
    await source?.close();
  }
  const failed = await report(env, suite, url, deadline, shapes[0]!);
  return failed === 0 ? 'ok' : 'signature';
};

// ── Definition ──────────────────────────────────────────────────────────────────────────────────

const defineTestHandler: Define = (program, bind) => {
  bind(
    examples(
      topCommand(program, 'test-handler')
        .addOption(new Option('--format <format>', 'body formats to test (with --order-url: the first)').choices(['form', 'json', 'both']).default('both'))
        .addOption(new Option('--method <method>', 'payment method of the sample callbacks').choices(METHOD_NAMES as string[]).default('va'))
        .option('--channel <channel>', 'payment channel of the sample callbacks')
        .option('--deadline <duration>', 'each answer must come within this long (e.g. 5s, 500ms)', '5s')
        .option('--junit <file>', 'also write a JUnit XML report (one case per check)')
        .option('--order-url <url>', "your app's order state as JSON, or 404 ({trx_id} {reference_id} filled in)")
        .option('--paid-field <name>', 'the field of --order-url that says paid (default paid)')
        .option('--amount-field <name>', 'the field of --order-url with the amount (default amount)')
        .option('--count-field <name>', 'the field of --order-url counting fulfilments (default fulfilments)')
        .option('--create-order-url <url>', 'make a fresh order per check: an emulator payment, announced here as JSON')
        .option('--order-amount <rupiah>', 'amount of the orders --create-order-url makes (default 50000)')
        .option('--trx <id>', 'a pending emulator transaction your app has an order for (repeatable)', collect)
        .option('--reference-id <ref>', 'the same, by reference id (repeatable)', collect)
        .option('--strict', 'the handler must confirm through check transaction (the emulator records it)')
        .option('--copies <n>', 'copies of one callback sent at once (default 5)'),
      [
        'paycli --env local test-handler http://127.0.0.1:3000/callback',
        'paycli --env local test-handler http://127.0.0.1:3000/callback --order-url "http://127.0.0.1:3000/orders/{reference_id}" --create-order-url http://127.0.0.1:3000/test/orders --strict',
        'paycli test-handler https://staging.shop.example/ipaymu/callback --va 1179000899 --junit report.xml',
      ],
    ),
    testHandlerCommand,
  );
};

export const commands = { 'test-handler': defineTestHandler };
