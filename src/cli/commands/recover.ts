import { isPaidStatus, type TransactionRecord } from '../../core/api/merchant.js';
import { reconcile, type Finding } from '../../core/api/reconcile.js';
import { callbackFromRecord, gatewayOutcome, recoverWindow } from '../../core/api/recover.js';
import { externalId, signCallbackRequest } from '../../core/callback/build.js';
import { NetworkError, PaycliError, SignatureError, UsageError } from '../../core/errors.js';
import { describeSendError, sendRaw } from '../../core/http/raw-post.js';
import { parseDuration } from '../../core/duration.js';
import { formatJakarta } from '../../core/time.js';
import type { CommandEnv, Handler } from '../command-env.js';
import { withSpinner } from '../spinner.js';
import { eventStore } from '../store-access.js';
import { gatewayRecordsFor, historyAll, lookupTransaction, readOrdersFile } from '../gateway-records.js';
import { Option, examples, type Define } from '../command-kit.js';
import { topCommand } from './heads.js';

interface RecoverFlags {
  orders?: string;
  since?: string;
  deliverTo?: string;
  format?: 'form' | 'json';
  store?: string;
  deliveryTimeout?: string;
}

/** A payment whose callback the merchant missed. */
interface Missed {
  trxId: number;
  referenceId: string | null;
  merchant: string;
  gateway: 'berhasil' | 'expired';
  record: TransactionRecord;
  delivery?: { ok: boolean; status?: number; body?: string; ms?: number; error?: string; signature?: string };
}

/** What recover cannot fix by delivering a callback: reported, and exit 6 (see `paycli reconcile`). */
const UNFIXABLE = new Set<Finding['kind']>(['paid-locally-only', 'amount-mismatch', 'unknown-at-gateway', 'several-transactions']);

const missedOf = (r: TransactionRecord, merchant: string): Missed | undefined => {
  const outcome = gatewayOutcome(r);
  if (outcome !== 'berhasil' && outcome !== 'expired') return undefined;
  return { trxId: r.TransactionId, referenceId: r.ReferenceId ? String(r.ReferenceId) : null, merchant, gateway: outcome, record: r };
};

/** `--orders`: the reconciliation's orders unpaid here and paid (or expired) at the gateway, each once. */
async function fromOrders(env: CommandEnv<RecoverFlags>, file: string, missed: Missed[], notes: Finding[]): Promise<number> {
  const orders = await readOrdersFile(env, file);
  const records = await withSpinner(env, `checking ${orders.length} orders with the gateway`, () => gatewayRecordsFor(env, orders));
  const result = reconcile(orders, records);
  for (const f of result.findings) {
    const row = orders.find((o) => f.lines[0] === o.line);
    // One delivery per transaction, however many rows name it.
    const m =
      (f.kind === 'paid-at-gateway' || f.kind === 'closed-at-gateway') && f.record && row?.state === 'unpaid' && !missed.some((x) => x.trxId === f.trxId)
        ? missedOf(f.record, f.local)
        : undefined;
    if (m) missed.push(m);
    else if (!(f.kind === 'paid-at-gateway' && missed.some((x) => x.trxId === f.trxId))) notes.push(f);
  }
  return result.orders;
}

/**
 * `--since`: payments paid (by paid time, not creation time) or expired in the window, with no
 * callback answered 200 in the event store of `paycli listen`.
 */
async function fromWindow(env: CommandEnv<RecoverFlags>, since: string, missed: Missed[]): Promise<number> {
  let ms: number;
  try {
    ms = parseDuration(since, { maxMs: Number.MAX_SAFE_INTEGER }); // a window, not a timer: no timer maximum
  } catch (err) {
    throw new UsageError(`invalid --since: ${(err as Error).message}`);
  }
  const window = recoverWindow(env.ctx.now(), ms);
  const received = new Set<string>();
  const store = eventStore(env);
  let inWindow = 0;
  await store.scan((e) => {
    if (Date.parse(e.receivedAt) >= window.from.getTime()) inWindow++;
    if ((e.verdict === 'valid' || e.verdict === 'valid-variant') && e.answer === 200 && e.trx_id) received.add(`${e.trx_id}:${e.status}`);
  });
  const rows = await withSpinner(env, `reading history since ${formatJakarta(window.from)} WIB`, async () => [
    ...(await historyAll(env, { dateField: 'indate', from: window.paidFromDay })),
    ...(await historyAll(env, { dateField: 'created_at', from: window.expiredCreatedFromDay, status: -2 })),
  ]);
  const seen = new Set<number>();
  let checked = 0;
  for (const r of rows) {
    if (seen.has(r.TransactionId) || !window.contains(r)) continue;
    seen.add(r.TransactionId);
    checked++;
    const m = missedOf(r, 'not seen');
    if (!m || received.has(`${r.TransactionId}:${m.gateway}`)) continue;
    missed.push({ ...m, record: (await lookupTransaction(env, r.TransactionId)) ?? r });
  }
  if (checked > 0 && inWindow === 0) {
    env.out.warn(
      `the event store ${store.path} has no callback from this window, yet the gateway has ${checked} final payment(s) in it: --since trusts that store as the record of what your app received. If your app receives its callbacks directly (not through paycli listen), use --orders with your own orders instead, or every payment looks missed`,
    );
  }
  return checked;
}

