import { isPaidStatus, STATUS_WORDS, type TransactionRecord } from './merchant.js';
import type { Order } from './orders.js';

/**
 * `paycli reconcile`: the merchant's orders against the gateway's records (check transaction and
 * history), every disagreement named by its class. Pure: the caller fetches the records first
 * (`lookupsFor` says which), then `reconcile` compares.
 */

export type FindingKind =
  /** Paid at the gateway, unpaid (or closed) in the merchant's orders: a lost callback; `recover` re-delivers it. */
  | 'paid-at-gateway'
  /** Paid in the merchant's orders, not at the gateway: a forged or misread callback. The dangerous one. */
  | 'paid-locally-only'
  /** The order's amount differs from the gateway's. */
  | 'amount-mismatch'
  /** The gateway has no transaction for the row's trx id or reference. */
  | 'unknown-at-gateway'
  /** One reference on several gateway transactions (a payment made twice, or a reused reference). */
  | 'several-transactions'
  /** The same order on more than one row of the file. */
  | 'repeated-row'
  /** Unpaid in the orders, final but unpaid at the gateway (expired, cancelled, failed…): close the order. */
  | 'closed-at-gateway';

export const FINDING_KINDS: readonly FindingKind[] = [
  'paid-locally-only',
  'paid-at-gateway',
  'amount-mismatch',
  'unknown-at-gateway',
  'several-transactions',
  'repeated-row',
  'closed-at-gateway',
];

export interface Finding {
  kind: FindingKind;
  /** Lines of the orders file the finding is about (several for a repeated row). */
  lines: number[];
  trxId?: number;
  referenceId?: string;
  local: string;
  localAmount?: number;
  /** The gateway's status word (`paid`, `pending`, `expired`, …), when it knows the transaction. */
  gateway?: string;
  gatewayAmount?: number;
  message: string;
  /** The gateway's record, for `recover` to rebuild the callback from (left out of reports). */
  record?: TransactionRecord;
}

export interface Reconciliation {
  /** Rows in the file. */
  rows: number;
  /** Distinct orders compared (repeated rows counted once). */
  orders: number;
  findings: Finding[];
  /** Orders on which the gateway and the merchant agree. */
  agreeing: number;
}

/** What the caller must fetch: check transaction for these ids; history (all of it) when references are used. */
export function lookupsFor(orders: Order[]): { trxIds: number[]; needHistory: boolean } {
  const ids = new Set<number>();
  let needHistory = false;
  for (const o of orders) {
    if (o.trxId !== undefined) ids.add(o.trxId);
    else needHistory = true;
  }
  return { trxIds: [...ids], needHistory };
}

export interface GatewayRecords {
  /** Check transaction's record per trx id; absent or undefined: unknown to the gateway. */
  byTrx: Map<number, TransactionRecord | undefined>;
  /** History's transactions per reference (every one, newest first). */
  byRef: Map<string, TransactionRecord[]>;
}

/** The word for a gateway status: `paid`, `paid-unsettled`, `escrow`, `pending`, `expired`, `cancelled`, … */
export function gatewayWord(r: TransactionRecord): string {
  return STATUS_WORDS[String(r.Status)] ?? (isPaidStatus(r.Status, r.PaidStatus) ? 'paid' : `status ${r.Status}`);
}

const keyOf = (o: Order) => (o.trxId !== undefined ? `trx:${o.trxId}` : `ref:${o.referenceId}`);
const what = (o: Order) => (o.trxId !== undefined ? `trx ${o.trxId}` : `reference ${o.referenceId}`);

