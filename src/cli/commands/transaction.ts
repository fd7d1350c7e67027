import {
  checkHistoryData,
  checkTransactionData,
  encodeHistoryBody,
  encodeTransactionBody,
  HISTORY_PATH,
  isFinalStatus,
  isPaidStatus,
  readHistory,
  TRANSACTION_PATH,
  type TransactionRecord,
} from '../../core/api/merchant.js';
import { CheckFailedError, GatewayError, UsageError } from '../../core/errors.js';
import { durationFlag as duration } from '../duration-flag.js';
import type { CommandEnv, Handler } from '../command-env.js';

import { gatewayText, statusWord } from '../gateway-text.js';
import { rupiah } from '../output.js';
import { withSpinner } from '../spinner.js';
import { examples, RUN_DURATION_TIMEOUT, sendNothingFlags, type Define } from '../command-kit.js';
import { topCommand } from './heads.js';

/** Fetches one transaction (or prints the request for --dry-run/--curl and returns null). */
async function fetchTransaction(env: CommandEnv, id: string, spinner = true): Promise<TransactionRecord | null> {
  const req = await env.session.signed('POST', TRANSACTION_PATH, encodeTransactionBody(id, (env.opts as { account?: string }).account));
  if (await env.session.preview(req)) return null;
  const send = () => env.session.send<TransactionRecord>(req, { checkData: checkTransactionData });
  const envelope = spinner ? await withSpinner(env, `checking transaction ${id}`, send) : await send();
  const d = (envelope.Data ?? {}) as TransactionRecord;
  return { ...d, TransactionId: Number(d.TransactionId), Status: Number(d.Status) };
}

/** What the argument is taken for: an id (up to 12 digits), or what the history is searched for. */
type Lookup = 'id' | 'reference' | 'payment-or-reference';

/**
 * A transaction id has at most 12 digits (the gateway's are 6 or 7; the emulator's start at 100001).
 * A longer number is a payment number (a VA number is a bank prefix and 12 digits, a store payment
 * code 14 digits) or a reference id: check transaction takes only ids, so those are found in the
 * history. `--reference` takes the argument as a reference id alone.
 */
function lookupOf(arg: string, reference: boolean | undefined): Lookup {
  if (reference) return 'reference';
  return /^\d{1,12}$/.test(arg) ? 'id' : 'payment-or-reference';
}

const SEARCHED: Record<Exclude<Lookup, 'id'>, string> = { reference: 'reference id', 'payment-or-reference': 'payment number or reference id' };

/** Does a history row have this reference id (or, for a payment-or-reference lookup, this payment number)? */
function matches(r: TransactionRecord, needle: string, lookup: Exclude<Lookup, 'id'>): boolean {
  if (String(r.ReferenceId ?? '') === needle) return true;
  return lookup === 'payment-or-reference' && [r.PaymentCode, r.PaymentNo].some((v) => v !== undefined && v !== null && v !== '' && String(v) === needle);
}

/**
 * The transaction id of a reference id or payment number: check transaction takes only ids, so the
 * history (of `--account`'s child account on every page, when given) is read, newest first, until a
 * transaction with that `ReferenceId` (or `PaymentCode`/`PaymentNo`) turns up. Null after
 * --dry-run/--curl printed the first history request.
 */
