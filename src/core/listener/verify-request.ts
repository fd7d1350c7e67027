import { checkCallback } from '../callback/check.js';
import { CallbackVerifier, NO_SUMMARY } from '../callback/verifier.js';
import type { CandidateKey } from '../signing/variants.js';
import { retryKey, type Verdict } from './stored-event.js';
import type { CallbackEventStore, ListenerEvent } from './types.js';

export const PLAIN = 'text/plain; charset=utf-8';
export const OK_TEXT = '{"status":"OK"}';

export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** What the listener makes of one request before storing it. */
export interface Outcome {
  answer: number;
  /** The answer's body: our own words, or a forward target's bytes as they came. */
  text: string | Buffer;
  contentType: string;
  verdict: Verdict;
  variant: string | null;
  reason: string | null;
  /** The fields of the body, once parsed (undefined before, and while they are only a form shape). */
  fields: Record<string, unknown> | undefined;
  /** The fields shown with the event (from the parsed body; all null before it is parsed). */
  summary: ListenerEvent['summary'];
  /** The retry key, for an accepted callback. */
  key: string | null;
  duplicate: boolean;
  /** Accepted as a callback (valid or valid-variant): only these are forwarded. */
  accepted: boolean;
  close: boolean;
}

/**
 * What of a request target (path and query) is compared with the path callbacks are accepted on:
 * the path alone, or, for an accepted path with a query (`/ipaymu?token=…`, a notify URL with a
 * secret), the whole target.
 */
export function comparedPart(acceptPath: string, target: string): string {
  if (acceptPath.includes('?')) return target;
  const q = target.indexOf('?');
  return q < 0 ? target : target.slice(0, q);
}

export interface RequestRules {
  va: string;
  otherKeys: CandidateKey[];
  /** The largest body accepted, in bytes. */
  limit: number;
  /** The one path callbacks are accepted on, or `*`. */
  acceptPath: string;
  store: CallbackEventStore | null;
  /** How many retry keys of this run are kept in memory (RECENT_KEYS); older ones are looked up in the store. */
  recentKeys?: number;
}

/**
 * The retry keys a listener keeps in memory: the most recent ones (a gateway retries within hours,
 * and a callback still being committed is always among them). An older one is found in the store
 * (its acknowledged events carry their key), so memory stays flat however many callbacks a run takes
 * (unbounded, 1 000 000 callbacks kept ~200 MB); without a store, a retry of a callback older than
 * the last RECENT_KEYS is not marked a duplicate.
 */
export const RECENT_KEYS = 65_536;

/**
 * The listener's verdict on a request, synchronously and with nothing stored: method, path and
 * content type, then the signature (the listener's own CallbackVerifier, whose remembered form
 * shapes and buffers live as long as it does), then the duplicate mark. It owns the retry keys of
 * the callbacks acknowledged by this run; one acknowledged by an earlier run is found in the store.
 */
export class RequestVerifier {
  private readonly seen = new Set<string>();
  private readonly callbacks = new CallbackVerifier();

  constructor(private readonly rules: RequestRules) {}

  /** The answer, verdict and duplicate mark of a request (`body` null: over the size limit). */
  verify(method: string, path: string, headers: Record<string, string>, body: string | null): Outcome {
    const { limit, acceptPath, store } = this.rules;
    const o: Outcome = {
      answer: 400,
      text: '',
      contentType: PLAIN,
      verdict: 'malformed',
      variant: null,
      reason: null,
      fields: undefined,
      summary: NO_SUMMARY,
      key: null,
      duplicate: false,
      accepted: false,
      close: false,
    };
    if (body === null) {
      [o.answer, o.text, o.reason, o.close] = [413, `body over ${limit} bytes\n`, `body over ${limit} bytes`, true];
      return o;
    }
    if (method !== 'POST') {
      [o.answer, o.text, o.reason] = [405, 'callbacks must be POSTed\n', `method ${method} not allowed`];
      return o;
    }
    const target = comparedPart(acceptPath, path);
    if (acceptPath !== '*' && target !== acceptPath) {
      [o.answer, o.text, o.reason] = [404, `this listener receives callbacks on ${acceptPath}\n`, `path ${target} is not ${acceptPath}`];
      return o;
    }
    const ct = (headers['content-type'] ?? '').toLowerCase();
    if (!(ct === '' || ct.includes('application/json') || ct.includes('application/x-www-form-urlencoded'))) {
      [o.answer, o.text, o.reason] = [415, 'use application/x-www-form-urlencoded or application/json\n', `unsupported content type ${ct}`];
      return o;
    }
    const signature = headers['x-signature'];
    if (this.verifySignature(o, body, headers)) return o;
    o.key = retryKey(o.summary.trx_id, o.summary.status, signature!);
    o.duplicate = this.seen.has(o.key) || (store?.acknowledged(o.summary.trx_id, o.key) ?? false);
    if (!o.duplicate) this.remember(o.key);
    o.answer = 200;
    o.text = OK_TEXT;
    o.contentType = 'application/json';
    o.accepted = true;
    return o;
  }

  /**
   * Once the answer is final: only an acknowledged callback is seen. After a 503 (or a forward
   * target's non-200, mirrored) the gateway retries, and that retry is not a duplicate.
   */
  settled(o: Outcome): void {
    if (o.key && !o.duplicate && o.answer !== 200) this.seen.delete(o.key);
  }

  /** How many retry keys are in memory. */
  get recentKeys(): number {
    return this.seen.size;
  }

  /** Keeps a key among the recent ones, forgetting the oldest beyond the limit (a Set iterates in insertion order). */
  private remember(key: string): void {
    this.seen.add(key);
    if (this.seen.size > (this.rules.recentKeys ?? RECENT_KEYS)) this.seen.delete(this.seen.values().next().value!);
  }

  /**
   * The check of the body (callbacks.verify: the fast path or the reference one), then, for a
   * mismatch, checkCallback's diagnosis. True when `o` is final (malformed, invalid, …); false for
   * an accepted callback, whose key is still to be made.
   */
  private verifySignature(o: Outcome, body: string, headers: Record<string, string>): boolean {
    try {
      const v = this.callbacks.verify(body, headers, this.rules.va);
      o.fields = v.fields;
      o.summary = v.summary;
      if (v.verdict === 'malformed') {
        o.reason = errorText(v.error);
        o.text = `malformed callback: ${o.reason}\n`;
        return true;
      }
      if (v.verdict === 'unsigned') {
        [o.verdict, o.reason] = ['invalid', 'missing X-Signature header'];
        o.text = 'invalid signature: missing X-Signature header\n';
        return true;
      }
      if (v.verdict === 'valid') {
        o.verdict = 'valid';
        return false;
      }
      // Only a mismatch gets checkCallback's report (variants, other keys, the reason).
      const check = checkCallback(v.fields!, v.signature, this.rules.va, { diagnose: true, otherKeys: this.rules.otherKeys });
      o.verdict = check.verdict;
      o.variant = check.verdict === 'valid-variant' ? (check.diagnosis?.id ?? null) : null;
      o.reason = check.verdict === 'valid' ? null : check.reason;
      if (check.verdict === 'invalid') {
        o.text = `invalid signature: ${check.reason}\n`;
        return true;
      }
    } catch (err) {
      o.verdict = 'malformed';
      o.variant = null;
      o.reason = `cannot check it: ${errorText(err)}`;
      o.text = `malformed callback: ${o.reason}\n`;
      return true;
    }
    return false;
  }
}
