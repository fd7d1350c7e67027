/** `paycli/sandbox`: the gateway emulator as a library for merchants' own test suites. */
export { startSandbox, DEFAULT_RETRY_SCHEDULE, transactionView } from './core/sandbox/server.js';
export type { SandboxOptions, SandboxHandle, SandboxEvent, TransitionResult } from './core/sandbox/server.js';
export type { SandboxAccount } from './core/sandbox/accounts.js';
export { DEFAULT_ACCOUNT } from './core/sandbox/accounts.js';
export { EMULATOR_DEFAULT_VA, EMULATOR_DEFAULT_API_KEY } from './core/config/resolve.js';
export { MerchantApi } from './core/sandbox/merchant-api.js';
export type { RedirectSession } from './core/sandbox/merchant-api.js';