async function findInHistory(env: CommandEnv, needle: string, lookup: Exclude<Lookup, 'id'>): Promise<number | null> {
  const account = (env.opts as { account?: string }).account;
  const request = (page: number, cursor?: string) =>
    env.session.signed('POST', HISTORY_PATH, encodeHistoryBody({ page, limit: 20, account, ...(cursor ? { cursor } : {}) }));
  const first = await request(1);
  if (await env.session.preview(first)) return null;
  return withSpinner(env, `looking up ${SEARCHED[lookup]} ${needle} in the history`, async () => {
    // paycli's emulator names the next page (a stable key): rows are neither skipped nor repeated while payments come in.
    let cursor: string | undefined;
    for (let page = 1; ; page++) {
      const req = page === 1 ? first : await request(page, cursor);
      const h = readHistory((await env.session.send<unknown>(req, { checkData: checkHistoryData })).Data);
      const hit = h.transactions.find((t) => matches(t, needle, lookup));
      if (hit) return hit.TransactionId;
      cursor = h.nextCursor;
      if (h.transactions.length === 0 || (cursor === undefined && page >= h.totalPages)) break;
    }
    throw new GatewayError(404, `no transaction with ${SEARCHED[lookup]} "${needle}" in the history${account ? ` of ${account}` : ''}`, {
      hint:
        lookup === 'reference'
          ? 'without --reference, an id of up to 12 digits is looked up directly'
          : 'a transaction id (up to 12 digits) is looked up directly; a payment number or reference id is searched in the history',
    });
  });
}

