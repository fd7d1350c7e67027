/** `paycli/sandbox`: the gateway emulator as a library for merchants' own test suites. */
import { startSandbox as startCore, type LockOwner, type SandboxHandle, type SandboxOptions } from './core/sandbox/server.js';
import { ledgerView } from './core/sandbox/state-api.js';
import { processAlive } from './process-alive.js';

export { DEFAULT_RETRY_SCHEDULE, transactionView } from './core/sandbox/server.js';
export type { SandboxOptions, SandboxHandle, SandboxEvent, TransitionResult, ResendResult, LockOwner } from './core/sandbox/server.js';
export type { SandboxAccount } from './core/sandbox/accounts.js';
export { DEFAULT_ACCOUNT } from './core/sandbox/accounts.js';
export { EMULATOR_DEFAULT_VA, EMULATOR_DEFAULT_API_KEY } from './core/config/resolve.js';
export { MerchantApi } from './core/sandbox/merchant-api.js';
export type { RedirectSession } from './core/sandbox/merchant-api.js';
// The ledger as `handle.state` shows it (read-only), and its records.
export type { SandboxLedger } from './core/sandbox/state-api.js';
export type {
  AttemptDetail,
  AttemptInfo,
  Cursor,
  Delivery,
  DeliveryState,
  PageSnapshot,
  Shipment,
  Transaction,
  TxnFilter,
  TxnOrder,
  TxnStatus,
} from './core/sandbox/state-types.js';
export type { Member, PickupRequest, ShipmentEvent, ShipmentStage, Transfer } from './core/sandbox/records.js';
// The handle's clock and request log (`handle.clock`, `handle.requests`).
export { SandboxClock, type ClockResult } from './core/sandbox/clock.js';
export { RequestLog } from './core/sandbox/request-log.js';

/** This process as the holder of a data dir's lock: its pid (recorded for others to name) and its uid (must own the files). */
export function processLockOwner(): LockOwner {
  return { pid: process.pid, uid: process.getuid?.(), alive: processAlive };
}

/**
 * Starts the emulator (see SandboxOptions); with a `dataDir`, this process holds its lock. The
 * handle's `state` is the ledger's read-only view (SandboxLedger).
 */
export async function startSandbox(options: SandboxOptions = {}): Promise<SandboxHandle> {
  const handle = await startCore({ lockOwner: processLockOwner(), ...options });
  return { ...handle, state: ledgerView(handle.state) };
}
