import {
  checkDate,
  checkHistoryData,
  encodeHistoryBody,
  HISTORY_CSV_COLUMNS,
  historyCsvCells,
  HISTORY_PATH,
  parseStatusFilter,
  readHistory,
  type HistoryRequest,
  type TransactionRecord,
} from '../../core/api/merchant.js';
import { csvRecord } from '../../core/csv.js';
import { UsageError } from '../../core/errors.js';
import type { Handler } from '../command-env.js';
import { gatewayText, statusWord } from '../gateway-text.js';
import { rupiah } from '../output.js';
import { withSpinner } from '../spinner.js';
import { wholeNumberFlag } from '../flag-values.js';
import { apiFlags, examples, type Define } from '../command-kit.js';
import { topCommand } from './heads.js';

const positiveInt = (v: string | undefined, flag: string, max?: number) => wholeNumberFlag(v, flag, 1, max);

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
  type?: string;
  ids?: string;
  locked?: boolean;
  unlocked?: boolean;
  orderBy?: string;
  lang?: string;
  account?: string;
}

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
    ...historyFilters(opts),
    order: order as 'ASC' | 'DESC' | undefined,
  };
  if (request.from && request.to && request.from > request.to) throw new UsageError(`--from ${request.from} is after --to ${request.to}`);
  const first = await session.signed('POST', HISTORY_PATH, encodeHistoryBody(request));
  if (await session.preview(first)) return 'ok';
  const rows: TransactionRecord[] = [];
  let page = request.page!;
  let pages = 1;
  let total = 0;
  const seen = new Set<number>();
  // A server that pages by a stable key (paycli's emulator) names the next page: no row is skipped or
  // repeated while statuses change. Otherwise pages are numbered, and repeats are dropped.
  let cursor: string | undefined;
  if (opts.csv) out.records(csvRecord(HISTORY_CSV_COLUMNS));
  for (;;) {
    const req =
      page === request.page ? first : await session.signed('POST', HISTORY_PATH, encodeHistoryBody({ ...request, page, ...(cursor ? { cursor } : {}) }));
    const envelope = await withSpinner(env, `history page ${page}${pages > 1 ? ` of ${pages}` : ''}`, () =>
      session.send<unknown>(req, { checkData: checkHistoryData }),
    );
    const h = readHistory(envelope.Data);
    pages = h.totalPages;
    total = h.total;
    for (const r of h.transactions) {
      if (opts.all && seen.has(r.TransactionId)) continue; // a new payment shifts pages under --all: skip repeats
      seen.add(r.TransactionId);
      if (opts.csv) out.records(csvRecord(historyCsvCells(r)));
      else if (opts.all && out.json) out.data(r, false);
      else rows.push(r);
    }
    if (!opts.all || h.transactions.length === 0) break;
    cursor = h.nextCursor;
    if (cursor === undefined && page >= pages) break;
    page++;
  }
  if (opts.csv || (opts.all && out.json)) return 'ok';
  if (out.json) {
    out.data({ transactions: rows, page: request.page, totalPages: pages, total });
    return 'ok';
  }
  if (rows.length === 0) {
    out.info('no transactions match');
    return 'ok';
  }
  const body = rows.map((r) => [
    String(r.TransactionId),
    gatewayText(r.CreatedDate).slice(0, 16),
    statusWord(r),
    gatewayText(r.PaymentChannel ?? r.Channel),
    rupiah(Number(r.Amount ?? 0)),
    gatewayText(r.ReferenceId),
  ]);
  out.out(out.table(body, ['ID', 'CREATED (WIB)', 'STATUS', 'CHANNEL', 'AMOUNT', 'REFERENCE'], (s) => out.c.bold(s)));
  out.info(
    out.e.dim(
      opts.all
        ? `${rows.length} transactions`
        : `page ${request.page} of ${pages} · ${total} transactions${request.page! < pages ? ` · --page ${request.page! + 1} or --all for more` : ''}`,
    ),
  );
  return 'ok';
};

/** The filters of section "History" beyond dates and status: --type, --ids, --locked, --order-by, --lang, --account. */
function historyFilters(opts: HistoryFlags): Partial<HistoryRequest> {
  const f: Partial<HistoryRequest> = {};
  if (opts.type !== undefined) {
    if (!/^\d{1,3}$/.test(opts.type)) throw new UsageError(`invalid --type "${opts.type}": a type code (7 VA/bank transfer, 10 COD, 11 convenience store, …)`);
    f.type = Number(opts.type);
  }
  if (opts.ids !== undefined) {
    const ids = opts.ids
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    if (ids.length === 0 || ids.some((s) => !/^\d{1,15}$/.test(s))) throw new UsageError(`invalid --ids "${opts.ids}": transaction ids joined by commas`);
    f.ids = ids.map(Number);
  }
  if (opts.locked && opts.unlocked) throw new UsageError('choose one of --locked and --unlocked');
  if (opts.locked || opts.unlocked) f.locked = opts.locked === true;
  if (opts.orderBy !== undefined) {
    const by = { id: 'id', created: 'created_at', created_at: 'created_at', paid: 'indate', indate: 'indate' }[
      opts.orderBy.toLowerCase()
    ] as HistoryRequest['orderBy'];
    if (!by) throw new UsageError(`invalid --order-by "${opts.orderBy}" (id, created or paid)`);
    f.orderBy = by;
  }
  if (opts.lang !== undefined) {
    if (opts.lang !== 'id' && opts.lang !== 'en') throw new UsageError(`invalid --lang "${opts.lang}" (id or en)`);
    f.lang = opts.lang;
  }
  if (opts.account !== undefined) f.account = opts.account;
  return f;
}

// ── Definitions ─────────────────────────────────────────────────────────────────────────────────

const defineHistory: Define = (program, bind) => {
  const history = topCommand(program, 'history')
    .option('--from <date>', 'first day (YYYY-MM-DD, WIB)')
    .option('--to <date>', 'last day (YYYY-MM-DD, WIB)')
    .option('--paid-date', '--from/--to select by payment date, not creation date')
    .option('--status <status>', 'pending, berhasil|paid, unsettled, expired, batal|cancelled, refund, error, gagal|failed, escrow, or a code')
    .option('--limit <n>', 'transactions per page (1-20, default 20)')
    .option('--page <n>', 'the page to show (default 1)')
    .option('--order <order>', 'asc or desc (default desc)')
    .option('--order-by <field>', 'id (default), created or paid')
    .option('--type <code>', 'only this type (7 VA/bank transfer, 10 COD, 11 convenience store, …)')
    .option('--ids <list>', 'only these transaction ids, joined by commas')
    .option('--locked', 'only locked transactions')
    .option('--unlocked', 'only unlocked transactions')
    .option('--lang <lang>', "the gateway's words (StatusDesc) in id or en")
    .option('--account <va>', 'a child account (child VA) of yours: its history')
    .option('--all', 'follow every page (NDJSON with --json)')
    .option('--csv', 'CSV for spreadsheets (header and one line per transaction)');
  bind(
    examples(apiFlags(history), [
      'paycli history',
      'paycli history --from 2026-11-01 --to 2026-11-30 --status paid --all --csv > november.csv',
      'paycli --env local history --all --json | jq -c "{id: .TransactionId, s: .PaidStatus}"',
    ]),
    historyCommand,
  );
};

export const commands = { history: defineHistory };
