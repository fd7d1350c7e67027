import { readFile } from 'node:fs/promises';
import { checkHistoryData, checkTransactionData, encodeHistoryBody, encodeTransactionBody, HISTORY_PATH, readHistory, TRANSACTION_PATH, type TransactionRecord } from '../../core/api/merchant.js';
import { callbackFromRecord, gatewayOutcome, parseOrders, type Order } from '../../core/api/recover.js';
import { externalId, signCallbackRequest } from '../../core/callback/build.js';
import { AuthError, GatewayError, NetworkError, PaycliError, SignatureError, UsageError } from '../../core/errors.js';
import { describeSendError, sendRaw } from '../../core/http/raw-post.js';
import { parseDuration } from '../../core/duration.js';
import { formatJakarta, parseWib } from '../../core/time.js';
import type { CommandEnv, Handler } from '../command-env.js';
import { table } from '../output.js';
import { canPrompt } from '../interaction.js';
import { withSpinner } from '../spinner.js';
import { eventStore } from '../callback-shared.js';
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

async function lookup(env: CommandEnv, id: number): Promise<TransactionRecord | undefined> {
  const req = await env.session.signed('POST', TRANSACTION_PATH, encodeTransactionBody(String(id)));
  try {
    const d = (await env.session.send<TransactionRecord>(req, { checkData: checkTransactionData })).Data;
    return { ...d, TransactionId: Number(d.TransactionId), Status: Number(d.Status) };
  } catch (err) {
    if (err instanceof GatewayError && err.status === 404) return undefined;
    throw err;
  }
}

/** Every transaction in history from a date on (all pages; repeats from shifting pages skipped). */
async function historySince(env: CommandEnv, from?: string): Promise<TransactionRecord[]> {
  const out = new Map<number, TransactionRecord>();
  for (let page = 1; ; page++) {
    const req = await env.session.signed('POST', HISTORY_PATH, encodeHistoryBody({ from, dateField: 'created_at', page, limit: 20 }));
    const h = readHistory((await env.session.send<unknown>(req, { checkData: checkHistoryData })).Data);
    for (const r of h.transactions) if (!out.has(r.TransactionId)) out.set(r.TransactionId, r);
    if (page >= h.totalPages || h.transactions.length === 0) break;
  }
  return [...out.values()];
}

async function confirmProduction(env: CommandEnv, n: number, url: string): Promise<void> {
  const cfg = await env.session.config();
  if (cfg.env.value !== 'production' || env.opts.yes || env.opts.dryRun || env.opts.curl) return;
  if (!canPrompt(env.ctx, env.opts)) throw new AuthError(`refusing to deliver ${n} production callback(s) to ${url} without confirmation`, { hint: 'add --yes to confirm in scripts, or run it in a terminal' });
  const { confirm } = await import('@inquirer/prompts');
  const ok = await confirm({ message: `PRODUCTION: deliver ${n} rebuilt callback(s) to ${url}?`, default: false }, { input: env.ctx.stdin, output: env.ctx.stderr });
  if (!ok) throw new UsageError('cancelled: nothing was delivered');
}

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * `paycli recover`: finds payments the merchant holds as unpaid that the gateway reports paid or
 * expired (`--orders FILE`), or final payments in a window with no callback answered 200 in the
 * event store (`--since 2d`); prints them, and with `--deliver-to URL` posts each callback rebuilt
 * from the gateway's record and signed with the VA, reporting the handler's answer.
 */
