import { countByKind, type Finding, type Reconciliation } from '../core/api/reconcile.js';
import { csvDocument } from '../core/csv.js';
import { SignatureError } from '../core/errors.js';
import type { Outcome } from './exit-codes.js';
import type { CommandEnv } from './command-env.js';

/** How `reconcile` (and `recover --orders`) show a reconciliation: a table, --json or --csv. */

/** What each kind of finding means, for the summary line. */
const KIND_TEXT: Record<Finding['kind'], string> = {
  'paid-locally-only': 'paid locally, not at the gateway (dangerous)',
  'paid-at-gateway': 'paid at the gateway, not locally (paycli recover)',
  'amount-mismatch': 'amount differs',
  'unknown-at-gateway': 'unknown at the gateway',
  'several-transactions': 'reference on several transactions',
  'repeated-row': 'repeated rows',
  'closed-at-gateway': 'final at the gateway, open locally',
};

/** A finding as a report row (the gateway's record left out). */
export function findingReport({ record: _r, ...f }: Finding): Omit<Finding, 'record'> {
  return f;
}

const CSV_HEADER = ['kind', 'lines', 'trx_id', 'reference_id', 'local', 'local_amount', 'gateway', 'gateway_amount', 'message'];

export function findingsCsv(findings: Finding[]): string {
  return csvDocument([
    CSV_HEADER,
    ...findings.map((f) => [f.kind, f.lines.join(' '), f.trxId, f.referenceId, f.local, f.localAmount, f.gateway, f.gatewayAmount, f.message]),
  ]);
}

/** Prints a reconciliation (table, --json or --csv); returns the outcome: ok when all agree, a check failure (exit 6) otherwise. */
export function renderReconciliation(env: CommandEnv, r: Reconciliation, csv: boolean): Outcome {
  const { out } = env;
  const counts = countByKind(r.findings);
  const agree = r.findings.length === 0;
  if (out.json) out.data({ agree, rows: r.rows, orders: r.orders, agreeing: r.agreeing, counts, findings: r.findings.map(findingReport) });
  else if (csv) out.records(findingsCsv(r.findings).replace(/\n$/, ''));
  else if (!agree) {
    const cut = (t: string, n: number) => (t.length > n ? `${t.slice(0, n - 1)}…` : t);
    // Fits 80 columns: KIND ≤ 20, LINE ≤ 8, TRX, REFERENCE ≤ 14, LOCAL ≤ 9, GATEWAY ≤ 14 (--json has everything).
    out.out(
      out.table(
        r.findings.map((f) => [
          f.kind,
          cut(f.lines.join(','), 8),
          f.trxId === undefined ? '-' : String(f.trxId),
          cut(f.referenceId ?? '-', 14),
          cut(f.local, 9),
          cut(f.gateway ?? '-', 14),
        ]),
        ['KIND', 'LINE', 'TRX', 'REFERENCE', 'LOCAL', 'GATEWAY'],
        (s) => out.c.bold(s),
      ),
    );
    for (const f of r.findings) out.info(out.e.dim(`  ${f.message}`));
  }
  if (agree) {
    out.info(`all ${r.orders} orders agree with the gateway`);
    return 'ok';
  }
  const parts = (Object.keys(counts) as Finding['kind'][]).filter((k) => counts[k] > 0).map((k) => `${counts[k]} ${KIND_TEXT[k]}`);
  return out.fail(
    new SignatureError(
      `${r.orders - r.agreeing} of ${r.orders} orders disagree with the gateway: ${parts.join('; ')}`,
      counts['paid-at-gateway'] > 0
        ? { hint: 'paycli recover --orders FILE --deliver-to URL re-delivers the callbacks of orders paid at the gateway' }
        : undefined,
    ),
  );
}
