import { parseCallbackBody } from '../callback/parse.js';
import { parseDuration } from '../duration.js';
import { describeSendError, sendRaw } from '../http/raw-post.js';

/** A step that did not hold: its message is the report's. */
export class StepFailed extends Error {}

export const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

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

/** What the steps reach: HTTP, the emulator's admin API, polling, and the default wait. */
export interface StepKit {
  http(method: string, url: string, body?: string, headers?: Record<string, string>, timeoutMs?: number): ReturnType<typeof sendRaw>;
  admin(method: string, path: string, body?: Record<string, unknown>): Promise<Record<string, any>>;
  trxOf(v: unknown): string;
  until(timeoutMs: number, check: () => Promise<string | undefined>): Promise<void>;
  wait: number;
}

/** The helpers of one run against the emulator at `base`. */
export function stepKit(o: { signal?: AbortSignal; defaultTimeoutMs?: number }, base: string): StepKit {
  async function http(method: string, url: string, body?: string, headers: Record<string, string> = {}, timeoutMs = 30_000) {
    try {
      return await sendRaw(url, {
        method,
        headers: { accept: 'application/json', ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
        ...(body !== undefined ? { body } : {}),
        timeoutMs,
        signal: o.signal,
      });
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
  return { http, admin, trxOf, until, wait: o.defaultTimeoutMs ?? 10_000 };
}

/** `expect_callback`: an attempt of the transaction's callback with these fields, answered so. */
export async function expectCallback(k: StepKit, a: Record<string, unknown>): Promise<string> {
  const { admin, trxOf, until, wait } = k;
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
}

/** `expect_http`: a request answered with this status and these JSON values (polled until the timeout). */
export async function expectHttp(k: StepKit, a: Record<string, unknown>): Promise<string> {
  const { http, until, wait } = k;
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
    return wrong.length === 0
      ? undefined
      : `${last}: ${wrong.map(([p, v]) => `${p} is ${JSON.stringify(atPath(parsed, p))}, expected ${JSON.stringify(v)}`).join('; ')}`;
  });
  return last;
}
