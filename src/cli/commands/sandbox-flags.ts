import { join } from 'node:path';
import { dataDir } from '../../core/config/paths.js';
import type { CommandEnv } from '../command-env.js';

/** Every flag of `paycli sandbox` and its subcommands. */
export interface SandboxFlags {
  port?: string;
  allowHost?: string[];
  host?: string;
  dataDir?: string;
  inMemory?: boolean;
  callbackFormat?: string;
  retrySchedule?: string;
  accounts?: string;
  faults?: string;
  settlement?: 'immediate' | 'deferred';
  sandboxUrl?: string;
  limit?: string;
  status?: string;
  all?: boolean;
  payments?: string;
  paid?: string;
  days?: string;
  yes?: boolean;
  /** False with --no-dashboard. */
  dashboard?: boolean;
  readyFile?: string;
  shell?: 'sh' | 'fish';
}

/** The emulator's data dir: --data-dir, or the default under the XDG data home. */
export function sandboxDir(env: CommandEnv<SandboxFlags>): string {
  return env.opts.dataDir ?? join(dataDir(env.ctx.env, env.ctx.homedir), 'sandbox');
}
