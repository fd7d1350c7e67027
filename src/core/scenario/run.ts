import { buildSignedRequest } from '../api/signed-request.js';
import { parseCallbackBody } from '../callback/parse.js';
import { parseDuration } from '../duration.js';
import { describeSendError, sendRaw } from '../http/raw-post.js';
import { parseStatus, statusInfo, statusLabel, type StatusKey } from '../statuses.js';
import { resolveRefs, type Scenario, type ScenarioStep } from './parse.js';

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

class StepFailed extends Error {}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A JSON value at a dotted path (`Data.Status`, `items.0.name`). */
export function atPath(v: unknown, path: string): unknown {
  let cur = v;
  for (const part of path.split('.')) {
    if (Array.isArray(cur) && /^\d+$/.test(part)) cur = cur[Number(part)];
    else if (isObj(cur)) cur = cur[part];
    else return undefined;
  }
  return cur;
}

/** Loose equality of an expected value from YAML and an actual one (`1` matches `"1"`). */
function same(expected: unknown, actual: unknown): boolean {
  if (isObj(expected) || Array.isArray(expected)) return JSON.stringify(expected) === JSON.stringify(actual);
  return String(expected) === String(actual);
}

/**
 * Runs a checked scenario against an emulator: each step in order, stopping at the first failure
 * (the rest are reported skipped). References resolve to what earlier steps produced.
 */
