import { Agent } from 'node:http';
import { externalId, signCallbackRequest } from '../callback/build.js';
import { describeSendError, sendRaw } from '../http/raw-post.js';
import type { StatusKey } from '../statuses.js';
import { callbackFieldsOf } from './callback-fields.js';
import type { OutboxOptions } from './outbox-types.js';
import type { AttemptDetail, Delivery, SandboxState, Transaction } from './state.js';

export { callbackFieldsOf } from './callback-fields.js';
export type { CallbackAttemptEvent, DeliveryFaults, OutboxOptions } from './outbox-types.js';

/** How much of a handler's answer an attempt record keeps. */
export const ANSWER_KEEP_BYTES = 1024;

function firstBytes(text: string, max: number): { answer: string; truncated: boolean } {
  const buf = Buffer.from(text, 'utf8');
  if (buf.length <= max) return { answer: text, truncated: false };
  // Cut on a character boundary: a partial UTF-8 sequence at the end is dropped.
  return {
    answer: buf
      .subarray(0, max)
      .toString('utf8')
      .replace(/\uFFFD$/, ''),
    truncated: true,
  };
}

/**
 * Delivers callbacks from the durable outbox: signs each attempt anew (fresh X-External-ID and
 * X-Timestamp), retries anything but HTTP 200 per the schedule, and stores every attempt.
 */
export class Outbox {
  private timers = new Map<string, NodeJS.Timeout>();
  private inflight = new Set<Promise<void>>();
  private closed = false;
  /** Deliveries being attempted right now (one attempt of a delivery at a time). */
  private sending = new Set<string>();
  private seq = 0;
  /** Callbacks reuse connections to the merchant's handler instead of one TCP connection per attempt. */
  private agent = new Agent({ keepAlive: true, keepAliveMsecs: 1000, maxSockets: 32, maxFreeSockets: 8, timeout: 60_000 });

  constructor(
    private state: SandboxState,
    private opts: OutboxOptions,
  ) {}

  /** Schedules every unfinished delivery (after a restart). */
  resume(): void {
    for (const d of this.state.pendingDeliveries()) this.schedule(d);
  }

  /** The outbox entry of a transition's callback, to store with the transition itself (times on the emulator's clock). */
  entry(txn: Transaction, status: StatusKey, format: 'form' | 'json'): Omit<Delivery, 'id'> {
    const now = this.opts.now().getTime();
    return { trxId: txn.id, status, url: txn.notifyUrl, format, attempts: 0, state: 'pending', nextAt: now, createdAt: now };
  }

  /** Re-times every waiting retry after the clock moved: one now due is attempted at once. */
  reschedule(): void {
    for (const [id, timer] of [...this.timers]) {
      const d = this.state.delivery(id);
      if (!d) continue;
      clearTimeout(timer);
      this.timers.delete(id);
      this.schedule(d);
    }
  }

  /** Starts delivering a stored entry. */
  start(d: Delivery): void {
    this.schedule(d);
  }

  /** The next attempt at `d`, in `ms`. */
  private retryLater(d: Delivery, ms: number): void {
    if (this.closed) return;
    const timer = setTimeout(() => {
      this.timers.delete(d.id);
      const p = this.attempt(d).finally(() => this.inflight.delete(p));
      this.inflight.add(p);
    }, ms);
    timer.unref?.();
    this.timers.set(d.id, timer);
  }

  /** The next attempt at `d`, when it is due (`nextAt`). */
  private schedule(d: Delivery): void {
    if (d.nextAt !== null) this.retryLater(d, Math.max(0, d.nextAt - this.opts.now().getTime()));
  }

  private async post(txn: Transaction, d: Delivery): Promise<{ ok: boolean; result: string; httpStatus?: number; ms?: number; detail: AttemptDetail }> {
    const fields = callbackFieldsOf(txn, d.status);
    const now = this.opts.now();
    const signed = signCallbackRequest(fields, txn.merchantVa, d.format, now, externalId(now, ++this.seq));
    // What goes on the wire, in its order: these, then what sendRaw and the keep-alive agent add.
    let host = '';
    try {
      host = new URL(d.url).host;
    } catch {
      /* an invalid URL fails below */
    }
    const sent = { ...signed.headers, 'Content-Length': String(Buffer.byteLength(signed.body)), Host: host, Connection: 'keep-alive' };
    const at = now.getTime();
    try {
      const res = await sendRaw(d.url, { headers: signed.headers, body: signed.body, timeoutMs: this.opts.attemptTimeoutMs, agent: this.agent });
      const kept = firstBytes(res.body, ANSWER_KEEP_BYTES);
      const detail: AttemptDetail = {
        at,
        url: d.url,
        headers: sent,
        body: signed.body,
        httpStatus: res.status,
        ms: res.ms,
        answer: kept.answer,
        ...(kept.truncated || res.truncated ? { truncated: true } : {}),
      };
      return { ok: res.status === 200, result: `HTTP ${res.status}`, httpStatus: res.status, ms: res.ms, detail };
    } catch (err) {
      const timedOut = (err as NodeJS.ErrnoException).code === 'ETIMEDOUT';
      const detail: AttemptDetail = { at, url: d.url, headers: sent, body: signed.body, httpStatus: null, ms: null, answer: '' };
      return { ok: false, result: timedOut ? `timeout after ${this.opts.attemptTimeoutMs} ms` : describeSendError(err), detail };
    }
  }