export const recoverCommand: Handler<RecoverFlags> = async (env) => {
  const { opts, out, ctx, session } = env;
  if (Boolean(opts.orders) === Boolean(opts.since)) throw new UsageError('give one of --orders FILE and --since DURATION');
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
  const { va } = await session.credentials();
  const missed: Missed[] = [];
  const notes: string[] = [];
  let checked = 0;

  if (opts.orders) {
    let text: string;
    try {
      text = opts.orders === '-' ? await readStdin(env) : await readFile(opts.orders, 'utf8');
    } catch (err) {
      throw new UsageError(`cannot read --orders ${opts.orders}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
    const orders = parseOrders(text, opts.orders === '-' ? 'stdin' : opts.orders);
    if (orders.length === 0) throw new UsageError(`--orders ${opts.orders} has no orders`);
    await withSpinner(env, `checking ${orders.length} orders with the gateway`, async () => {
      let byRef: Map<string, TransactionRecord> | undefined;
      for (const o of orders) {
        checked++;
        let r: TransactionRecord | undefined;
        if (o.trxId !== undefined) r = await lookup(env, o.trxId);
        else {
          byRef ??= new Map((await historySince(env)).filter((t) => t.ReferenceId).map((t) => [String(t.ReferenceId), t]));
          const hit = byRef.get(o.referenceId!);
          // History rows may be shorter than check transaction's: take the full record.
          r = hit ? ((await lookup(env, hit.TransactionId)) ?? hit) : undefined;
        }
        classify(o, r, missed, notes);
      }
    });
  } else {
    let ms: number;
    try {
      // A window, not a timer: no timer maximum.
      ms = parseDuration(opts.since!, { maxMs: Number.MAX_SAFE_INTEGER });
    } catch (err) {
      throw new UsageError(`invalid --since: ${(err as Error).message}`);
    }
    const from = new Date(ctx.now().getTime() - ms);
    const received = new Set<string>();
    const store = eventStore(env);
    await store.scan((e) => {
      if ((e.verdict === 'valid' || e.verdict === 'valid-variant') && e.answer === 200 && e.trx_id) received.add(`${e.trx_id}:${e.status}`);
    });
    const rows = await withSpinner(env, `reading history since ${formatJakarta(from)} WIB`, () => historySince(env, formatJakarta(from).slice(0, 10)));
    for (const r of rows) {
      const created = parseWib(r.CreatedDate);
      if (created && created < from) continue;
      checked++;
      const outcome = gatewayOutcome(r);
      if (outcome !== 'berhasil' && outcome !== 'expired') continue;
      if (received.has(`${r.TransactionId}:${outcome}`)) continue;
      const full = (await lookup(env, r.TransactionId)) ?? r;
      missed.push({ trxId: r.TransactionId, referenceId: r.ReferenceId ? String(r.ReferenceId) : null, merchant: 'not seen', gateway: outcome, record: full });
    }
  }

  if (opts.deliverTo && missed.length > 0) {
    const url = opts.deliverTo;
    await confirmProduction(env, missed.length, url);
    let seq = 0;
    for (const m of missed) {
      const now = ctx.now();
      const signed = signCallbackRequest(callbackFromRecord(m.record, url), va, opts.format ?? 'form', now, externalId(now, ++seq));
      if (opts.curl) {
        out.out([`curl -sS -X POST ${shellQuote(url)} \\`, ...Object.entries(signed.headers).map(([k, v]) => `  -H ${shellQuote(`${k}: ${v}`)} \\`), `  --data-binary ${shellQuote(signed.body)}`].join('\n'));
        continue;
      }
      if (opts.dryRun) {
        m.delivery = { ok: false, signature: signed.signature, body: signed.body };
        continue;
      }
      try {
        const res = await sendRaw(url, { headers: signed.headers, body: signed.body, timeoutMs: deliveryTimeout, signal: ctx.interrupts() });
        m.delivery = { ok: res.status === 200, status: res.status, body: res.body.split(/\r?\n/)[0]!.slice(0, 200), ms: Math.round(res.ms) };
      } catch (err) {
        // Ctrl-C stops the deliveries at once (exit 130); the ones not yet sent are not reported as sent.
        if (ctx.interrupts().aborted) throw new PaycliError('interrupted', `interrupted: ${missed.filter((x) => x.delivery?.ok).length} of ${missed.length} callbacks delivered before Ctrl-C`);
        m.delivery = { ok: false, error: (err as NodeJS.ErrnoException).code === 'ETIMEDOUT' ? `timeout after ${deliveryTimeout} ms` : describeSendError(err) };
      }
    }
    if (opts.curl) return 0;
  }

  const delivered = missed.filter((m) => m.delivery?.ok).length;
  const unreachable = missed.filter((m) => m.delivery?.error).length;
  const refused = missed.filter((m) => m.delivery && !m.delivery.ok && !m.delivery.error && m.delivery.status !== undefined).length;
  if (out.json) {
    out.data({
      checked, missed: missed.map(({ record: _r, ...m }) => m), delivered, failed: unreachable + refused, dryRun: Boolean(opts.dryRun), notes,
    });
  } else {
    for (const n of notes) out.warn(n);
    if (missed.length === 0) out.out(`all ${checked} checked ${opts.orders ? 'orders agree with the gateway' : 'payments had their callback answered 200'}: nothing to recover`);
    else {
      const result = (m: Missed) => (!m.delivery ? (opts.deliverTo ? '-' : 'not delivered (dry)') : m.delivery.error ? `unreachable: ${m.delivery.error}` : opts.dryRun ? `would send (X-Signature ${m.delivery.signature!.slice(0, 12)}…)` : `HTTP ${m.delivery.status}${m.delivery.body ? ` ${m.delivery.body.slice(0, 30)}` : ''}`);
      const cut = (t: string, n: number) => (t.length > n ? `${t.slice(0, n - 1)}…` : t);
      // Fits 80 columns: TRX, REFERENCE ≤ 16, MERCHANT ≤ 10, GATEWAY 8, DELIVERY ≤ 32 (--json has everything).
      out.out(table(missed.map((m) => [String(m.trxId), cut(m.referenceId ?? '-', 16), cut(m.merchant, 10), m.gateway, cut(result(m), 32)]), ['TRX', 'REFERENCE', 'MERCHANT', 'GATEWAY', 'DELIVERY'], (s) => out.c.bold(s)));
      out.info(out.e.dim(`${missed.length} of ${checked} missed${opts.deliverTo && !opts.dryRun ? ` · ${delivered} delivered, ${unreachable + refused} failed` : opts.deliverTo ? ' · dry run: nothing was sent' : ' · add --deliver-to URL to deliver them'}`));
    }
  }
  if (unreachable > 0) return out.fail(new NetworkError(`${unreachable} of ${missed.length} callbacks could not reach ${opts.deliverTo}`));
  if (refused > 0) return out.fail(new SignatureError(`${refused} of ${missed.length} callbacks were not answered 200 by ${opts.deliverTo}`, { hint: 'the DELIVERY column shows each answer' }));
  return 0;
};

function classify(o: Order, r: TransactionRecord | undefined, missed: Missed[], notes: string[]): void {
  const what = o.trxId !== undefined ? `trx ${o.trxId}` : `reference ${o.referenceId}`;
  if (!r) {
    notes.push(`line ${o.line}: ${what} is unknown to the gateway`);
    return;
  }
  const outcome = gatewayOutcome(r);
  if (o.state === 'unpaid' && (outcome === 'berhasil' || outcome === 'expired')) {
    missed.push({ trxId: r.TransactionId, referenceId: r.ReferenceId ? String(r.ReferenceId) : (o.referenceId ?? null), merchant: o.status || 'unpaid', gateway: outcome, record: r });
  } else if (o.state === 'paid' && outcome !== 'berhasil') {
    notes.push(`line ${o.line}: ${what} is "${o.status}" in your orders but ${outcome} at the gateway`);
  }
}

async function readStdin(env: CommandEnv): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of env.ctx.stdin) chunks.push(Buffer.isBuffer(c) ? c : Buffer.from(String(c)));
  return Buffer.concat(chunks).toString('utf8');
}


// ── Definition ──────────────────────────────────────────────────────────────────────────────────

const defineRecover: Define = (program, bind) => {
  bind(examples(
    topCommand(program, 'recover')
      .option('--orders <file>', 'your orders: CSV or JSON lines with trx_id or reference_id, and status (- for stdin)')
      .option('--since <duration>', 'instead: payments of this window (e.g. 2d) with no callback answered 200 in the event store')
      .option('--deliver-to <url>', 'post each missed callback, rebuilt from the gateway\'s record and signed with the VA')
      .addOption(new Option('--format <format>', 'callback body format').choices(['form', 'json']).default('form'))
      .option('--store <file>', 'the event store for --since (default $XDG_DATA_HOME/paycli/events.db)')
      .option('--delivery-timeout <duration>', 'how long to wait for each answer (default 10s)')
      .option('--dry-run', 'with --deliver-to: show what would be delivered; send nothing')
      .option('--curl', 'with --deliver-to: print a curl command per callback; send nothing'),
    ['paycli recover --orders orders.csv', 'paycli recover --orders orders.jsonl --deliver-to http://127.0.0.1:3000/ipaymu/callback', 'paycli --env local recover --since 2d --deliver-to http://127.0.0.1:3000/callback --json'],
  ), recoverCommand);
};

export const commands = { recover: defineRecover };
