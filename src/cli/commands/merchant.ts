import { channelCacheFile, writeChannelCache } from '../../core/api/channel-cache.js';
import {
  BALANCE_PATH, CHANNELS_PATH, checkDate, csvLine, describeFee, encodeBalanceBody, encodeHistoryBody, encodeTransactionBody, HISTORY_PATH,
  isFinalStatus, isPaidStatus, METHOD_LIST_PATH, parseStatusFilter, readBalance, readChannels, readHistory, STATUS_WORDS, TRANSACTION_PATH,
  type HistoryRequest, type TransactionRecord,
} from '../../core/api/merchant.js';
import { cacheDir } from '../../core/config/paths.js';
import { GatewayError, NetworkError, UsageError } from '../../core/errors.js';
import { durationFlag as duration } from '../duration-flag.js';
import type { CommandEnv, Handler } from '../command-env.js';
import { EXIT } from '../exit-codes.js';
import { fitLine, rupiah, table } from '../output.js';
import { escapeControl } from '../../core/terminal-text.js';
import { withSpinner } from '../spinner.js';
import { apiFlags, examples, RUN_DURATION_TIMEOUT, typed, type Define } from '../command-kit.js';

/** A field of the gateway's answer as human output shows it: `-` when empty, control characters escaped. */
const text = (v: unknown) => (v === null || v === undefined || v === '' ? '-' : escapeControl(String(v)));

/** `paid`, `pending`, … for a record (its PaidStatus decides paid-ness when present). */
export function statusWord(r: TransactionRecord): string {
  return STATUS_WORDS[String(r.Status)] ?? `status ${r.Status}`;
}

function positiveInt(v: string | undefined, flag: string, max?: number): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v) || Number(v) < 1 || (max !== undefined && Number(v) > max)) throw new UsageError(`invalid ${flag} "${v}" (a whole number from 1${max ? ` to ${max}` : ''})`);
  return Number(v);
}


/** Fetches one transaction (or prints the request for --dry-run/--curl and returns null). */
export async function fetchTransaction(env: CommandEnv, id: string, spinner = true): Promise<TransactionRecord | null> {
  const req = await env.session.signed('POST', TRANSACTION_PATH, encodeTransactionBody(id));
  if (await env.session.preview(req)) return null;
  const send = () => env.session.send<TransactionRecord>(req);
  const envelope = spinner ? await withSpinner(env, `checking transaction ${id}`, send) : await send();
  const d = (envelope.Data ?? {}) as TransactionRecord;
  return { ...d, TransactionId: Number(d.TransactionId), Status: Number(d.Status) };
}

/**
 * The transaction id of a reference id: check transaction takes only ids, so the history is read,
 * newest first, until a transaction with that `ReferenceId` turns up. Null after --dry-run/--curl
 * printed the first history request.
 */
