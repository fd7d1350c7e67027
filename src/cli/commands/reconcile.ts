import { reconcile } from '../../core/api/reconcile.js';
import { UsageError } from '../../core/errors.js';
import type { Handler } from '../command-env.js';
import { gatewayRecordsFor, readOrdersFile } from '../gateway-records.js';
import { renderReconciliation } from '../reconcile-report.js';
import { withSpinner } from '../spinner.js';
import { examples, type Define } from '../command-kit.js';
import { topCommand } from './heads.js';

interface ReconcileFlags {
  orders?: string;
  csv?: boolean;
}

/**
 * `paycli reconcile --orders FILE`: the merchant's orders (CSV, JSON lines or a JSON array) against
 * the gateway's records; every discrepancy named by its kind. Exit 0 only when all agree, 6 otherwise.
 */
export const reconcileCommand: Handler<ReconcileFlags> = async (env) => {
  const { opts, out } = env;
  if (!opts.orders) throw new UsageError('give --orders FILE (CSV, JSON lines or a JSON array; - for stdin)');
  if (opts.csv && out.json) throw new UsageError('choose one of --csv and --json');
  const orders = await readOrdersFile(env, opts.orders);
  const records = await withSpinner(env, `checking ${orders.length} orders with the gateway`, () => gatewayRecordsFor(env, orders));
  return renderReconciliation(env, reconcile(orders, records), Boolean(opts.csv));
};

// ── Definition ──────────────────────────────────────────────────────────────────────────────────

const defineReconcile: Define = (program, bind) => {
  bind(
    examples(
      topCommand(program, 'reconcile')
        .option('--orders <file>', 'your orders: CSV, JSON lines or a JSON array with reference_id or trx_id, status and amount (- for stdin)')
        .option('--csv', 'the findings as CSV (one line per finding)'),
      [
        'paycli reconcile --orders orders.csv',
        'paycli reconcile --orders orders.json --json | jq .counts',
        'paycli reconcile --orders orders.jsonl --csv > findings.csv',
      ],
    ),
    reconcileCommand,
  );
};

export const commands = { reconcile: defineReconcile };
