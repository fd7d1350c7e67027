import { join } from 'node:path';
import { dataDir } from '../../core/config/paths.js';
import { UsageError } from '../../core/errors.js';
import type { CommandEnv } from '../command-env.js';
import { SANDBOX_ENV } from '../sandbox-service.js';

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

/** The variable of the running emulator's address (`paycli sandbox env` sets it). */
export const SANDBOX_URL_ENV = 'PAYCLI_SANDBOX_URL';

/**
 * The emulator's data dir: --data-dir, else PAYCLI_SANDBOX_DATA_DIR (an empty variable counts as
 * unset), else the default under the XDG data home.
 */
export function sandboxDir(env: CommandEnv<SandboxFlags>): string {
  return env.opts.dataDir ?? (env.ctx.env[SANDBOX_ENV.dataDir] || join(dataDir(env.ctx.env, env.ctx.homedir), 'sandbox'));
}

/**
 * Whether a ledger subcommand that takes both --sandbox-url and --data-dir (seed, export, reset)
 * goes through the running emulator (true) or opens a stopped one's data dir (false): a flag
 * first, then PAYCLI_SANDBOX_URL or PAYCLI_SANDBOX_DATA_DIR, else the default data dir. Both flags,
 * or (without a flag) both variables, are refused: a reset must never guess which ledger it empties.
 */
export function throughEmulator(env: CommandEnv<SandboxFlags>): boolean {
  const { sandboxUrl, dataDir: dir } = env.opts;
  if (sandboxUrl !== undefined && dir !== undefined)
    throw new UsageError("--sandbox-url and --data-dir exclude each other: a running emulator, or a stopped one's data dir");
  if (sandboxUrl !== undefined) return true;
  if (dir !== undefined) return false;
  const url = env.ctx.env[SANDBOX_URL_ENV];
  if (url && env.ctx.env[SANDBOX_ENV.dataDir])
    throw new UsageError(`both ${SANDBOX_URL_ENV} and ${SANDBOX_ENV.dataDir} are set: say which ledger with --sandbox-url or --data-dir`, {
      hint: `--sandbox-url for the running emulator at ${url}, --data-dir for a stopped one's data dir`,
    });
  return Boolean(url);
}