/** Groups repeated rows (same trx id, or same reference without a trx id) and compares each order once. */
export function reconcile(orders: Order[], gw: GatewayRecords): Reconciliation {
  const findings: Finding[] = [];
  const groups = new Map<string, Order[]>();
  for (const o of orders) {
    const k = keyOf(o);
    const g = groups.get(k);
    if (g) g.push(o);
    else groups.set(k, [o]);
  }
  let agreeing = 0;
  for (const group of groups.values()) {
    const o = group[0]!;
    const base = { lines: [o.line], trxId: o.trxId, referenceId: o.referenceId, local: o.status || o.state, localAmount: o.amount };
    let agrees = true;
    if (group.length > 1) {
      agrees = false;
      const differ = group.some((x) => x.state !== o.state || x.amount !== o.amount);
      findings.push({
        ...base,
        kind: 'repeated-row',
        lines: group.map((x) => x.line),
        message: `${what(o)} is on ${group.length} rows (lines ${group.map((x) => x.line).join(', ')})${differ ? ' that disagree with each other; each variant is compared' : '; compared once'}`,
      });
    }
    let record: TransactionRecord | undefined;
    if (o.trxId !== undefined) record = gw.byTrx.get(o.trxId);
    else {
      const all = gw.byRef.get(o.referenceId!) ?? [];
      if (all.length > 1) {
        agrees = false;
        const ids = all.map((r) => r.TransactionId);
        findings.push({
          ...base,
          kind: 'several-transactions',
          message: `reference ${o.referenceId} is on ${all.length} gateway transactions (${ids.join(', ')}): ${all.map((r) => `${r.TransactionId} ${gatewayWord(r)}`).join(', ')}`,
        });
      }
      // The one that decides: a paid one if any (money moved), else the newest.
      record = all.find((r) => isPaidStatus(r.Status, r.PaidStatus)) ?? all[0];
      if (record) record = gw.byTrx.get(record.TransactionId) ?? record;
    }
    if (!record) {
      findings.push({ ...base, kind: 'unknown-at-gateway', message: `line ${o.line}: ${what(o)} is unknown to the gateway` });
      continue;
    }
    // Repeated rows that disagree with each other are each compared (one of them may be the dangerous one).
    const variants = group.filter((x, i) => group.findIndex((y) => y.state === x.state && y.amount === x.amount) === i);
    for (const v of variants) if (!compare(v, record, findings)) agrees = false;
    if (agrees) agreeing++;
  }
  return { rows: orders.length, orders: groups.size, findings, agreeing };
}

/** Compares one row with the gateway's record; false (and findings) when they disagree. */
function compare(o: Order, record: TransactionRecord, findings: Finding[]): boolean {
  const full = {
    lines: [o.line],
    trxId: record.TransactionId,
    referenceId: o.referenceId ?? (record.ReferenceId ? String(record.ReferenceId) : undefined),
    local: o.status || o.state,
    localAmount: o.amount,
    gateway: gatewayWord(record),
    gatewayAmount: Number(record.Amount ?? 0),
    record,
  };
  const before = findings.length;
  const paidThere = isPaidStatus(record.Status, record.PaidStatus);
  if (paidThere && o.state !== 'paid') {
    findings.push({
      ...full,
      kind: 'paid-at-gateway',
      message: `line ${o.line}: ${what(o)} is ${full.gateway} at the gateway but "${full.local}" in your orders${o.state === 'unpaid' ? ' (recover can re-deliver its callback)' : ''}`,
    });
  } else if (!paidThere && o.state === 'paid') {
    findings.push({
      ...full,
      kind: 'paid-locally-only',
      message: `line ${o.line}: ${what(o)} is "${full.local}" in your orders but ${full.gateway} at the gateway: find which callback marked it paid`,
    });
  } else if (!paidThere && o.state === 'unpaid' && record.Status !== 0) {
    findings.push({
      ...full,
      kind: 'closed-at-gateway',
      message: `line ${o.line}: ${what(o)} is ${full.gateway} at the gateway but "${full.local}" in your orders`,
    });
  }
  if (o.amount !== undefined && o.amount !== full.gatewayAmount) {
    findings.push({
      ...full,
      kind: 'amount-mismatch',
      message: `line ${o.line}: ${what(o)} is Rp ${o.amount} in your orders but Rp ${full.gatewayAmount} at the gateway`,
    });
  }
  return findings.length === before;
}

/** Findings per kind, every kind present (0 when none). */
export function countByKind(findings: Finding[]): Record<FindingKind, number> {
  const counts = Object.fromEntries(FINDING_KINDS.map((k) => [k, 0])) as Record<FindingKind, number>;
  for (const f of findings) counts[f.kind]++;
  return counts;
}
