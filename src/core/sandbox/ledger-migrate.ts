import { rename, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fsError } from '../fs-errors.js';
import { readLedgerJsonl } from './ledger-jsonl.js';
import type { SandboxState, ServiceRecords } from './state.js';

const MIGRATED_MARK = 'imported journal.jsonl';

/**
 * A data dir written before the ledger moved to SQLite: its `journal.jsonl` (and `redirects.jsonl`) are
 * imported once, in one transaction, and kept beside the ledger renamed `*.jsonl.migrated`. A crash
 * between the commit and the rename is recognised by the marker the import stores with the data.
 */
export async function migrateOlderJournal(state: SandboxState, dir: string): Promise<{ imported: number; skipped: number } | undefined> {
  const journal = join(dir, 'journal.jsonl');
  const redirects = join(dir, 'redirects.jsonl');
  const exists = async (p: string) =>
    stat(p).then(
      () => true,
      () => false,
    );
  if (!(await exists(journal)) && !(await exists(redirects))) return undefined;
  let result = { imported: 0, skipped: 0 };
  if (!state.marked(MIGRATED_MARK)) {
    const parts = await Promise.all([journal, redirects].map(async (p) => ((await exists(p)) ? readLedgerJsonl(p) : undefined)));
    const payments = parts.flatMap((p) => p?.payments ?? []);
    const sessions = parts.flatMap((p) => p?.sessions ?? []);
    const reserve = {
      txnId: Math.max(0, ...parts.map((p) => p?.reserve.txnId ?? 0)),
      deliverySeq: Math.max(0, ...parts.map((p) => p?.reserve.deliverySeq ?? 0)),
      memberSeq: Math.max(0, ...parts.map((p) => p?.reserve.memberSeq ?? 0)),
    };
    const records: ServiceRecords = {
      steps: parts.flatMap((p) => p?.records.steps ?? []),
      pickups: parts.flatMap((p) => p?.records.pickups ?? []),
      transfers: parts.flatMap((p) => p?.records.transfers ?? []),
      members: parts.flatMap((p) => p?.records.members ?? []),
    };
    const imported = state.bulk(payments, { sessions, reserve, records, mark: MIGRATED_MARK });
    result = { imported, skipped: parts.reduce((n, p) => n + (p?.skipped ?? 0), 0) };
  }
  for (const p of [journal, redirects]) if (await exists(p)) await rename(p, `${p}.migrated`).catch((err: unknown) => Promise.reject(fsError(err, p)));
  return result;
}
