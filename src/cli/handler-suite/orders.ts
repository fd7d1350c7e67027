import { SignatureError, UsageError } from '../../core/errors.js';
import { describeSendError, sendRaw } from '../../core/http/raw-post.js';
import { callbackSink, type Emulator, type EmulatorTxn } from './emulator.js';

/**
 * The merchant's orders as test-handler sees them: real emulator transactions the app knows (given
 * with --trx / --reference-id, or created for the suite and announced to --create-order-url), and
 * the app's order-state probe (--order-url) that says what a callback did.
 */

export interface SuiteOrder {
  trx: number;
  ref: string;
  amount: number;
  txn: EmulatorTxn;
  /** Made for the suite (its emulator callbacks go to a sink), not given with --trx / --reference-id. */
  created: boolean;
}

/** What the app's probe says of an order: unknown (404), or paid or not, with amount and fulfilment count when it gives them. */
export interface OrderState {
  known: boolean;
  paid: boolean;
  amount?: number;
  count?: number;
  /** How it reads in a report: `404`, `paid, amount 50000, fulfilled 1` … */
  text: string;
  /** The same in a few characters: `404`, `not paid`, `paid ×1`. */
  short: string;
}

export interface ProbeFields {
  paid: string;
  amount: string;
  count: string;
}

export class OrderProbe {
  constructor(
    private readonly template: string,
    private readonly fields: ProbeFields,
    private readonly timeoutMs: number,
  ) {}

  url(o: { trx: number; ref: string }): string {
    return this.template.replaceAll('{trx_id}', String(o.trx)).replaceAll('{reference_id}', encodeURIComponent(o.ref));
  }

  async state(o: { trx: number; ref: string }): Promise<OrderState> {
    const url = this.url(o);
    let status: number;
    let body: string;
    try {
      ({ status, body } = await sendRaw(url, { method: 'GET', headers: { Accept: 'application/json' }, timeoutMs: this.timeoutMs }));
    } catch (err) {
      throw new SignatureError(`the order probe ${url} did not answer: ${describeSendError(err)}`);
    }
    if (status === 404) return { known: false, paid: false, text: '404 (unknown order)', short: '404' };
    let v: Record<string, unknown>;
    try {
      v = JSON.parse(body) as Record<string, unknown>;
      if (status !== 200 || !v || typeof v !== 'object') throw new Error();
    } catch {
      throw new SignatureError(`the order probe ${url} answered HTTP ${status}, not 200 with a JSON object (or 404)`, {
        hint: `it should answer like {"${this.fields.paid}": true, "${this.fields.amount}": 50000, "${this.fields.count}": 1}`,
      });
    }
    const paid = v[this.fields.paid] === true || v[this.fields.paid] === 1 || v[this.fields.paid] === 'true';
    const num = (x: unknown) => (typeof x === 'number' || (typeof x === 'string' && x.trim() !== '' && Number.isFinite(Number(x))) ? Number(x) : undefined);
    const amount = num(v[this.fields.amount]);
    const count = num(v[this.fields.count]);
    const text = [paid ? 'paid' : 'not paid', amount !== undefined ? `amount ${amount}` : '', count !== undefined ? `fulfilled ${count}` : '']
      .filter(Boolean)
      .join(', ');
    return { known: true, paid, amount, count, text, short: paid ? `paid${count !== undefined ? ` ×${count}` : ''}` : 'not paid' };
  }
}

/** Hands out orders: the given ones first, then new ones when --create-order-url is set. */
export class OrderSource {
  private given: (number | string)[];
  private sink?: Promise<{ url: string; close: () => Promise<void> }>;
  private seq = 0;

  constructor(
    private readonly emulator: Emulator,
    given: { trx: string[]; refs: string[] },
    private readonly createUrl: string | undefined,
    private readonly amount: number,
    private readonly stamp: string,
  ) {
    this.given = [...given.trx, ...given.refs.map((r) => `ref:${r}`)];
  }

  get canCreate(): boolean {
    return this.createUrl !== undefined;
  }

  /** The next order, or undefined when none is left. A given one must be pending at the emulator. */
  async next(): Promise<SuiteOrder | undefined> {
    const g = this.given.shift();
    if (g !== undefined) {
      const ref = String(g).startsWith('ref:') ? String(g).slice(4) : undefined;
      const t = ref !== undefined ? await this.emulator.byReference(ref) : await this.emulator.txn(g);
      if (!t) throw new UsageError(`the emulator has no transaction ${ref !== undefined ? `with reference ${ref}` : String(g)}`);
      if (t.status !== 'pending') throw new UsageError(`trx ${t.id} is ${t.status}: test-handler needs an order still pending (a new one from your checkout)`);
      return { trx: t.id, ref: t.referenceId, amount: t.amount, txn: t, created: false };
    }
    if (!this.createUrl) return undefined;
    this.sink ??= callbackSink();
    const ref = `PAYCLI-TH-${this.stamp}-${++this.seq}`;
    // The emulator's own callbacks for these orders go to a sink: only the suite's reach the handler.
    const trx = await this.emulator.createPayment(this.amount, ref, (await this.sink).url);
    const body = JSON.stringify({ trx_id: trx, reference_id: ref, amount: this.amount });
    let status: number;
    try {
      ({ status } = await sendRaw(this.createUrl, { headers: { 'Content-Type': 'application/json', Accept: 'application/json' }, body, timeoutMs: 10_000 }));
    } catch (err) {
      throw new SignatureError(`--create-order-url ${this.createUrl} did not answer: ${describeSendError(err)}`);
    }
    if (status < 200 || status > 299)
      throw new SignatureError(`--create-order-url ${this.createUrl} answered HTTP ${status} to ${body}`, {
        hint: 'it should record the order (reference_id, trx_id, amount) as your checkout does and answer 2xx',
      });
    return { trx, ref, amount: this.amount, txn: (await this.emulator.txn(trx))!, created: true };
  }

  async close(): Promise<void> {
    if (this.sink) await (await this.sink).close();
  }
}