export async function runScenario(sc: Scenario, o: RunOptions): Promise<StepResult[]> {
  const values = new Map<string, unknown>();
  for (const [name, url] of Object.entries(o.receivers)) values.set(`receivers.${name}.url`, url);
  const base = o.sandboxUrl.replace(/\/+$/, '');
  const results: StepResult[] = [];
  const wait = o.defaultTimeoutMs ?? 10_000;

  async function http(method: string, url: string, body?: string, headers: Record<string, string> = {}, timeoutMs = 30_000) {
    try {
      return await sendRaw(url, { method, headers: { accept: 'application/json', ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers }, ...(body !== undefined ? { body } : {}), timeoutMs, signal: o.signal });
    } catch (err) {
      throw new StepFailed(`${method} ${url}: ${describeSendError(err)}`);
    }
  }
  async function admin(method: string, path: string, body?: Record<string, unknown>): Promise<Record<string, any>> {
    const res = await http(method, base + path, body === undefined ? undefined : JSON.stringify(body));
    let json: Record<string, any>;
    try {
      json = JSON.parse(res.body) as Record<string, any>;
    } catch {
      throw new StepFailed(`${base} did not answer like a paycli emulator (HTTP ${res.status})`);
    }
    if (res.status !== 200) throw new StepFailed(String(json.error ?? `the emulator answered ${res.status}`));
    return json;
  }
  const trxOf = (v: unknown): string => {
    const s = String(v ?? '');
    if (!/^\d+$/.test(s)) throw new StepFailed(`"${s}" is not a transaction id`);
    return s;
  };
  /** Polls `check` until it returns a message-free success or the timeout passes. */
  async function until(timeoutMs: number, check: () => Promise<string | undefined>): Promise<void> {
    const end = Date.now() + timeoutMs;
    let why: string | undefined;
    for (;;) {
      why = await check();
      if (why === undefined) return;
      if (Date.now() >= end || o.signal?.aborted) throw new StepFailed(why);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  const run: Record<string, (arg: any, step: ScenarioStep) => Promise<string>> = {
    async create(a: Record<string, unknown>, step) {
      const body = {
        name: a.name ?? 'Putu Ayu', phone: a.phone ?? '08123456789', email: a.email ?? 'putu@example.com', amount: a.amount ?? 100000,
        notifyUrl: a.notifyUrl, referenceId: a.referenceId ?? `SCN-${step.id ?? step.index}-${o.now().getTime()}`, paymentMethod: a.method, paymentChannel: a.channel,
        ...(a.expired !== undefined ? { expired: a.expired } : {}), ...(a.expiredType !== undefined ? { expiredType: a.expiredType } : {}),
        ...(a.escrow !== undefined ? { escrow: a.escrow } : {}), ...(a.comments !== undefined ? { comments: a.comments } : {}), ...(a.feeDirection !== undefined ? { feeDirection: a.feeDirection } : {}),
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
      if (res.status !== 200 || !isObj(json.Data)) throw new StepFailed(`the API answered ${res.status}: ${json.Message ?? res.body.slice(0, 200)}${json.Error ? ` ${JSON.stringify(json.Error)}` : ''}`);
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
    },
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
      const r = a.advance !== undefined ? await admin('POST', '/_sandbox/clock/advance', { by: String(a.advance) }) : await admin('POST', '/_sandbox/clock/set', { to: String(a.set) });
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
    async expect_callback(a: Record<string, unknown>) {
      const fields = (a.fields ?? {}) as Record<string, unknown>;
      const answered = a.answered === undefined ? 200 : Number(a.answered);
      let found = '';
      await until(a.timeout !== undefined ? parseDuration(String(a.timeout)) : wait, async () => {
        const list = (await admin('GET', `/_sandbox/transactions/${trxOf(a.trx)}/attempts`)).attempts as Record<string, any>[];
        let closest = 'no callback attempt yet';
        for (const at of list) {
          if (a.url !== undefined && at.url !== String(a.url)) {
            closest = `a callback went to ${at.url}, not ${String(a.url)}`;
            continue;
          }
          if (at.body === null) continue;
          const got = parseCallbackBody(at.body, at.contentType ?? undefined).fields as Record<string, unknown>;
          const wrong = Object.entries(fields).filter(([k, v]) => !same(v, got[k]));
          if (wrong.length > 0) {
            closest = `a callback to ${at.url} had ${wrong.map(([k]) => `${k}=${JSON.stringify(got[k])} (expected ${JSON.stringify(fields[k])})`).join(', ')}`;
            continue;
          }
          if (at.httpStatus !== answered) {
            closest = `the callback to ${at.url} was answered ${at.httpStatus ?? at.result}, not ${answered}`;
            continue;
          }
          found = `${at.delivery} attempt ${at.attempt} → ${at.url} answered ${at.httpStatus}`;
          return undefined;
        }
        return closest;
      });
      return found;
    },
    async expect_http(a: Record<string, unknown>) {
      const method = String(a.method ?? 'GET').toUpperCase();
      const url = String(a.url);
      const body = a.body === undefined ? undefined : typeof a.body === 'string' ? a.body : JSON.stringify(a.body);
      const headers = isObj(a.headers) ? Object.fromEntries(Object.entries(a.headers).map(([k, v]) => [k, String(v)])) : {};
      const wantStatus = a.status === undefined ? 200 : Number(a.status);
      const json = (a.json ?? {}) as Record<string, unknown>;
      let last = '';
      await until(a.timeout !== undefined ? parseDuration(String(a.timeout)) : wait, async () => {
        const res = await http(method, url, body, headers);
        last = `${method} ${url} → ${res.status}`;
        if (res.status !== wantStatus) return `${last}, expected ${wantStatus}: ${res.body.slice(0, 200)}`;
        if (Object.keys(json).length === 0) return undefined;
        let parsed: unknown;
        try {
          parsed = JSON.parse(res.body);
        } catch {
          return `${last}: the answer is not JSON`;
        }
        const wrong = Object.entries(json).filter(([p, v]) => !same(v, atPath(parsed, p)));
        return wrong.length === 0 ? undefined : `${last}: ${wrong.map(([p, v]) => `${p} is ${JSON.stringify(atPath(parsed, p))}, expected ${JSON.stringify(v)}`).join('; ')}`;
      });
      return last;
    },
  };
  for (const action of ['refund', 'settle', 'release', 'fail', 'error']) {
    run[action] = async (trx) => {
      const r = await admin('POST', `/_sandbox/transactions/${trxOf(trx)}/${action}`);
      return String(r.message);
    };
  }

  async function buyer(trx: string, action: 'pay' | 'cancel'): Promise<string> {
    // The buyer's own button on the payment page (a same-site form POST).
    const res = await http('POST', `${base}/pay/${trx}/${action}`, '', { 'content-type': 'application/x-www-form-urlencoded', origin: base, 'sec-fetch-site': 'same-origin' });
    if (res.status !== 303) throw new StepFailed(`the payment page answered ${res.status}: ${res.body.trim().slice(0, 200)}`);
    return `buyer ${action === 'pay' ? 'paid' : 'cancelled'} trx ${trx}`;
  }

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

const xml = (s: string) => s.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!).replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '');

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
