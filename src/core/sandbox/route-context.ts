import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SandboxAccount } from './accounts.js';
import type { LifecycleAdminDeps } from './admin-lifecycle.js';
import type { SandboxClock } from './clock.js';
import type { DashboardContext } from './dashboard.js';
import type { MerchantApi } from './merchant-api.js';
import type { RegionIndex } from './regions.js';
import type { RequestLog } from './request-log.js';
import type { SandboxState } from './state.js';
import type { Transitions } from './transitions.js';

export interface RouteDeps {
  state: SandboxState;
  regions: RegionIndex;
  accounts: SandboxAccount[];
  transitions: Transitions;
  merchant: MerchantApi;
  now(): Date;
  clock: SandboxClock;
  requests: RequestLog;
  /** The dashboard's pages, or null when it is off. */
  dashboard: DashboardContext | null;
  /** Host names answered besides IP literals, localhost and `*.internal` (hostRefusal). */
  allowedHosts?: string[];
}

/** What the routes share: the emulator's parts, the accounts by VA, and the gateway's authentication. */
export interface RouteContext extends RouteDeps {
  byVa: Map<string, SandboxAccount>;
  lifecycle: LifecycleAdminDeps;
  /** Authenticates like the gateway (authenticate.ts), before any route logic: the account, or a 401 answered. */
  authenticated(req: IncomingMessage, signed: Buffer[], res: ServerResponse): SandboxAccount | undefined;
}
