import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PaycliError } from '../../core/errors.js';
import { areaPath, regionsFromData, type Region } from '../../core/api/areas.js';
import { ApiClient } from '../../core/api/client.js';
import { CHECK_TRANSACTION_PATH, DIRECT_PAYMENT_PATH, encodeCheckTransactionBody, encodePaymentBody, type DirectPaymentData } from '../../core/api/payments.js';
import { parseCaptureObject } from '../../core/callback/capture.js';
import { verifyCallback } from '../../core/signing/callback-signature.js';
import type { ListenerEvent } from '../../core/listener/server.js';
import type { CommandEnv, Handler } from '../command-env.js';
import type { Outcome } from '../exit-codes.js';
import { type Output, rupiah } from '../output.js';
import { VERSION } from '../version.js';
import { examples, type Define } from '../command-kit.js';
import { topCommand } from './heads.js';

interface Step {
  name: string;
  ok: boolean;
  detail: string;
  ms: number;
}

/** A step's own check did not hold (no provinces, the wrong status, …). */
export class StepFailed extends Error {}

/** The demo stopped at a step: the outcome is the step's error's (a check, or the network, …). */
export class DemoStopped extends Error {
  constructor(
    readonly step: string,
    readonly outcome: Outcome,
  ) {
    super(step);
  }
}

/** The steps run so far, each shown on stdout as it ends (text mode). */
export class StepLog {
  readonly steps: Step[] = [];
  constructor(private readonly out: Output) {}

  /** Runs one step; a failure is recorded and stops the demo with the outcome of its error. */
  async run(name: string, fn: () => Promise<string>): Promise<void> {
    const started = performance.now();
    const c = this.out.c;
    try {
      const detail = await fn();
      this.steps.push({ name, ok: true, detail, ms: Math.round(performance.now() - started) });
      if (!this.out.json) this.out.out(this.out.fitLine(`${c.green('✓')} ${name.padEnd(24)} `, detail));
    } catch (err) {
      const detail = err instanceof PaycliError || err instanceof StepFailed ? err.message : `unexpected: ${(err as Error).message}`;
      this.steps.push({ name, ok: false, detail, ms: Math.round(performance.now() - started) });
      if (!this.out.json) this.out.out(this.out.fitLine(`${c.red('✗')} ${name.padEnd(24)} `, detail));
      // A failed check is a check failure (exit 6), a PaycliError keeps its kind (network, …),
      // anything else is a bug of paycli's (internal).
      throw new DemoStopped(name, err instanceof StepFailed ? 'check' : err instanceof PaycliError ? err.kind : 'internal');
    }
  }
}

/** What the demo starts, in-process (closed at the end, whatever happened). */
interface DemoServices {
  dir: string;
  sandbox?: Awaited<ReturnType<typeof import('../../core/sandbox/server.js').startSandbox>>;
  listener?: Awaited<ReturnType<typeof import('../../core/listener/server.js').startListener>>;
  api?: ApiClient;
  /** Callbacks the listener received, and a wake-up for whoever waits for one. */
  callbacks: ListenerEvent[];
  notify: () => void;
}

/** A signed call of the emulator's API through the demo's client: its `Data`. */
type Call = <T>(method: string, path: string, body?: string) => Promise<T>;

/** Starts the emulator and the API client pointed at it (on loopback: no proxy applies). */
async function startEmulator(env: CommandEnv, log: StepLog, s: DemoServices): Promise<{ call: Call; client: ApiClient; va: string }> {
  const { ctx } = env;
  const { startSandbox } = await import('../../core/sandbox/server.js');
  const { createHttpClient } = await import('../../core/http/client.js');
  await log.run('start emulator', async () => {
    s.sandbox = await startSandbox({ port: 0, dataDir: join(s.dir, 'sandbox'), retrySchedule: [200, 500, 1000], now: () => ctx.now() });
    return `${s.sandbox.apiUrl} (VA ${s.sandbox.accounts[0]!.va}, ${s.sandbox.regions.counts.villages.toLocaleString('en')} villages indexed)`;
  });
  const account = s.sandbox!.accounts[0]!;
  const credentials = { va: account.va, apiKey: account.apiKey! };
  // The same core API client and transport as every command, pointed at the in-process emulator.
  const client = (s.api = new ApiClient({
    baseUrl: s.sandbox!.apiUrl,
    credentials: () => credentials,
    now: () => ctx.now(),
    signal: () => ctx.interrupts(),
    http: () => createHttpClient({ timeoutMs: 10_000, userAgent: `paycli/${VERSION} demo` }),
  }));
  const call: Call = async <T>(method: string, path: string, body?: string): Promise<T> => (await client.call<T>(method, path, body)).Data;
  return { call, client, va: account.va };
}