function renderTransaction(env: CommandEnv, r: TransactionRecord): void {
  const c = env.out.c;
  const paid = isPaidStatus(r.Status, r.PaidStatus);
  const word = statusWord(r);
  const badge = paid ? c.green(word) : r.Status === 0 ? c.yellow(word) : c.red(word);
  const method = [r.Via ?? r.PaymentChannel, r.Channel && r.Channel !== r.Via ? r.Channel : undefined].filter(Boolean).join(' / ');
  const code = r.PaymentCode ?? r.PaymentNo;
  const lines = [
    // Lines that carry the gateway's free text wrap under their label on a narrow terminal.
    env.out.fitLine(`trx ${gatewayText(r.TransactionId)} · `, `${badge} · code ${r.Status} (${gatewayText(r.StatusDesc)}) · ref ${gatewayText(r.ReferenceId)}`),
    '',
    `  amount   ${rupiah(Number(r.Amount ?? 0))}   fee ${rupiah(Number(r.Fee ?? 0))}`,
    env.out.fitLine('  method   ', `${gatewayText(method || r.TypeDesc)}${code && String(code).length <= 40 ? `   ${gatewayText(code)}` : ''}`),
    `  created  ${gatewayText(r.CreatedDate)} WIB`,
    `  expires  ${gatewayText(r.ExpiredDate)} WIB`,
    `  paid     ${r.SuccessDate ? `${gatewayText(r.SuccessDate)} WIB` : '-'}`,
    `  settled  ${r.SettlementDate ? `${gatewayText(r.SettlementDate)} WIB` : paid ? 'not yet' : '-'}`,
    env.out.fitLine(
      '  buyer    ',
      [r.BuyerName, r.BuyerPhone, r.BuyerEmail]
        .filter((v) => v)
        .map((v) => gatewayText(v))
        .join(' · ') || '-',
    ),
  ];
  env.out.out(lines.join('\n'));
  if (paid) {
    const ref = r.ReferenceId ? gatewayText(r.ReferenceId) : String(r.TransactionId);
    const arg = /^[\w.:-]+$/.test(ref) ? ref : `'${ref.replace(/'/g, `'\\''`)}'`;
    env.out.info(env.out.e.dim(`\nif this order is still unpaid in your app, re-deliver its callback:\n  paycli recover ${arg} --deliver-to URL`));
  }
}

interface TransactionFlags {
  reference?: boolean;
  wait?: boolean;
  interval?: string;
  timeout?: string;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * `paycli transaction ID [--wait]`: the gateway's record of one transaction. With `--wait`, polls
 * until a final state; exit 0 when it ended paid, 3 when it ended otherwise (expired, cancelled,
 * failed, …), 5 when `--timeout` passed while it was still pending, 130 when interrupted.
 */
export const transactionCommand: Handler<TransactionFlags> = async (env, idOrReference: string) => {
  const { opts, out, ctx } = env;
  if (!opts.wait && (opts.interval !== undefined || opts.timeout !== undefined)) throw new UsageError('--interval and --timeout need --wait');
  const interval = duration(opts.interval, '--interval', 3000);
  const timeout = duration(opts.timeout, '--timeout', 15 * 60_000);
  if (idOrReference.trim() === '') throw new UsageError('give a transaction id or a reference id');
  let id = idOrReference;
  const lookup = lookupOf(idOrReference, opts.reference);
  if (lookup !== 'id') {
    const found = await findInHistory(env, idOrReference, lookup);
    if (found === null) return 'ok';
    id = String(found);
  }
  if (!opts.wait) {
    const r = await fetchTransaction(env, id);
    if (!r) return 'ok';
    if (out.json) out.data(r);
    else renderTransaction(env, r);
    return 'ok';
  }
  const signal = ctx.interrupts();
  const started = Date.now();
  let last: TransactionRecord | null = null;
  let polls = 0;
  const spin = !opts.dryRun && !opts.curl;
  const poll = async (update: (text: string) => void): Promise<boolean> => {
    for (;;) {
      try {
        const next = await fetchTransaction(env, id, false);
        if (!next) return false;
        last = next;
      } catch (err) {
        // Ctrl-C during a check: show what was last known (exit 130 below); before any answer, fail as usual.
        if (last && signal.aborted) return true;
        throw err;
      }
      polls++;
      if (isFinalStatus(last.Status) || signal.aborted) return true;
      const elapsed = Date.now() - started;
      if (elapsed >= timeout) return true;
      update(`transaction ${id}: ${statusWord(last)} · ${Math.round(elapsed / 1000)}s · checking every ${Math.round(interval / 100) / 10}s`);
      await sleep(Math.min(interval, timeout - elapsed), signal);
      if (signal.aborted) return true;
    }
  };
  // The shared spinner: it leaves stdin alone, so Ctrl-C is SIGINT and stops the wait at once.
  if (!(spin ? await withSpinner(env, `waiting for transaction ${id}`, poll) : await poll(() => undefined))) return 'ok';
  last = last as TransactionRecord | null; // assigned inside poll(), which TypeScript's narrowing does not see
  if (!last) return 'ok';
  const final = isFinalStatus(last.Status);
  const paid = isPaidStatus(last.Status, last.PaidStatus);
  if (out.json) out.data({ ...last, waited: { polls, ms: Date.now() - started, final, paid } });
  else renderTransaction(env, last);
  if (signal.aborted && !final) return 'interrupted';
  if (!final) {
    // Not a network error: every check was answered; the transaction is just not paid yet.
    return out.fail(
      new CheckFailedError(`transaction ${id} is still ${statusWord(last)} after ${Math.round((Date.now() - started) / 1000)}s (--timeout)`, {
        hint: 'wait longer with --timeout 30m',
        code: 'ERR_WAIT_TIMEOUT',
      }),
    );
  }
  if (paid) return 'ok';
  // Not a gateway error: the gateway answered; the transaction ended without being paid.
  return out.fail(new CheckFailedError(`transaction ${id} ended ${statusWord(last)} (${gatewayText(last.StatusDesc)}), not paid`, { code: 'ERR_NOT_PAID' }));
};

// ── Definitions ─────────────────────────────────────────────────────────────────────────────────

const defineTransaction: Define = (program, bind) => {
  const transaction = sendNothingFlags(
    topCommand(program, 'transaction')
      .option('--reference', 'the argument is a reference id even if it is all digits')
      .option('--account <va>', 'a child account (child VA) of yours: its transaction')
      .option('--wait', 'poll until a final state (paid, expired, cancelled, failed); exit 0 only if paid')
      .option('--interval <duration>', 'with --wait: time between checks (default 3s)')
      .option('--timeout <duration>', 'with --wait: give up after this long (default 15m; exit 6)'),
  );
  RUN_DURATION_TIMEOUT.add(transaction);
  bind(
    examples(transaction, [
      'paycli transaction 100001',
      'paycli transaction PAYCLI-20261122072704-89e5',
      'paycli transaction 8868000000100001',
      'paycli --env local transaction 100001 --wait --interval 2s --timeout 10m',
      'paycli transaction 100001 --json | jq -r .PaidStatus',
    ]),
    transactionCommand,
  );
};

export const commands = { transaction: defineTransaction };
