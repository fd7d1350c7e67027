import { join } from 'node:path';
import { openDatabase, type Database } from '../db.js';
import type { MerchantLedger } from './state-api.js';
import { BulkLedger } from './state-bulk.js';
import { MIGRATIONS } from './state-schema.js';

export type {
  AttemptDetail,
  AttemptInfo,
  BulkExtra,
  Cursor,
  Delivery,
  DeliveryState,
  PageSnapshot,
  SeedPayment,
  ServiceRecords,
  Shipment,
  Transaction,
  TransferRefusal,
  TxnFilter,
  TxnOrder,
  TxnStatus,
} from './state-types.js';
export { SessionTaken, StoreError } from './state-types.js';
export type { MerchantLedger, SandboxLedger } from './state-api.js';

/**
 * The emulator's ledger: transactions, the callback outbox (deliveries and their attempts) and
 * redirect sessions, in SQLite (`DATA_DIR/ledger.db`, or in memory). Every change is one SQLite
 * transaction, committed (WAL, `synchronous = FULL`) before the method resolves, so a caller answers
 * only what a restart will find; a change that cannot be stored (a full disk, an I/O error) is rolled
 * back whole and throws a `StoreError` (the server answers 503). SQL stays in this module and its
 * parts (`state-*.ts`, one per record, each with its statements): callers see transactions,
 * deliveries, filters and cursors.
 */
export class SandboxState extends BulkLedger implements MerchantLedger {
  private constructor(db: Database, path: string) {
    super(db, path);
  }

  /** Opens (creating) the ledger of a data dir, or an in-memory one. */
  static async open(dataDir?: string, uid?: number): Promise<SandboxState> {
    const path = dataDir ? join(dataDir, 'ledger.db') : ':memory:';
    const db = await openDatabase(path, { what: 'the emulator ledger', migrations: MIGRATIONS, uid });
    return new SandboxState(db, path);
  }
}
