import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { CHANNEL_NAMES, channelsOf, contactError, METHOD_NAMES } from '../payment-rules.js';
import { parseRedirectRequest } from './redirect-request.js';
import { actingAccount, type SandboxAccount } from './accounts.js';
import { balanceOf, historyPage, paymentChannels, paymentMethodList, transactionRecord, type Settlement } from './ledger.js';
import { parseHistoryQuery } from './history-query.js';
import { feeFor } from '../fees.js';
import { paymentNumber } from '../payment-numbers.js';
import { normalizePhoneIfMobile } from '../phone.js';
import { hostedPage } from './redirect-routes.js';
import { SessionTaken, type MerchantLedger, type Transaction } from './state.js';
import { envelope, jsonObjectBody } from './views.js';
import type { RedirectSession } from './redirect-session.js';

export type { RedirectSession };

const present = (v: unknown) => v !== undefined && v !== null && v !== '';

export interface MerchantApiDeps {
  state: MerchantLedger;
  accounts: Map<string, SandboxAccount>;
  now: () => Date;
  settlement: Settlement;
  /** Runs what the clock made due (expiry, deferred settlement) before an answer that shows state. */
  due?: () => Promise<unknown>;
  /** Marks a transaction paid (stored, callback queued), as the buyer on a page does. */
  pay: (t: Transaction) => Promise<{ ok: boolean; status?: number; message?: string }>;
}

/**
 * The merchant API beyond direct payment — check transaction, history, balance, the channel lists and
 * redirect payments — and the hosted page of redirect payments. Redirect sessions and the
 * transaction a buyer creates on the page are stored in the emulator's ledger (state.ts) before
 * they are answered, so both survive `kill -9`.
 */
export class MerchantApi {
  /**
   * How many check-transaction calls asked about each trx (in memory, not stored): what
   * `paycli test-handler --strict` reads (GET /_sandbox/checks/ID) to see that a handler confirmed
   * a callback with the gateway before fulfilling.
   */
  readonly checksByTrx = new Map<number, number>();

  constructor(private deps: MerchantApiDeps) {}

  private nowMs(): number {
    return this.deps.now().getTime();
  }

  private merchantName(va: string): string {
    return this.deps.accounts.get(va)?.name ?? va;
  }

  // ---- the operations, for the library and the routes ----

  /** Check transaction `Data` for a transaction of this merchant, or undefined. */
  transaction(va: string, id: number): Record<string, unknown> | undefined {
    const t = this.deps.state.get(id);
    if (!t || t.merchantVa !== va) return undefined;
    return this.record(t);
  }

  /** The check-transaction record of a transaction (the one function the API and the dashboard use). */
  record(t: Transaction): Record<string, unknown> {
    return transactionRecord(t, this.merchantName(t.merchantVa), this.deps.settlement, this.nowMs());
  }

  /** A page of history (`Data` of `POST /api/v2/history`); throws on an invalid query. */
  history(va: string, body: Record<string, unknown> = {}): Record<string, unknown> {
    const q = parseHistoryQuery(body);
    if (!q.ok) throw new Error(`invalid history query: ${JSON.stringify(q.errors)}`);
    return historyPage(this.deps.state, va, this.merchantName(va), q.query, this.deps.settlement, this.nowMs());
  }

  /** The settled balance of a VA's paid payments, before transfers. */
  paidBalance(va: string): number {
    return balanceOf(this.deps.state, va, this.deps.settlement, this.nowMs()).settled;
  }

  /** `Data` of `POST /api/v2/balance`. */
  balance(va: string): Record<string, unknown> {
    const b = balanceOf(this.deps.state, va, this.deps.settlement, this.nowMs());
    // Close API transfers (close-api.ts) move settled balance between accounts.
    return {
      Va: va,
      MerchantBalance: b.settled + this.deps.state.transferNet(va),
      MemberBalance: 0,
      UnsettledBalance: b.unsettled,
      EscrowBalance: b.escrow,
      PaidTransactions: b.paidCount,
    };
  }