/** One order: `paycli recover REF` (a reference id, or a transaction id when no reference matches). */
async function fromOne(env: CommandEnv<RecoverFlags>, ref: string, missed: Missed[]): Promise<number> {
  const all = await withSpinner(env, `looking up ${ref} at the gateway`, () => historyAll(env));
  const byRef = all.filter((r) => String(r.ReferenceId ?? '') === ref);
  let record: TransactionRecord | undefined = byRef.find((r) => isPaidStatus(r.Status, r.PaidStatus)) ?? byRef[0];
  if (byRef.length > 1)
    env.out.warn(`reference ${ref} is on ${byRef.length} transactions (${byRef.map((r) => r.TransactionId).join(', ')}): recovering ${record!.TransactionId}`);
  if (!record && /^\d{1,15}$/.test(ref)) record = await lookupTransaction(env, Number(ref));
  if (!record) throw new UsageError(`no transaction with reference (or id) "${ref}" at the gateway`);
  const full = (await lookupTransaction(env, record.TransactionId)) ?? record;
  const m = missedOf(full, 'given');
  if (!m) env.out.info(`trx ${full.TransactionId} is ${gatewayOutcome(full)} at the gateway: no callback to deliver`);
  else missed.push(m);
  return 1;
}

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Posts (or, with --dry-run/--curl, shows) each missed callback, rebuilt and signed with the VA. */
async function deliver(env: CommandEnv<RecoverFlags>, url: string, missed: Missed[], timeoutMs: number): Promise<void> {
  const { opts, out, ctx } = env;
  const { va } = await env.session.credentials();
  await env.session.guardProduction(`${missed.length} rebuilt callback(s) to ${url}`, {
    refuse: 'deliver production callbacks',
    ask: 'Deliver them?',
    cancelled: 'nothing was delivered',
  });
  let seq = 0;
  for (const m of missed) {
    const now = ctx.now();
    const signed = signCallbackRequest(callbackFromRecord(m.record, url), va, opts.format ?? 'form', now, externalId(now, ++seq));
    if (opts.curl) {
      out.out(
        [
          `curl -sS -X POST ${shellQuote(url)} \\`,
          ...Object.entries(signed.headers).map(([k, v]) => `  -H ${shellQuote(`${k}: ${v}`)} \\`),
          `  --data-binary ${shellQuote(signed.body)}`,
        ].join('\n'),
      );
      continue;
    }
    if (opts.dryRun) {
      m.delivery = { ok: false, signature: signed.signature, body: signed.body };
      continue;
    }
    try {
      const res = await sendRaw(url, { headers: signed.headers, body: signed.body, timeoutMs, signal: ctx.interrupts() });
      m.delivery = { ok: res.status === 200, status: res.status, body: res.body.split(/\r?\n/)[0]!.slice(0, 200), ms: Math.round(res.ms) };
    } catch (err) {
      // Ctrl-C stops the deliveries at once (exit 130); the ones not yet sent are not reported as sent.
      if (ctx.interrupts().aborted)
        throw new PaycliError(
          'interrupted',
          `interrupted: ${missed.filter((x) => x.delivery?.ok).length} of ${missed.length} callbacks delivered before Ctrl-C`,
        );
      m.delivery = { ok: false, error: (err as NodeJS.ErrnoException).code === 'ETIMEDOUT' ? `timeout after ${timeoutMs} ms` : describeSendError(err) };
    }
  }
}

/**
 * `paycli recover`: payments the merchant missed the callback of: from its orders (`--orders FILE`,
 * through the same reconciliation as `paycli reconcile`), from a window of paid time (`--since 2d`,
 * against the event store of `paycli listen`), or one order (`paycli recover REF`); prints them and,
 * with `--deliver-to URL`, posts each callback rebuilt from the gateway's record, signed with the VA.
 */
