/** `paycli/sandbox`: the gateway emulator as a library for merchants' own test suites. */
import { startSandbox as startCore, type LockOwner, type SandboxHandle, type SandboxOptions } from './core/sandbox/server.js';

export { DEFAULT_RETRY_SCHEDULE, transactionView } from './core/sandbox/server.js';
export type { SandboxOptions, SandboxHandle, SandboxEvent, TransitionResult, ResendResult, LockOwner } from './core/sandbox/server.js';
export type { SandboxAccount } from './core/sandbox/accounts.js';
export { DEFAULT_ACCOUNT } from './core/sandbox/accounts.js';
export { EMULATOR_DEFAULT_VA, EMULATOR_DEFAULT_API_KEY } from './core/config/resolve.js';
export { MerchantApi } from './core/sandbox/merchant-api.js';
export type { RedirectSession } from './core/sandbox/merchant-api.js';
// The handle's clock and request log (`handle.clock`, `handle.requests`).
export { SandboxClock, type ClockResult } from './core/sandbox/clock.js';
export { RequestLog } from './core/sandbox/request-log.js';

/** This process as the holder of a data dir's lock: its pid (recorded for others to name) and its uid (must own the files). */
export function processLockOwner(): LockOwner {
  return { pid: process.pid, uid: process.getuid?.() };
}

/** Starts the emulator (see SandboxOptions); with a `dataDir`, this process holds its lock. */
export function startSandbox(options: SandboxOptions = {}): Promise<SandboxHandle> {
  return startCore({ lockOwner: processLockOwner(), ...options });
}
