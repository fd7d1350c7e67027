import type { LiveHub } from '../dashboard/html.js';
import type { SandboxState, Transaction } from './state.js';

/** What the emulator's dashboard pages share: where they live, and what they are given. */

/** Where the dashboard lives on the emulator: the list at `/`, the rest under `/dashboard/`. */
export const DASHBOARD_EVENTS = '/dashboard/events';
export const TRX_PAGE = /^\/dashboard\/trx\/(\d+)\/?$/;
/** Rows on one page of the list (newest first; "older" pages on by id). */
export const LIST_LIMIT = 100;
export const REQUESTS_PAGE = '/dashboard/requests';

/** Whether a path is one of the dashboard's (not logged as API traffic). */
export function isDashboardPath(path: string): boolean {
  return path === '/' || path.startsWith('/dashboard/');
}

export interface DashboardContext {
  state: SandboxState;
  merchantName: (t: Transaction) => string;
  now: () => number;
  hub: LiveHub;
  /** The API's recent requests (the Requests page). */
  requests?: import('./request-log.js').RequestLog;
  /** `Data` of check transaction for a transaction, as the API answers it (MerchantApi.record). */
  checkTransaction: (t: Transaction) => Record<string, unknown>;
}