export const recoverCommand: Handler<RecoverFlags> = async (env, reference?: string) => {
  const { opts, out } = env;
  if ([opts.orders, opts.since, reference].filter((v) => v !== undefined).length !== 1)
    throw new UsageError('give one of REFERENCE, --orders FILE and --since DURATION');
  if (opts.deliverTo && !/^https?:\/\/\S+$/.test(opts.deliverTo)) throw new UsageError(`invalid --deliver-to "${opts.deliverTo}" (an http(s) URL)`);
  if ((opts.dryRun || opts.curl) && !opts.deliverTo) throw new UsageError('--dry-run and --curl show the deliveries: they need --deliver-to');
  let deliveryTimeout = 10_000;
  if (opts.deliveryTimeout !== undefined) {
    try {
      deliveryTimeout = parseDuration(opts.deliveryTimeout);
    } catch (err) {
      throw new UsageError(`invalid --delivery-timeout: ${(err as Error).message}`);
    }
    if (deliveryTimeout <= 0) throw new UsageError('invalid --delivery-timeout: it must be longer than 0');
  }
  await env.session.credentials();
  const missed: Missed[] = [];
  const notes: Finding[] = [];
  const checked = opts.orders
    ? await fromOrders(env, opts.orders, missed, notes)
    : opts.since
      ? await fromWindow(env, opts.since, missed)
      : await fromOne(env, reference!, missed);
  if (opts.deliverTo && missed.length > 0) {
    await deliver(env, opts.deliverTo, missed, deliveryTimeout);
    if (opts.curl) return 'ok';
  }

  const delivered = missed.filter((m) => m.delivery?.ok).length;
  const unreachable = missed.filter((m) => m.delivery?.error).length;
  const refused = missed.filter((m) => m.delivery && !m.delivery.ok && !m.delivery.error && m.delivery.status !== undefined).length;
  const unfixable = notes.filter((n) => UNFIXABLE.has(n.kind));
  if (out.json) {
    out.data({
      checked,
      missed: missed.map(({ record: _r, ...m }) => m),
      delivered,
      failed: unreachable + refused,
      dryRun: Boolean(opts.dryRun),
      notes: notes.map((n) => n.message),
      findings: notes.map(({ record: _r, ...n }) => n),
    });
  } else {
    for (const n of notes) out.warn(n.message);
    if (missed.length === 0)
      out.out(
        notes.length === 0
          ? `all ${checked} checked ${opts.orders ? 'orders agree with the gateway' : 'payments had their callback answered 200'}: nothing to recover`
          : `nothing to recover by delivery; ${notes.length} other discrepanc${notes.length === 1 ? 'y' : 'ies'} above`,
      );
    else {
      const result = (m: Missed) =>
        !m.delivery
          ? opts.deliverTo
            ? '-'
            : 'not delivered (dry)'
          : m.delivery.error
            ? `unreachable: ${m.delivery.error}`
            : opts.dryRun
              ? `would send (X-Signature ${m.delivery.signature!.slice(0, 12)}…)`
              : `HTTP ${m.delivery.status}${m.delivery.body ? ` ${m.delivery.body.slice(0, 30)}` : ''}`;
      const cut = (t: string, n: number) => (t.length > n ? `${t.slice(0, n - 1)}…` : t);
      // Fits 80 columns: TRX, REFERENCE ≤ 16, MERCHANT ≤ 10, GATEWAY 8, DELIVERY ≤ 32 (--json has everything).
      out.out(
        out.table(
          missed.map((m) => [String(m.trxId), cut(m.referenceId ?? '-', 16), cut(m.merchant, 10), m.gateway, cut(result(m), 32)]),
          ['TRX', 'REFERENCE', 'MERCHANT', 'GATEWAY', 'DELIVERY'],
          (s) => out.c.bold(s),
        ),
      );
      out.info(
        out.e.dim(
          `${missed.length} of ${checked} missed${opts.deliverTo && !opts.dryRun ? ` · ${delivered} delivered, ${unreachable + refused} failed` : opts.deliverTo ? ' · dry run: nothing was sent' : ' · add --deliver-to URL to deliver them'}`,
        ),
      );
    }
  }
  if (unreachable > 0) return out.fail(new NetworkError(`${unreachable} of ${missed.length} callbacks could not reach ${opts.deliverTo}`));
  if (refused > 0)
    return out.fail(
      new SignatureError(`${refused} of ${missed.length} callbacks were not answered 200 by ${opts.deliverTo}`, {
        hint: 'the DELIVERY column shows each answer',
      }),
    );
  if (unfixable.length > 0)
    return out.fail(
      new SignatureError(`${unfixable.length} order(s) disagree with the gateway in ways a callback cannot fix (see the warnings)`, {
        hint: 'paycli reconcile --orders FILE lists every discrepancy',
      }),
    );
  return 'ok';
};

// ── Definition ──────────────────────────────────────────────────────────────────────────────────

const defineRecover: Define = (program, bind) => {
  bind(
    examples(
      topCommand(program, 'recover')
        .option('--orders <file>', 'your orders: CSV, JSON lines or a JSON array with trx_id or reference_id, status, amount (- for stdin)')
        .option('--since <duration>', 'instead: payments paid in this window (e.g. 2d) with no callback answered 200 in the event store')
        .option('--deliver-to <url>', "post each missed callback, rebuilt from the gateway's record and signed with the VA")
        .addOption(new Option('--format <format>', 'callback body format').choices(['form', 'json']).default('form'))
        .option('--store <file>', 'the event store for --since (default $XDG_DATA_HOME/paycli/events.db)')
        .option('--delivery-timeout <duration>', 'how long to wait for each answer (default 10s)')
        .option('--dry-run', 'with --deliver-to: show what would be delivered; send nothing')
        .option('--curl', 'with --deliver-to: print a curl command per callback; send nothing'),
      [
        'paycli recover --orders orders.csv',
        'paycli recover ORDER-1042 --deliver-to http://127.0.0.1:3000/ipaymu/callback',
        'paycli --env local recover --since 2d --deliver-to http://127.0.0.1:3000/callback --json',
      ],
    ),
    recoverCommand,
  );
};

export const commands = { recover: defineRecover };