/** Province → city → district → village, as a checkout's address form walks them. */
async function regionSteps(log: StepLog, call: Call): Promise<void> {
  const pickRegion = (list: Region[], prefer: string) => list.find((r) => r.name === prefer) ?? list[0];
  const names = (list: Region[]) =>
    list
      .slice(0, 3)
      .map((r) => `${r.name} (${r.code})`)
      .join(', ') + (list.length > 3 ? `, … ${list.length} in all` : '');
  let province: Region | undefined;
  let city: Region | undefined;
  let district: Region | undefined;
  await log.run('list provinces', async () => {
    const list = regionsFromData(await call('GET', areaPath('province')));
    if (list.length === 0) throw new StepFailed('no provinces returned');
    province = pickRegion(list, 'BALI');
    return names(list);
  });
  await log.run(`cities of ${province!.name}`, async () => {
    const list = regionsFromData(await call('GET', areaPath('city', province!.code)));
    city = pickRegion(list, 'KOTA DENPASAR');
    if (!city) throw new StepFailed(`no cities for ${province!.code}`);
    return names(list);
  });
  await log.run(`districts of ${city!.code}`, async () => {
    const list = regionsFromData(await call('GET', areaPath('district', city!.code)));
    district = list[0];
    if (!district) throw new StepFailed(`no districts for ${city!.code}`);
    return names(list);
  });
  await log.run(`villages of ${district!.code}`, async () => {
    const list = regionsFromData(await call('GET', areaPath('village', district!.code)));
    if (list.length === 0) throw new StepFailed(`no villages for ${district!.code}`);
    return names(list);
  });
}

/** A VA payment, paid on the payment page: its data. */
async function paymentSteps(env: CommandEnv, log: StepLog, s: DemoServices, call: Call, client: ApiClient, va: string): Promise<DirectPaymentData> {
  const { ctx } = env;
  const c = env.out.c;
  const { startListener } = await import('../../core/listener/server.js');
  await log.run('start callback listener', async () => {
    s.listener = await startListener({
      port: 0,
      va,
      store: null,
      now: () => ctx.now(),
      onEvent: (e) => {
        s.callbacks.push(e);
        s.notify();
      },
    });
    return `${s.listener.url} (verifies with the merchant VA)`;
  });
  let payment: DirectPaymentData | undefined;
  await log.run('create VA payment (BCA)', async () => {
    const body = encodePaymentBody({
      name: 'Putu Ayu',
      phone: '08123456789',
      email: 'putu@example.com',
      amount: 175_000,
      notifyUrl: s.listener!.url,
      referenceId: `DEMO-${ctx.now().getTime()}`,
      paymentMethod: 'va',
      paymentChannel: 'bca',
      product: ['Kopi Kintamani 250g', 'Pie Susu (box)'],
      qty: [2, 1],
      price: [62_500, 50_000],
    });
    payment = await call<DirectPaymentData>('POST', DIRECT_PAYMENT_PATH, body);
    if (!/^\d+$/.test(payment.PaymentNo)) throw new StepFailed(`unexpected payment number "${payment.PaymentNo}"`);
    return `VA ${c.bold(payment.PaymentNo)} · total ${rupiah(payment.Total)} · fee ${rupiah(payment.Fee)} · trx ${payment.TransactionId}`;
  });
  await log.run('buyer pays', async () => {
    const http = await client.http();
    const res = await http.send({
      method: 'POST',
      url: `${s.sandbox!.url}/pay/${payment!.TransactionId}/pay`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: '',
      signal: ctx.interrupts(),
    });
    if (res.status !== 303) throw new StepFailed(`the payment page answered HTTP ${res.status}`);
    return `paid on the payment page ${payment!.Url}`;
  });
  return payment!;
}

