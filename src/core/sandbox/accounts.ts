import { readFile } from 'node:fs/promises';
import { UsageError } from '../errors.js';
import { EMULATOR_DEFAULT_API_KEY, EMULATOR_DEFAULT_VA } from '../config/resolve.js';
import { deepFreeze } from '../freeze.js';

/** A merchant known to the emulator. */
export interface SandboxAccount {
  va: string;
  apiKey?: string;
  active: boolean;
  name: string;
  callbackFormat: 'form' | 'json';
}

export const DEFAULT_ACCOUNT: SandboxAccount = deepFreeze({ va: EMULATOR_DEFAULT_VA, apiKey: EMULATOR_DEFAULT_API_KEY, active: true, name: 'Paycli Sandbox Store', callbackFormat: 'form' });

/** Reads `--accounts FILE`: a JSON array of {va, apiKey, active?, name?, callbackFormat?}. */
export async function readAccountsFile(path: string): Promise<SandboxAccount[]> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(path, 'utf8'));
  } catch (err) {
    throw new UsageError(`cannot read --accounts ${path}: ${(err as Error).message}`);
  }
  if (!Array.isArray(parsed)) throw new UsageError(`--accounts ${path} must be a JSON array of merchants`);
  return parsed.map((a: Record<string, unknown>, i) => {
    if (typeof a?.va !== 'string' || !/^\d{4,32}$/.test(a.va)) throw new UsageError(`--accounts ${path}: entry ${i + 1} needs "va" (digits)`);
    const format = a.callbackFormat ?? 'form';
    if (format !== 'form' && format !== 'json') throw new UsageError(`--accounts ${path}: entry ${i + 1} has callbackFormat "${String(format)}" (form or json)`);
    return {
      va: a.va,
      apiKey: typeof a.apiKey === 'string' && a.apiKey ? a.apiKey : undefined,
      active: a.active !== false,
      name: typeof a.name === 'string' ? a.name : `Merchant ${a.va}`,
      callbackFormat: format,
    };
  });
}
