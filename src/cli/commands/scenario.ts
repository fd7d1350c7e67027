import { readFile, writeFile } from 'node:fs/promises';
import { AuthError, SignatureError, UsageError } from '../../core/errors.js';
import type { Handler } from '../command-env.js';
import { examples, type Define } from '../command-kit.js';
import { topCommand } from './heads.js';

interface ScenarioFlags {
  junit?: string;
  sandboxUrl?: string;
}

/**
 * `paycli scenario run FILE.yaml`: runs a committed scenario against an emulator (an in-process one
 * unless --sandbox-url names a running one). Exit 0 when every step passes, 6 when one fails, 2 for
 * a file with unknown keys or undefined references (nothing runs then).
 */
export const scenarioRun: Handler<ScenarioFlags> = async (env, file: string) => {
  const { out, ctx } = env;
  const { parseScenario, ScenarioError } = await import('../../core/scenario/parse.js');
  const { runScenario, junitReport } = await import('../../core/scenario/run.js');
  const { startReceivers } = await import('../../core/scenario/receivers.js');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  let sc;
  try {
    sc = await parseScenario(text, file);
  } catch (err) {
    if (err instanceof ScenarioError) throw new UsageError(`invalid scenario, nothing was run: ${err.message}`);
    throw err;
  }
  const receivers = await startReceivers(sc.receivers);
  let stop: (() => Promise<void>) | undefined;
  try {
    let sandboxUrl = env.opts.sandboxUrl?.replace(/\/+$/, '').replace(/\/api$/, '');
    let credentials: { va: string; apiKey: string };
    const { EMULATOR_DEFAULT_API_KEY, EMULATOR_DEFAULT_VA } = await import('../../core/config/resolve.js');
    if (sandboxUrl) {
      // A running emulator: the merchant's configured credentials, else the emulator's documented default.
      credentials = await env.session.credentials().catch((err: unknown) => {
        if (err instanceof AuthError) return { va: EMULATOR_DEFAULT_VA, apiKey: EMULATOR_DEFAULT_API_KEY };
        throw err;
      });
    } else {
      const { startSandbox } = await import('../../core/sandbox/server.js');
      const sb = await startSandbox({
        port: 0,
        dashboard: false,
        settlement: sc.sandbox.settlement,
        callbackFormat: sc.sandbox.callbackFormat,
        retrySchedule: sc.sandbox.retrySchedule ?? [200, 500, 1000, 2000],
        callbackTimeoutMs: 5000,
      });
      stop = () => sb.close();
      sandboxUrl = sb.url;
      credentials = { va: sb.accounts[0]!.va, apiKey: sb.accounts[0]!.apiKey! };
    }
    if (!out.json) out.info(`scenario ${sc.name}: ${sc.steps.length} steps against ${env.opts.sandboxUrl ? sandboxUrl : 'an in-process emulator'}`);
    const results = await runScenario(sc, {
      sandboxUrl,
      credentials,
      receivers: receivers.urls,
      now: () => ctx.now(),
      signal: ctx.interrupts(),
      onStep: (r) => {
        if (out.json) return;
        const mark = r.skipped ? out.c.dim('skip') : r.ok ? out.c.green('ok  ') : out.c.red('FAIL');
        out.out(out.fitLine(`${mark} ${String(r.step.index + 1).padStart(2, '0')} `, `${r.step.name} · ${r.message}`));
      },
    });
    if (env.opts.junit) await writeFile(env.opts.junit, junitReport(sc.name, results));
    const failed = results.filter((r) => !r.ok && !r.skipped);
    if (out.json)
      out.data({
        scenario: sc.name,
        ok: failed.length === 0,
        steps: results.map((r) => ({
          index: r.step.index,
          id: r.step.id ?? null,
          name: r.step.name,
          action: r.step.action,
          ok: r.ok,
          skipped: r.skipped === true,
          ms: r.ms,
          message: r.message,
        })),
      });
    if (failed.length > 0)
      throw new SignatureError(`scenario ${sc.name}: step ${failed[0]!.step.index + 1} (${failed[0]!.step.name}) failed: ${failed[0]!.message}`);
    if (!out.json) out.info(`scenario ${sc.name}: all ${results.length} steps passed`);
    return 'ok';
  } finally {
    await stop?.();
    await receivers.close();
  }
};

// ── Definition ──────────────────────────────────────────────────────────────────────────────────

const defineScenario: Define = (program, bind) => {
  const scenario = topCommand(program, 'scenario');
  bind(
    examples(
      scenario
        .command('run <file>')
        .description('run a scenario file: create payments, pay/cancel/expire, admin transitions, clock moves, and expectations (exit 6 when a step fails)')
        .option('--junit <file>', 'also write a JUnit XML report (one test case per step)')
        .option('--sandbox-url <url>', 'run against this running emulator instead of an in-process one'),
      [
        'paycli scenario run examples/scenarios/va-paid.yaml',
        'paycli scenario run refund.yaml --junit scenario.xml',
        'paycli scenario run qris-expired.yaml --sandbox-url http://127.0.0.1:4010',
      ],
    ),
    scenarioRun,
  );
};

export const commands = { scenario: defineScenario };