export async function findByReference(env: CommandEnv, reference: string): Promise<number | null> {
  const first = await env.session.signed('POST', HISTORY_PATH, encodeHistoryBody({ page: 1, limit: 20 }));
  if (await env.session.preview(first)) return null;
  return withSpinner(env, `looking up reference ${reference} in the history`, async () => {
    for (let page = 1; ; page++) {
      const req = page === 1 ? first : await env.session.signed('POST', HISTORY_PATH, encodeHistoryBody({ page, limit: 20 }));
      const h = readHistory((await env.session.send<unknown>(req)).Data);
      const hit = h.transactions.find((t) => String(t.ReferenceId ?? '') === reference);
      if (hit) return hit.TransactionId;
      if (page >= h.totalPages || h.transactions.length === 0) break;
    }
    throw new GatewayError(404, `no transaction with reference id "${reference}" in the history`, { hint: 'a transaction id (digits) is looked up directly; --reference forces a lookup by reference' });
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
    fitLine(`trx ${text(r.TransactionId)} · `, `${badge} (${text(r.StatusDesc)}, code ${r.Status}) · ref ${text(r.ReferenceId)}`),
    '',
    `  amount   ${rupiah(Number(r.Amount ?? 0))}   fee ${rupiah(Number(r.Fee ?? 0))}`,
    fitLine('  method   ', `${text(method || r.TypeDesc)}${code && String(code).length <= 40 ? `   ${text(code)}` : ''}`),
    `  created  ${text(r.CreatedDate)} WIB`,
    `  expires  ${text(r.ExpiredDate)} WIB`,
    `  paid     ${r.SuccessDate ? `${text(r.SuccessDate)} WIB` : '-'}`,
    `  settled  ${r.SettlementDate ? `${text(r.SettlementDate)} WIB` : paid ? 'not yet' : '-'}`,
    fitLine('  buyer    ', [r.BuyerName, r.BuyerPhone, r.BuyerEmail].filter((v) => v).map((v) => text(v)).join(' · ') || '-'),
  ];
  env.out.out(lines.join('\n'));
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
  if (opts.reference || !/^\d{1,15}$/.test(idOrReference)) {
    const found = await findByReference(env, idOrReference);
    if (found === null) return 0;
    id = String(found);
  }
  if (!opts.wait) {
    const r = await fetchTransaction(env, id);
    if (!r) return 0;
    if (out.json) out.data(r);
    else renderTransaction(env, r);
    return 0;
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
  if (!(spin ? await withSpinner(env, `waiting for transaction ${id}`, poll) : await poll(() => undefined))) return 0;
  last = last as TransactionRecord | null; // assigned inside poll(), which TypeScript's narrowing does not see
  if (!last) return 0;
  const final = isFinalStatus(last.Status);
  const paid = isPaidStatus(last.Status, last.PaidStatus);
  if (out.json) out.data({ ...last, waited: { polls, ms: Date.now() - started, final, paid } });
  else renderTransaction(env, last);
  if (signal.aborted && !final) return EXIT.interrupted;
  if (!final) {
    return out.fail(new NetworkError(`transaction ${id} is still ${statusWord(last)} after ${Math.round((Date.now() - started) / 1000)}s (--timeout)`, { hint: 'wait longer with --timeout 30m' }));
  }
  if (paid) return 0;
  return out.fail(new GatewayError(200, `transaction ${id} ended ${statusWord(last)} (${text(last.StatusDesc)}), not paid`));
};

interface HistoryFlags {
  from?: string;
  to?: string;
  status?: string;
  limit?: string;
  page?: string;
  all?: boolean;
  csv?: boolean;
  paidDate?: boolean;
  order?: string;
}

const CSV_COLUMNS = ['TransactionId', 'ReferenceId', 'Status', 'StatusDesc', 'PaidStatus', 'Amount', 'Fee', 'Type', 'TypeDesc', 'PaymentChannel', 'PaymentCode', 'CreatedDate', 'SuccessDate', 'ExpiredDate', 'SettlementDate', 'BuyerName', 'BuyerPhone', 'BuyerEmail'];

/** `paycli history`: one page (a table, `--json` or `--csv`), or every page with `--all` (NDJSON with --json). */
export const historyCommand: Handler<HistoryFlags> = async (env) => {
  const { opts, out, session } = env;
  if (opts.csv && out.json) throw new UsageError('choose one of --csv and --json');
  if (opts.all && opts.page !== undefined) throw new UsageError('--all reads every page; drop --page');
  const order = opts.order === undefined ? undefined : opts.order.toUpperCase();
  if (order !== undefined && order !== 'ASC' && order !== 'DESC') throw new UsageError(`invalid --order "${opts.order}" (asc or desc)`);
  const request: HistoryRequest = {
    status: opts.status === undefined ? undefined : parseStatusFilter(opts.status),
    from: opts.from === undefined ? undefined : checkDate(opts.from, '--from'),
    to: opts.to === undefined ? undefined : checkDate(opts.to, '--to'),
    dateField: opts.paidDate ? 'indate' : 'created_at',
    page: positiveInt(opts.page, '--page') ?? 1,
    limit: positiveInt(opts.limit, '--limit', 20) ?? 20,
    order: order as 'ASC' | 'DESC' | undefined,
  };
  if (request.from && request.to && request.from > request.to) throw new UsageError(`--from ${request.from} is after --to ${request.to}`);
  const first = await session.signed('POST', HISTORY_PATH, encodeHistoryBody(request));
  if (await session.preview(first)) return 0;
  const rows: TransactionRecord[] = [];
  let page = request.page!;
  let pages = 1;
  let total = 0;
  const seen = new Set<number>();
  if (opts.csv) out.out(csvLine(CSV_COLUMNS));
  for (;;) {
    const req = page === request.page ? first : await session.signed('POST', HISTORY_PATH, encodeHistoryBody({ ...request, page }));
    const envelope = await withSpinner(env, `history page ${page}${pages > 1 ? ` of ${pages}` : ''}`, () => session.send<unknown>(req));
    const h = readHistory(envelope.Data);
    pages = h.totalPages;
    total = h.total;
    for (const r of h.transactions) {
      if (opts.all && seen.has(r.TransactionId)) continue; // a new payment shifts pages under --all: skip repeats
      seen.add(r.TransactionId);
      if (opts.csv) out.out(csvLine(CSV_COLUMNS.map((k) => r[k])));
      else if (opts.all && out.json) out.data(r, false);
      else rows.push(r);
    }
    if (!opts.all || page >= pages || h.transactions.length === 0) break;
    page++;
  }
  if (opts.csv || (opts.all && out.json)) return 0;
  if (out.json) {
    out.data({ transactions: rows, page: request.page, totalPages: pages, total });
    return 0;
  }
  if (rows.length === 0) {
    out.info('no transactions match');
    return 0;
  }
  const body = rows.map((r) => [String(r.TransactionId), text(r.CreatedDate).slice(0, 16), statusWord(r), text(r.PaymentChannel ?? r.Channel), rupiah(Number(r.Amount ?? 0)), text(r.ReferenceId).slice(0, 24)]);
  out.out(table(body, ['ID', 'CREATED (WIB)', 'STATUS', 'CHANNEL', 'AMOUNT', 'REFERENCE'], (s) => out.c.bold(s)));
  out.info(out.e.dim(opts.all ? `${rows.length} transactions` : `page ${request.page} of ${pages} · ${total} transactions${request.page! < pages ? ` · --page ${request.page! + 1} or --all for more` : ''}`));
  return 0;
};

/** `paycli balance`: the merchant's balance (settled, and paid but not yet settled when reported). */
export const balanceCommand: Handler = async (env) => {
  const { out, session } = env;
  const { va } = await session.credentials();
  const req = await session.signed('POST', BALANCE_PATH, encodeBalanceBody(va));
  if (await session.preview(req)) return 0;
  const envelope = await withSpinner(env, 'checking balance', () => session.send<unknown>(req));
  const b = readBalance(envelope.Data);
  if (out.json) {
    out.data(b);
    return 0;
  }
  const rows = [['available', rupiah(b.merchantBalance)]];
  if (b.unsettledBalance !== undefined) rows.push(['settling', rupiah(b.unsettledBalance)]);
  rows.push(['member', rupiah(b.memberBalance)]);
  out.out(`balance of VA ${b.va || va}\n\n${table(rows.map(([k, v]) => [`  ${k}`, v!]))}`);
  return 0;
};

interface ChannelsFlags {
  legacy?: boolean;
  method?: string;
}

/** `paycli channels`: methods, channels, fees and availability (GET payment-channels, or --legacy). */
export const channelsCommand: Handler<ChannelsFlags> = async (env) => {
  const { opts, out, session } = env;
  const req = opts.legacy ? await session.signed('POST', METHOD_LIST_PATH, '{"request":true}') : await session.signed('GET', CHANNELS_PATH);
  if (await session.preview(req)) return 0;
  const envelope = await withSpinner(env, opts.legacy ? 'POST payment-method-list' : 'GET payment-channels', async () => {
    try {
      return await session.send<unknown>(req);
    } catch (err) {
      // A gateway without the documented GET route: the older POST route the Go SDK uses.
      if (opts.legacy || !(err instanceof GatewayError) || (err.status !== 404 && err.status !== 405)) throw err;
      out.info(out.e.dim(`GET payment-channels answered ${err.status}; using POST payment-method-list`));
      return session.send<unknown>(await session.signed('POST', METHOD_LIST_PATH, '{"request":true}'));
    }
  });
  let rows = readChannels(envelope.Data);
  const cfg = await session.config();
  await writeChannelCache(channelCacheFile(cacheDir(env.ctx.env, env.ctx.homedir), cfg.env.value, cfg.baseUrl.value), rows, env.ctx.now()).catch(() => undefined);
  if (opts.method) {
    rows = rows.filter((r) => r.method === opts.method);
    if (rows.length === 0) throw new UsageError(`no channels for method "${opts.method}"`);
  }
  if (out.json) {
    out.data(rows);
    return 0;
  }
  out.out(table(rows.map((r) => [r.method, r.channel, r.name, describeFee(r, rupiah), r.status === 'active' && r.health === 'online' ? 'available' : `${r.status}/${r.health}`]), ['METHOD', 'CHANNEL', 'NAME', 'FEE', 'STATUS'], (s) => out.c.bold(s)));
  return 0;
};


// ── Definitions ─────────────────────────────────────────────────────────────────────────────────

const defineTransaction: Define = (program, bind) => {
  const transaction = typed(program)
    .command('transaction <id>')
    .description('the gateway\'s record of a transaction (by id, or by reference id): status (PaidStatus), amounts, dates (WIB), method, buyer')
    .option('--reference', 'the argument is a reference id even if it is all digits')
    .option('--wait', 'poll until a final state (paid, expired, cancelled, failed); exit 0 only if paid')
    .option('--interval <duration>', 'with --wait: time between checks (default 3s)')
    .option('--timeout <duration>', 'with --wait: give up after this long (default 15m; exit 5)')
    .option('--dry-run', 'print the signed request; send nothing')
    .option('--curl', 'print an equivalent curl command (secrets as $PAYCLI_* placeholders); send nothing');
  RUN_DURATION_TIMEOUT.add(transaction);
  bind(examples(transaction, ['paycli transaction 100001', 'paycli transaction PAYCLI-20261122072704-89e5', 'paycli --env local transaction 100001 --wait --interval 2s --timeout 10m', 'paycli transaction 100001 --json | jq -r .PaidStatus']), transactionCommand);
};

const defineHistory: Define = (program, bind) => {
  const history = typed(program)
    .command('history')
    .description('the merchant\'s transactions, newest first: filter by dates and status, page or --all')
    .option('--from <date>', 'first day (YYYY-MM-DD, WIB)')
    .option('--to <date>', 'last day (YYYY-MM-DD, WIB)')
    .option('--paid-date', '--from/--to select by payment date, not creation date')
    .option('--status <status>', 'pending, paid, paid-unsettled, expired, cancelled, refund, failed, or a code')
    .option('--limit <n>', 'transactions per page (1-20, default 20)')
    .option('--page <n>', 'the page to show (default 1)')
    .option('--order <order>', 'asc or desc (by id; default desc)')
    .option('--all', 'follow every page (NDJSON with --json)')
    .option('--csv', 'CSV for spreadsheets (header and one line per transaction)');
  bind(examples(apiFlags(history), ['paycli history', 'paycli history --from 2026-11-01 --to 2026-11-30 --status paid --all --csv > november.csv', 'paycli --env local history --all --json | jq -c "{id: .TransactionId, s: .PaidStatus}"']), historyCommand);
};

const defineBalance: Define = (program, bind) =>
  bind(examples(apiFlags(typed(program).command('balance').description('the merchant balance: available, and paid but still settling when the gateway says')), ['paycli balance', 'paycli --env local balance --json']), balanceCommand);

const defineChannels: Define = (program, bind) =>
  bind(
    examples(
      apiFlags(typed(program).command('channels').description('payment methods and channels with fees and availability (cached for pay)').option('--method <method>', 'only this method\'s channels').option('--legacy', 'use the older POST payment-method-list endpoint')),
      ['paycli channels', 'paycli --env local channels --method va --json', 'paycli channels --legacy'],
    ),
    channelsCommand,
  );

export const commands = { transaction: defineTransaction, history: defineHistory, balance: defineBalance, channels: defineChannels };
