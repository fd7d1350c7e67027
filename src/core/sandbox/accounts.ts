import { readFile } from 'node:fs/promises';
import { UsageError } from '../errors.js';
import { EMULATOR_DEFAULT_API_KEY, EMULATOR_DEFAULT_VA } from '../config/resolve.js';
import { deepFreeze } from '../freeze.js';
import { isVaNumber } from '../va.js';

/** A merchant known to the emulator. */
export interface SandboxAccount {
  va: string;
  apiKey?: string;
  active: boolean;
  name: string;
  callbackFormat: 'form' | 'json';
  /** The gateway's private Close API is granted to this account (a 403 otherwise). */
  closeApi?: boolean;
  /** A child account (a child VA) of this merchant's VA: requests may name it as `account`. */
  parent?: string;
}

export const DEFAULT_ACCOUNT: SandboxAccount = deepFreeze({
  va: EMULATOR_DEFAULT_VA,
  apiKey: EMULATOR_DEFAULT_API_KEY,
  active: true,
  name: 'Paycli Sandbox Store',
  callbackFormat: 'form',
});

/** Reads `--accounts FILE`: a JSON array of {va, apiKey, active?, name?, callbackFormat?, closeApi?, parent?}. */
export async function readAccountsFile(path: string): Promise<SandboxAccount[]> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(path, 'utf8'));
  } catch (err) {
    throw new UsageError(`cannot read --accounts ${path}: ${(err as Error).message}`);
  }
  if (!Array.isArray(parsed)) throw new UsageError(`--accounts ${path} must be a JSON array of merchants`);
  return parsed.map((a: Record<string, unknown>, i) => {
    if (typeof a?.va !== 'string' || !isVaNumber(a.va)) throw new UsageError(`--accounts ${path}: entry ${i + 1} needs "va" (digits)`);
    const format = a.callbackFormat ?? 'form';
    if (format !== 'form' && format !== 'json')
      throw new UsageError(`--accounts ${path}: entry ${i + 1} has callbackFormat "${String(format)}" (form or json)`);
    if (a.parent !== undefined && (typeof a.parent !== 'string' || !parsed.some((p: Record<string, unknown>) => p?.va === a.parent) || a.parent === a.va)) {
      throw new UsageError(`--accounts ${path}: entry ${i + 1} has parent "${String(a.parent)}", not the VA of another entry`);
    }
    return {
      va: a.va,
      apiKey: typeof a.apiKey === 'string' && a.apiKey ? a.apiKey : undefined,
      active: a.active !== false,
      name: typeof a.name === 'string' ? a.name : `Merchant ${a.va}`,
      callbackFormat: format,
      ...(a.closeApi === true ? { closeApi: true } : {}),
      ...(typeof a.parent === 'string' ? { parent: a.parent } : {}),
    };
  });
}

/**
 * The account a request acts for: the caller, or one of its child accounts named in `account` (the
 * gateway's `account` field: "child VA"); another merchant's VA, or one it does not know, is the
 * gateway's `Invalid va`. Absent or empty: the caller.
 */
export function actingAccount(caller: SandboxAccount, requested: unknown, accounts: ReadonlyMap<string, SandboxAccount>): SandboxAccount | undefined {
  const va = typeof requested === 'string' ? requested.trim() : typeof requested === 'number' ? String(requested) : '';
  if (va === '' || va === caller.va) return caller;
  const child = accounts.get(va);
  return child?.parent === caller.va ? child : undefined;
}