  channels(base: string): Record<string, unknown>[] {
    return paymentChannels(base);
  }

  /** The transaction a redirect session became, if the buyer chose a method. */
  sessionTransaction(s: RedirectSession): Transaction | undefined {
    return this.deps.state.sessionTransaction(s.sid, s.merchantVa);
  }

  /** A redirect session by its id. */
  session(sid: string): RedirectSession | undefined {
    return this.deps.state.session(sid);
  }

  /** Creates a redirect session; resolves once it is stored. */
  async createRedirect(
    va: string,
    body: Record<string, unknown>,
  ): Promise<{ ok: true; session: RedirectSession } | { ok: false; errors: Record<string, string[]> }> {
    const r = parseRedirectRequest(body, va, randomUUID().toUpperCase(), this.nowMs());
    if (!r.ok) return r;
    // Not stored, not answered 200: a StoreError becomes the server's 503.
    await this.deps.state.addSession(r.session);
    return r;
  }

  /** The buyer picks method and channel: the session becomes a pending transaction (stored). */
  async choose(
    s: RedirectSession,
    method: string,
    channel: string,
    buyer: Partial<RedirectSession['buyer']> = {},
  ): Promise<{ ok: true; txn: Transaction } | { ok: false; status: number; message: string }> {
    const existing = this.sessionTransaction(s);
    if (existing) return { ok: true, txn: existing };
    if (s.expiresAt <= this.nowMs()) return { ok: false, status: 409, message: 'this payment session has expired' };
    if (!METHOD_NAMES.includes(method) || !channelsOf(method).includes(channel) || (s.method && s.method !== method)) {
      return { ok: false, status: 400, message: `channel "${channel}" is not offered for method "${method}"` };
    }
    // What the buyer types on the page is checked as direct payment checks it, and a mobile number
    // is stored in the CLI's local form (08…).
    const typed = { name: (buyer.name ?? '').trim(), phone: (buyer.phone ?? '').trim(), email: (buyer.email ?? '').trim() };
    for (const k of ['phone', 'email'] as const) {
      if (s.buyer[k]) continue;
      const bad = typed[k] === '' ? undefined : contactError(k, typed[k]);
      if (bad) return { ok: false, status: 400, message: bad };
    }
    if (typed.phone) typed.phone = normalizePhoneIfMobile(typed.phone);
    const merchant = this.merchantName(s.merchantVa);
    const build = (id: number): Transaction => {
      const { paymentNo, qrString } = paymentNumber(method, channel, id, merchant, s.amount);
      return {
        id,
        sid: s.sid,
        merchantVa: s.merchantVa,
        referenceId: s.referenceId,
        via: method,
        channel,
        paymentNo,
        paymentName: CHANNEL_NAMES[channel] ?? channel,
        qrString,
        amount: s.amount,
        fee: feeFor(method, s.amount),
        status: 'pending',
        createdAt: this.nowMs(),
        expiresAt: s.expiresAt,
        notifyUrl: s.notifyUrl,
        buyer: { name: s.buyer.name || typed.name, phone: s.buyer.phone || typed.phone, email: s.buyer.email || typed.email },
        items: s.items.map(({ product, qty, price }) => ({ product, qty, price })),
        comments: s.comments,
      };
    };
    try {
      const txn = await this.deps.state.addTransaction(build, s.sid);
      return { ok: true, txn };
    } catch (err) {
      // Chosen twice at once: the first choice stands.
      if (err instanceof SessionTaken) return { ok: true, txn: this.sessionTransaction(s)! };
      throw err;
    }
  }

  // ---- HTTP ----