/** The callback received, verified and its status; then the transaction's final status. */
async function callbackSteps(env: CommandEnv, log: StepLog, s: DemoServices, call: Call, payment: DirectPaymentData, va: string): Promise<void> {
  const c = env.out.c;
  let event: ListenerEvent | undefined;
  await log.run('callback received', async () => {
    const deadline = Date.now() + 10_000;
    while (s.callbacks.length === 0 && Date.now() < deadline) await new Promise<void>((r) => ((s.notify = r), setTimeout(r, 250)));
    event = s.callbacks[0];
    if (!event) throw new StepFailed('no callback within 10 s');
    return `POST ${event.event.path} · X-External-ID ${event.event.headers['x-external-id']} · answered ${event.event.answer}`;
  });
  await log.run('signature verified', async () => {
    const parsed = parseCaptureObject({ headers: event!.event.headers, body: event!.event.body });
    const v = verifyCallback({ fields: parsed.fields, signature: parsed.headerSignature ?? '', va });
    if (!v.valid || event!.event.verdict !== 'valid') throw new StepFailed(`signature did not verify (${event!.event.reason ?? 'mismatch'})`);
    return `X-Signature ${v.expected.slice(0, 16)}… = HMAC-SHA256(canonical JSON, VA)`;
  });
  await log.run('callback status', async () => {
    if (event!.event.status !== 'berhasil') throw new StepFailed(`status ${event!.event.status}, expected berhasil`);
    return `${c.green('berhasil')} (status_code 1) for trx ${event!.event.trx_id}`;
  });
  await log.run('final transaction status', async () => {
    const data = await call<Record<string, unknown>>('POST', CHECK_TRANSACTION_PATH, encodeCheckTransactionBody(payment.TransactionId));
    if (data.Status !== 1) throw new StepFailed(`check transaction says ${String(data.StatusDesc)} (${String(data.Status)})`);
    return `${data.StatusDesc} · paid off ${rupiah(data.PaidOff as number)}`;
  });
}

/** The summary after the steps: a JSON document, or the last line of the text. */
function report(out: Output, steps: Step[], passed: boolean): void {
  const c = out.c;
  const failed = steps.find((s) => !s.ok);
  if (out.json) out.data({ ok: passed, steps, ...(failed ? { failedStep: failed.name } : {}) });
  else if (passed)
    out.out(
      `\n${out.fitLine('', `${c.green(`all ${steps.length} steps passed`)} — next: \`paycli sandbox\` and \`paycli --env local areas province\`, or \`paycli --help\``)}`,
    );
  else out.out(c.red(`\nthe demo failed at "${failed?.name}"`));
}

/**
 * `paycli demo`: the whole merchant flow against an emulator started in-process: regions, a VA
 * payment, the buyer paying on the payment page, the callback received and verified, and the final
 * status. Exit 0 only when every step passed; nothing is left behind.
 */
export const demoCommand: Handler = async (env) => {
  const { out } = env;
  const s: DemoServices = { dir: await mkdtemp(join(tmpdir(), 'paycli-demo-')), callbacks: [], notify: () => undefined };
  const log = new StepLog(out);
  let outcome: Outcome = 'ok';
  try {
    if (!out.json) out.out(out.c.bold(`paycli ${VERSION} demo — the whole flow on the built-in emulator, offline\n`));
    const { call, client, va } = await startEmulator(env, log, s);
    await regionSteps(log, call);
    const payment = await paymentSteps(env, log, s, call, client, va);
    await callbackSteps(env, log, s, call, payment, va);
  } catch (err) {
    if (!(err instanceof DemoStopped)) throw err;
    outcome = err.outcome;
  } finally {
    await s.api?.close().catch(() => undefined);
    await s.listener?.close().catch(() => undefined);
    await s.sandbox?.close().catch(() => undefined);
    await rm(s.dir, { recursive: true, force: true });
  }
  report(out, log.steps, outcome === 'ok');
  return outcome;
};

// ── Definition ──────────────────────────────────────────────────────────────────────────────────

export const commands: Record<'demo', Define> = {
  demo: (program, bind) => bind(examples(topCommand(program, 'demo'), ['paycli demo', 'paycli demo --json']), demoCommand),
};
