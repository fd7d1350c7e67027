import { readFile } from 'node:fs/promises';
import {
  checkHistoryData,
  checkTransactionData,
  encodeHistoryBody,
  encodeTransactionBody,
  HISTORY_PATH,
  readHistory,
  TRANSACTION_PATH,
  type HistoryRequest,
  type TransactionRecord,
} from '../core/api/merchant.js';
import { readOrders, type Order } from '../core/api/orders.js';
import { lookupsFor, type GatewayRecords } from '../core/api/reconcile.js';
import { GatewayError, UsageError } from '../core/errors.js';
import type { CommandEnv } from './command-env.js';

/**
 * The gateway's records as `reconcile` and `recover` read them: check transaction for one id, the
 * history's every page, and the orders file. Shell side of src/core/api/reconcile.ts.
 */

/** Check transaction's record; undefined when the gateway does not know the id (404). */
export async function lookupTransaction(env: CommandEnv, id: number): Promise<TransactionRecord | undefined> {
  const req = await env.session.signed('POST', TRANSACTION_PATH, encodeTransactionBody(String(id)));
  try {
    const d = (await env.session.send<TransactionRecord>(req, { checkData: checkTransactionData })).Data;
    return { ...d, TransactionId: Number(d.TransactionId), Status: Number(d.Status) };
  } catch (err) {
    if (err instanceof GatewayError && err.status === 404) return undefined;
    throw err;
  }
}

/** Every transaction of a history query (all pages; repeats from shifting pages skipped). */
export async function historyAll(env: CommandEnv, query: Omit<HistoryRequest, 'page' | 'limit'> = {}): Promise<TransactionRecord[]> {
  const out = new Map<number, TransactionRecord>();
  for (let page = 1; ; page++) {
    const req = await env.session.signed('POST', HISTORY_PATH, encodeHistoryBody({ ...query, page, limit: 20 }));
    const h = readHistory((await env.session.send<unknown>(req, { checkData: checkHistoryData })).Data);
    for (const r of h.transactions) if (!out.has(r.TransactionId)) out.set(r.TransactionId, r);
    if (page >= h.totalPages || h.transactions.length === 0) break;
  }
  return [...out.values()];
}

/** Fetches what `reconcile` compares the orders with: each trx id's record, and history by reference. */
export async function gatewayRecordsFor(env: CommandEnv, orders: Order[]): Promise<GatewayRecords> {
  const { trxIds, needHistory } = lookupsFor(orders);
  const byTrx = new Map<number, TransactionRecord | undefined>();
  const byRef = new Map<string, TransactionRecord[]>();
  for (const id of trxIds) byTrx.set(id, await lookupTransaction(env, id));
  if (needHistory) {
    const wanted = new Set(orders.filter((o) => o.trxId === undefined).map((o) => o.referenceId!));
    for (const r of await historyAll(env)) {
      const ref = r.ReferenceId === null || r.ReferenceId === undefined ? '' : String(r.ReferenceId);
      if (!wanted.has(ref)) continue;
      const list = byRef.get(ref);
      if (list) list.push(r);
      else byRef.set(ref, [r]);
    }
    // History rows may be shorter than check transaction's: the full record of each.
    for (const list of byRef.values())
      for (const r of list) if (!byTrx.has(r.TransactionId)) byTrx.set(r.TransactionId, (await lookupTransaction(env, r.TransactionId)) ?? r);
  }
  return { byTrx, byRef };
}

/** Reads and parses `--orders FILE` (- for stdin). */
export async function readOrdersFile(env: CommandEnv, file: string): Promise<Order[]> {
  let text: string;
  try {
    if (file === '-') {
      const chunks: Buffer[] = [];
      for await (const c of env.ctx.stdin) chunks.push(Buffer.isBuffer(c) ? c : Buffer.from(String(c)));
      text = Buffer.concat(chunks).toString('utf8');
    } else text = await readFile(file, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read --orders ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  const orders = readOrders(text, file === '-' ? 'stdin' : file);
  if (orders.length === 0) throw new UsageError(`--orders ${file} has no orders`);
  return orders;
}
