import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DIRECT_PAYMENT_PATH, encodePaymentBody, type DirectPaymentData } from '../../core/api/payments.js';
import { buildCallbackFields, type CallbackFacts } from '../../core/callback/build.js';
import { NetworkError, UsageError } from '../../core/errors.js';
import { sendRaw } from '../../core/http/raw-post.js';
import type { CommandEnv } from '../command-env.js';

/**
 * test-handler's side of the emulator (`paycli sandbox`): real transactions read and paid through
 * its admin API (/_sandbox/), payments created through the signed API, and the count of
 * check-transaction calls it recorded per trx (what --strict judges).
 */

/** The emulator's admin view of a transaction (src/core/sandbox/views.ts, transactionView). */
export interface EmulatorTxn {
  id: number;
  sid: string;
  referenceId: string;
  status: string;
  via: string;
  channel: string;
  paymentNo: string;
  amount: number;
  fee: number;
  buyer: { name: string; phone: string; email: string };
  createdAt: string;
  expiresAt: string;
  paidAt: string | null;
  callbacks: { state: string }[];
}

export class Emulator {
  private constructor(
    private readonly env: CommandEnv,
    readonly origin: string,
  ) {}

  /** The emulator the profile points at (`--env local`); a usage error for a real gateway. */
  static async of(env: CommandEnv, why: string): Promise<Emulator> {
    const cfg = await env.session.config();
    if (cfg.env.value !== 'local') throw new UsageError(`${why} needs the emulator: run \`paycli sandbox\` and add --env local`);
    return new Emulator(env, new URL(cfg.baseUrl.value).origin);
  }

  private async admin<T>(method: 'GET' | 'POST', path: string): Promise<{ status: number; body: T }> {
    try {
      const res = await sendRaw(`${this.origin}/_sandbox/${path}`, { method, headers: { Accept: 'application/json' }, timeoutMs: 10_000 });
      return { status: res.status, body: JSON.parse(res.body || '{}') as T };
    } catch (err) {
      throw new NetworkError(`cannot reach the emulator's admin API at ${this.origin}: ${(err as Error).message}`);
    }
  }

  /** A transaction by id (or payment number); undefined when the emulator has none. */
  async txn(id: number | string): Promise<EmulatorTxn | undefined> {
    const r = await this.admin<{ transaction?: EmulatorTxn }>('GET', `transactions/${encodeURIComponent(String(id))}`);
    return r.status === 200 ? r.body.transaction : undefined;
  }

  /** The newest transaction with a reference id. */
  async byReference(ref: string): Promise<EmulatorTxn | undefined> {
    const r = await this.admin<{ transactions: EmulatorTxn[] }>('GET', 'transactions');
    return r.body.transactions.filter((t) => t.referenceId === ref).sort((a, b) => b.id - a.id)[0];
  }

  /** Marks a transaction paid (as the buyer paying); the emulator then sends its own callback to the payment's notifyUrl. */
  async pay(id: number): Promise<EmulatorTxn> {
    const r = await this.admin<{ ok: boolean; error?: string; transaction: EmulatorTxn }>('POST', `transactions/${id}/pay`);
    if (!r.body.ok) throw new UsageError(`the emulator would not pay trx ${id}: ${r.body.error}`);
    return r.body.transaction;
  }

  /** How many check-transaction calls (v2/transaction) asked about a trx so far. */
  async checks(id: number): Promise<number> {
    return (await this.admin<{ checks: number }>('GET', `checks/${id}`)).body.checks;
  }

  /** Waits until the emulator's own callbacks of a trx are no longer pending (delivered or given up). */
  async settled(id: number, signal: AbortSignal): Promise<void> {
    for (let i = 0; i < 600 && !signal.aborted; i++) {
      const t = await this.txn(id);
      if (!t || t.callbacks.every((c) => c.state !== 'pending')) return;
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** A VA payment created through the signed API, as the merchant's checkout would. */
  async createPayment(amount: number, referenceId: string, notifyUrl: string): Promise<number> {
    const body = encodePaymentBody({
      name: 'Nyoman Ö',
      phone: '08123456789',
      email: 'nyoman@example.com',
      amount,
      notifyUrl,
      referenceId,
      paymentMethod: 'va',
      paymentChannel: 'bni',
      product: ['paycli test-handler order'],
      qty: [1],
      price: [amount],
    });
    const req = await this.env.session.signed('POST', DIRECT_PAYMENT_PATH, body);
    return Number((await this.env.session.send<DirectPaymentData>(req)).Data.TransactionId);
  }
}

/** The callback fields the gateway would send for an emulator transaction, delivered to `url`. */
export function callbackFromTxn(t: EmulatorTxn, status: CallbackFacts['status'], url: string, now: Date): Record<string, string> {
  return buildCallbackFields({
    trxId: t.id,
    sid: t.sid,
    referenceId: t.referenceId,
    status,
    amount: t.amount,
    fee: t.fee,
    via: t.via,
    channel: t.channel,
    paymentNo: t.paymentNo,
    createdAt: new Date(t.createdAt),
    expiredAt: new Date(t.expiresAt),
    paidAt: status === 'berhasil' ? (t.paidAt ? new Date(t.paidAt) : now) : undefined,
    buyerName: t.buyer.name,
    buyerEmail: t.buyer.email,
    buyerPhone: t.buyer.phone,
    url,
  });
}

/** A loopback server that takes the emulator's own callbacks for orders test-handler created (answers 200, keeps nothing). */
export async function callbackSink(): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200).end('ok'));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/sink`,
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}
