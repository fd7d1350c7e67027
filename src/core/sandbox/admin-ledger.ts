import type { IncomingMessage, ServerResponse } from 'node:http';
import { readSeedSpec, seedLedger, sendExport } from './bulk.js';
import { resetSandbox, type SandboxClock } from './clock.js';
import type { SandboxState } from './state.js';
import { postAllowed, sendJson } from './views.js';

export interface LedgerAdminDeps {
  state: SandboxState;
  /** The merchant seeded history is made for (the first account). */
  va: string;
  merchantName: string;
  now(): Date;
  /** The running emulator's clock (a reset sets it back to real time unless `?keep-clock=1`). */
  clock?: SandboxClock;
}

/**
 * The admin API's routes over the whole ledger (routes.ts, `admin`): `GET /_sandbox/export`, and
 * `POST /_sandbox/seed` and `/_sandbox/reset` (same-site only). False when the path is none of them.
 */
export async function ledgerAdmin(d: LedgerAdminDeps, req: IncomingMessage, url: URL, method: string, res: ServerResponse): Promise<boolean> {
  const path = url.pathname;
  if (path === '/_sandbox/export' && method === 'GET') {
    await sendExport(res, d.state);
    return true;
  }
  if (path !== '/_sandbox/seed' && path !== '/_sandbox/reset') return false;
  if (!postAllowed(req, method, res)) return true;
  if (path === '/_sandbox/reset') {
    const r = await resetSandbox(d.state, d.clock, url.searchParams.get('keep-clock') === '1');
    sendJson(res, 200, { ok: true, ...r });
    return true;
  }
  const spec = readSeedSpec(Object.fromEntries(url.searchParams));
  if (!spec.ok) {
    sendJson(res, 400, { ok: false, error: spec.error });
    return true;
  }
  // In batches, yielding between them: the emulator keeps answering while it seeds.
  const seeded = await seedLedger(
    d.state,
    { ...spec.spec, va: d.va, merchantName: d.merchantName, now: d.now().getTime() },
    { batch: 2000, yieldBetween: true },
  );
  sendJson(res, 200, { ok: true, seeded });
  return true;
}
