import { buildSignedRequest } from '../api/signed-request.js';
import { parseStatus, statusInfo, statusLabel, type StatusKey } from '../statuses.js';
import { resolveRefs, type Scenario, type ScenarioStep } from './parse.js';
import { expectCallback, expectHttp, isObj, StepFailed, stepKit, type StepKit } from './steps.js';

export { atPath } from './steps.js';

/** The outcome of one step (one JUnit test case). */
export interface StepResult {
  step: ScenarioStep;
  ok: boolean;
  /** Not run: an earlier step failed. */
  skipped?: boolean;
  ms: number;
  message: string;
}

export interface RunOptions {
  /** The emulator's origin (`http://127.0.0.1:4010`). */
  sandboxUrl: string;
  credentials: { va: string; apiKey: string };
  /** The stand-in receivers' URLs, by name (started by the caller). */
  receivers: Record<string, string>;
  now: () => Date;
  /** How long expectations wait by default (callbacks arrive asynchronously). */
  defaultTimeoutMs?: number;
  onStep?: (r: StepResult) => void;
  signal?: AbortSignal;
}

/**
 * Runs a checked scenario against an emulator: each step in order, stopping at the first failure
 * (the rest are reported skipped). References resolve to what earlier steps produced.
 */
export async function runScenario(sc: Scenario, o: RunOptions): Promise<StepResult[]> {
  const values = new Map<string, unknown>();
  for (const [name, url] of Object.entries(o.receivers)) values.set(`receivers.${name}.url`, url);
  const base = o.sandboxUrl.replace(/\/+$/, '');
  const kit = stepKit(o, base);
  const run = stepActions(o, base, kit, values);
  const results: StepResult[] = [];
  let failed = false;
  for (const step of sc.steps) {
    if (failed || o.signal?.aborted) {
      const r = { step, ok: false, skipped: true, ms: 0, message: 'not run: an earlier step failed' };
      results.push(r);
      o.onStep?.(r);
      continue;
    }
    const started = Date.now();
    let r: StepResult;
    try {
      const message = await run[step.action]!(resolveRefs(step.arg, values), step);
      r = { step, ok: true, ms: Date.now() - started, message };
    } catch (err) {
      if (!(err instanceof StepFailed)) throw err;
      failed = true;
      r = { step, ok: false, ms: Date.now() - started, message: err.message };
    }
    results.push(r);
    o.onStep?.(r);
  }
  return results;
}

/** `create`: a direct payment through the API, signed like a merchant's; its ids are kept under the step's id. */
async function createStep(
  o: RunOptions,
  base: string,
  kit: StepKit,
  values: Map<string, unknown>,
  a: Record<string, unknown>,
  step: ScenarioStep,
): Promise<string> {
  const { http } = kit;
  const body = {
    name: a.name ?? 'Putu Ayu',
    phone: a.phone ?? '08123456789',
    email: a.email ?? 'putu@example.com',
    amount: a.amount ?? 100000,
    notifyUrl: a.notifyUrl,
    referenceId: a.referenceId ?? `SCN-${step.id ?? step.index}-${o.now().getTime()}`,
    paymentMethod: a.method,
    paymentChannel: a.channel,
    ...(a.expired !== undefined ? { expired: a.expired } : {}),
    ...(a.expiredType !== undefined ? { expiredType: a.expiredType } : {}),
    ...(a.escrow !== undefined ? { escrow: a.escrow } : {}),
    ...(a.comments !== undefined ? { comments: a.comments } : {}),
    ...(a.feeDirection !== undefined ? { feeDirection: a.feeDirection } : {}),
    ...(a.method === 'cod' ? codParcel(a) : {}),
  };
  const text = JSON.stringify(body);
  const req = buildSignedRequest({ baseUrl: `${base}/api`, path: 'v2/payment/direct', method: 'POST', body: text, credentials: o.credentials, now: o.now() });
  const res = await http('POST', req.url, text, req.headers);
  let json: Record<string, any> = {};
  try {
    json = JSON.parse(res.body) as Record<string, any>;
  } catch {
    /* reported below */
  }
  if (res.status !== 200 || !isObj(json.Data))
    throw new StepFailed(`the API answered ${res.status}: ${json.Message ?? res.body.slice(0, 200)}${json.Error ? ` ${JSON.stringify(json.Error)}` : ''}`);
  const d = json.Data as Record<string, unknown>;
  if (step.id) {
    values.set(`${step.id}.trx`, d.TransactionId);
    values.set(`${step.id}.paymentNo`, d.PaymentNo);
    values.set(`${step.id}.referenceId`, d.ReferenceId);
    values.set(`${step.id}.sessionId`, d.SessionId);
    values.set(`${step.id}.url`, d.Url);
    values.set(`${step.id}.total`, d.Total);
  }
  return `trx ${d.TransactionId} ${String(a.method)}/${String(a.channel)}`;
}