  /**
   * Routes under `/api/v2/` after authentication. Returns false when the route is not one of these
   * (the server then answers 404).
   */
  async api(req: IncomingMessage, res: ServerResponse, body: Buffer, path: string, method: string, account: SandboxAccount): Promise<boolean> {
    const route = path.replace(/\/+$/, '');
    const base = `http://${req.headers.host ?? 'sandbox'}`;
    const known = ['/api/v2/transaction', '/api/v2/history', '/api/v2/balance', '/api/v2/payment', '/api/v2/payment-method-list', '/api/v2/payment-channels'];
    if (!known.includes(route)) return false;
    if (route === '/api/v2/payment-channels') {
      if (method !== 'GET' && method !== 'POST') envelope(res, 405, 'method not allowed', null);
      else envelope(res, 200, 'Success', this.channels(base));
      return true;
    }
    if (method !== 'POST') {
      envelope(res, 405, 'method not allowed', null);
      return true;
    }
    const json = jsonObjectBody(body, res, '{}');
    if (!json) return true;
    if (route !== '/api/v2/payment') await this.deps.due?.();
    const invalid = (errors: Record<string, string[]>, message = 'error - invalid request'): true => {
      envelope(res, 400, message, null, { Error: errors });
      return true;
    };
    // `account` names the caller or one of its child accounts (accounts.ts); anything else is refused.
    const caller = account;
    const acting = actingAccount(caller, json.account, this.deps.accounts);
    if (!acting) return invalid({ account: ['Invalid va'] });
    account = acting;
    switch (route) {
      case '/api/v2/transaction': {
        const raw = json.transactionId;
        if (!present(raw)) return invalid({ transactionId: ['transaction id wajib diisi.'] });
        const id = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\s*\d+\s*$/.test(raw) ? Number(raw) : NaN;
        if (!Number.isSafeInteger(id)) return invalid({ transactionId: ['transaction id harus berupa angka.'] });
        this.checksByTrx.set(id, (this.checksByTrx.get(id) ?? 0) + 1);
        const data = this.transaction(account.va, id);
        if (!data) envelope(res, 404, 'transaction not found', null);
        else envelope(res, 200, 'success', data);
        return true;
      }
      case '/api/v2/history': {
        const q = parseHistoryQuery(json);
        if (!q.ok) return invalid(q.errors);
        envelope(res, 200, 'Success', historyPage(this.deps.state, account.va, account.name, q.query, this.deps.settlement, this.nowMs()));
        return true;
      }
      case '/api/v2/balance': {
        if (!present(json.account)) return invalid({ account: ['account wajib diisi.'] });
        envelope(res, 200, 'success', this.balance(account.va));
        return true;
      }
      case '/api/v2/payment-method-list':
        envelope(res, 200, 'Success', paymentMethodList(base));
        return true;
      case '/api/v2/payment': {
        const r = await this.createRedirect(account.va, json);
        if (!r.ok) return invalid(r.errors, 'invalid request');
        // `lang=en` opens the page in English (page-lang.ts); Indonesian is its default.
        envelope(res, 200, 'success', { SessionID: r.session.sid, Url: `${base}/payment/${r.session.sid}${r.session.lang === 'en' ? '?lang=en' : ''}` });
        return true;
      }
    }
    return false;
  }

  /** The hosted page of redirect payments: `/payment/SID` (choose, then pay), no authentication (redirect-routes.ts). */
  page(_req: IncomingMessage, res: ServerResponse, body: Buffer, path: string, method: string): Promise<boolean> {
    return hostedPage(
      {
        session: (sid) => this.session(sid),
        sessionTransaction: (t) => this.sessionTransaction(t),
        choose: (t, m, c, buyer) => this.choose(t, m, c, buyer),
        pay: (t) => this.deps.pay(t),
        merchantName: (va) => this.merchantName(va),
        nowMs: () => this.nowMs(),
      },
      res,
      body,
      path,
      method,
    );
  }
}

/** The 404 of every route the emulator does not implement. */
export function notEmulated(method: string, path: string): string {
  return `not emulated by paycli sandbox: ${method} ${path}`;
}