  /**
   * Sends a pending delivery now instead of at its scheduled retry. False when it is being sent at
   * this moment (that attempt counts) or is not pending.
   */
  sendNow(d: Delivery): boolean {
    if (this.closed || d.state !== 'pending' || this.sending.has(d.id)) return false;
    const timer = this.timers.get(d.id);
    if (timer) clearTimeout(timer);
    this.timers.delete(d.id);
    const p = this.attempt(d).finally(() => this.inflight.delete(p));
    this.inflight.add(p);
    return true;
  }

  private async attempt(d: Delivery): Promise<void> {
    if (this.closed || this.sending.has(d.id)) return;
    this.sending.add(d.id);
    try {
      await this.attemptOnce(d);
    } finally {
      this.sending.delete(d.id);
    }
  }

  private async attemptOnce(queued: Delivery): Promise<void> {
    // As stored now: a reset may have removed it, another attempt may have finished it.
    const d = this.state.delivery(queued.id);
    if (d?.state !== 'pending') return;
    const txn = this.state.get(d.trxId);
    if (!txn) return;
    if (this.opts.faults.delayMs) await new Promise((r) => setTimeout(r, this.opts.faults.delayMs));
    if (this.closed) return;
    const attempt = d.attempts + 1;
    const copies = this.opts.faults.concurrentDuplicates ?? 0;
    // --faults concurrent-duplicate=N: the same callback N more times at the same moment, as parallel retries arrive.
    const extra = copies > 0 ? Array.from({ length: copies }, () => this.post(txn, d)) : [];
    const r = await this.post(txn, d);
    for (const [i, dup] of (await Promise.all(extra)).entries()) {
      await this.state.recordAttempt(d.id, d.attempts, d.state, d.nextAt, dup.result, { ...dup.detail, duplicate: true }).catch(() => undefined);
      this.opts.onEvent({
        type: 'callback',
        deliveryId: d.id,
        trxId: d.trxId,
        status: d.status,
        attempt,
        url: d.url,
        ok: dup.ok,
        result: `${dup.result} (concurrent copy ${i + 1} of ${copies})`,
        httpStatus: dup.httpStatus,
        ms: dup.ms,
        nextInMs: null,
        final: null,
        duplicate: true,
      });
    }
    const delay = r.ok ? undefined : this.opts.schedule[attempt - 1];
    const state = r.ok ? 'delivered' : delay === undefined ? 'failed' : 'pending';
    const nextAt = state === 'pending' ? this.opts.now().getTime() + delay! : null;
    // What the log says of this attempt, whether or not the ledger takes it.
    const attemptEvent = {
      type: 'callback',
      deliveryId: d.id,
      trxId: d.trxId,
      status: d.status,
      attempt,
      url: d.url,
      ok: r.ok,
      result: r.result,
      httpStatus: r.httpStatus,
      ms: r.ms,
    } as const;
    let stored: Delivery;
    try {
      stored = await this.state.recordAttempt(d.id, attempt, state, nextAt, r.result, r.detail);
    } catch (err) {
      // The ledger cannot take the attempt (a full disk): the entry stays pending as stored, and is
      // tried again; a receiver may see this callback twice, never zero times.
      this.opts.onEvent({
        ...attemptEvent,
        result: `${r.result}; not recorded: ${(err as Error).message}`,
        nextInMs: delay ?? this.opts.schedule.at(-1) ?? 1000,
        final: null,
      });
      this.retryLater(d, delay ?? this.opts.schedule.at(-1) ?? 1000);
      return;
    }
    this.opts.onEvent({ ...attemptEvent, nextInMs: state === 'pending' ? delay! : null, final: state === 'pending' ? null : state });
    if (state === 'pending') this.schedule(stored);
    else if (r.ok && this.opts.faults.duplicate) {
      const dup = await this.post(txn, d);
      // Stored like any attempt (the dashboard shows it); a ledger that cannot take it loses only this record.
      await this.state.recordAttempt(d.id, attempt + 1, 'delivered', null, dup.result, { ...dup.detail, duplicate: true }).catch(() => undefined);
      this.opts.onEvent({
        type: 'callback',
        deliveryId: d.id,
        trxId: d.trxId,
        status: d.status,
        attempt: attempt + 1,
        url: d.url,
        ok: dup.ok,
        result: dup.result,
        httpStatus: dup.httpStatus,
        ms: dup.ms,
        nextInMs: null,
        final: 'delivered',
        duplicate: true,
      });
    }
  }

  /** Resolves when no delivery is due or in flight (tests, demo). */
  async idle(timeoutMs = 10_000): Promise<boolean> {
    const until = Date.now() + timeoutMs;
    while (Date.now() < until) {
      const pending = this.state.hasPendingDeliveries();
      if (!pending && this.inflight.size === 0) return true;
      await new Promise((r) => setTimeout(r, 10));
    }
    return false;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    await Promise.allSettled([...this.inflight]);
    this.agent.destroy();
  }
}