/** Every step's action, by name; `values` takes what a step produces for later references. */
function stepActions(
  o: RunOptions,
  base: string,
  kit: StepKit,
  values: Map<string, unknown>,
): Record<string, (arg: any, step: ScenarioStep) => Promise<string>> {
  const { http, admin, trxOf } = kit;
  const run: Record<string, (arg: any, step: ScenarioStep) => Promise<string>> = {
    create: (a: Record<string, unknown>, step) => createStep(o, base, kit, values, a, step),
    async pay(trx) {
      return buyer(trxOf(trx), 'pay');
    },
    async cancel(trx) {
      return buyer(trxOf(trx), 'cancel');
    },
    async expire(trx) {
      // The buyer lets it expire: the clock moves just past its expiry, and the emulator expires it.
      const t = (await admin('GET', `/_sandbox/transactions/${trxOf(trx)}`)).transaction as Record<string, unknown>;
      const clock = (await admin('GET', '/_sandbox/clock')).clock as { epochMs: number };
      const at = Date.parse(String(t.expiresAt)) + 1000;
      if (at > clock.epochMs) await admin('POST', '/_sandbox/clock/advance', { ms: at - clock.epochMs });
      return `clock moved past ${String(t.expiresAt)}`;
    },
    async clock(a: Record<string, unknown>) {
      const r =
        a.advance !== undefined
          ? await admin('POST', '/_sandbox/clock/advance', { by: String(a.advance) })
          : await admin('POST', '/_sandbox/clock/set', { to: String(a.set) });
      return `clock ${String((r.clock as Record<string, unknown>).now)}`;
    },
    async resend(a: Record<string, unknown>) {
      const r = await admin('POST', `/_sandbox/transactions/${trxOf(a.trx)}/resend`, a.to !== undefined ? { to: String(a.to) } : {});
      return String(r.message);
    },
    async expect_status(a: Record<string, unknown>) {
      const want = parseStatus(String(a.status));
      if (!want) throw new StepFailed(`unknown status "${String(a.status)}"`);
      const t = (await admin('GET', `/_sandbox/transactions/${trxOf(a.trx)}`)).transaction as Record<string, unknown>;
      const got = statusInfo(t.status as StatusKey);
      if (got.key !== want.key) throw new StepFailed(`trx ${String(a.trx)} is ${statusLabel(got)} (${got.code}), expected ${statusLabel(want)} (${want.code})`);
      return `trx ${String(a.trx)} is ${statusLabel(got)}`;
    },
    async expect_parcel(a: Record<string, unknown>) {
      const t = (await admin('GET', `/_sandbox/transactions/${trxOf(a.trx)}`)).transaction as {
        parcel?: { state: string; steps: { stage: string; at: string }[] };
      };
      if (!t.parcel) throw new StepFailed(`trx ${String(a.trx)} is not a COD payment: it has no parcel`);
      if (t.parcel.state !== String(a.state)) throw new StepFailed(`the parcel of trx ${String(a.trx)} is ${t.parcel.state}, expected ${String(a.state)}`);
      return `parcel of trx ${String(a.trx)} ${t.parcel.state}${t.parcel.steps.length > 0 ? ` (${t.parcel.steps.map((s) => `${s.stage.replace('_', ' ')} ${s.at}`).join(', ')})` : ''}`;
    },
    expect_callback: (a: Record<string, unknown>) => expectCallback(kit, a),
    expect_http: (a: Record<string, unknown>) => expectHttp(kit, a),
  };
  for (const action of ['refund', 'settle', 'release', 'fail', 'error']) {
    run[action] = async (trx) => {
      const r = await admin('POST', `/_sandbox/transactions/${trxOf(trx)}/${action}`);
      return String(r.message);
    };
  }

  async function buyer(trx: string, action: 'pay' | 'cancel'): Promise<string> {
    // The buyer's own button on the payment page (a same-site form POST).
    const res = await http('POST', `${base}/pay/${trx}/${action}`, '', {
      'content-type': 'application/x-www-form-urlencoded',
      origin: base,
      'sec-fetch-site': 'same-origin',
    });
    if (res.status !== 303) throw new StepFailed(`the payment page answered ${res.status}: ${res.body.trim().slice(0, 200)}`);
    return `buyer ${action === 'pay' ? 'paid' : 'cancelled'} trx ${trx}`;
  }
  return run;
}

/**
 * A COD payment's parcel fields (the direct payment requires them): one item of the amount, a
 * `weight` kg parcel of 20 × 30 × 10 cm, delivered and picked up within Grogol (Jakarta Barat)
 * unless `deliveryArea`/`pickupArea` say otherwise, by RPX REG unless `shipping`/`shippingService` do.
 */
function codParcel(a: Record<string, unknown>): Record<string, unknown> {
  const area = '3173021001';
  return {
    product: ['Parcel'],
    qty: [1],
    price: [a.amount ?? 100000],
    weight: [a.weight ?? 1],
    width: [20],
    length: [30],
    height: [10],
    deliveryArea: String(a.deliveryArea ?? area),
    deliveryAddress: 'Jl. Kemuning 1',
    pickupArea: String(a.pickupArea ?? area),
    pickupAddress: 'Jl. Daan Mogot 5',
    shipping: a.shipping ?? 'RPX',
    shippingService: a.shippingService ?? 'REG',
  };
}

const xml = (s: string) =>
  s
    .replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!)
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '');

/** A JUnit XML report: one test case per step. */
export function junitReport(name: string, results: StepResult[]): string {
  const failures = results.filter((r) => !r.ok && !r.skipped).length;
  const skipped = results.filter((r) => r.skipped).length;
  const time = (ms: number) => (ms / 1000).toFixed(3);
  const cases = results
    .map((r) => {
      const head = `    <testcase classname="${xml(name)}" name="${xml(`${String(r.step.index + 1).padStart(2, '0')} ${r.step.name}`)}" time="${time(r.ms)}"`;
      if (r.skipped) return `${head}>\n      <skipped message="${xml(r.message)}"/>\n    </testcase>`;
      if (!r.ok) return `${head}>\n      <failure message="${xml(r.message)}">${xml(r.message)}</failure>\n    </testcase>`;
      return `${head}>\n      <system-out>${xml(r.message)}</system-out>\n    </testcase>`;
    })
    .join('\n');
  const total = results.reduce((s, r) => s + r.ms, 0);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites tests="${results.length}" failures="${failures}" skipped="${skipped}" time="${time(total)}">\n  <testsuite name="${xml(name)}" tests="${results.length}" failures="${failures}" skipped="${skipped}" time="${time(total)}">\n${cases}\n  </testsuite>\n</testsuites>\n`;
}
