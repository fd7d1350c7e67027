import type { SandboxAccount } from './accounts.js';
import type { CloseDeps } from './close-api.js';
import type { CodDeps, ShipDeps } from './cod-routes.js';
import type { MerchantApi } from './merchant-api.js';
import type { RegionIndex } from './regions.js';
import type { SandboxState } from './state.js';
import type { Transitions } from './transitions.js';

/** Members registered through the Close API get VAs `11799` + 6 digits (an assumption: the docs show only an example). */
const MEMBER_PREFIX = '11799';

/**
 * What the COD logistics (cod-routes.ts) and Close API (close-api.ts) handlers need of the
 * emulator's state: its transactions, journalled records, transitions and accounts.
 */
export function serviceDeps(o: { state: SandboxState; regions: RegionIndex; byVa: Map<string, SandboxAccount>; transitions: Transitions; merchant: MerchantApi; now(): Date }): { cod: CodDeps; ship: ShipDeps; close: CloseDeps } {
  const { state, regions, byVa, transitions, merchant, now } = o;
  const cod: CodDeps = {
    regions,
    get: (id) => state.txns.get(id),
    merchantName: (va) => byVa.get(va)?.name ?? va,
    events: (id) => state.shipments.get(id) ?? [],
    addPickup: (p) => state.addPickup(p),
    pickups: (id) => state.pickups.get(id) ?? [],
    now: () => now().getTime(),
  };
  const ship: ShipDeps = {
    find: (id) => state.find(id),
    events: cod.events,
    record: (id, stage, at) => state.addShipmentEvent(id, stage, at),
    pay: async (id) => {
      const r = await transitions.act(id, 'berhasil', 'admin');
      return r.ok ? { ok: true, changed: r.changed, txn: r.txn } : r;
    },
    now: cod.now,
  };
  let transfersRunning: Promise<unknown> = Promise.resolve();
  const memberVa = (n: number) => `${MEMBER_PREFIX}${String(n).padStart(6, '0')}`;
  const close: CloseDeps = {
    accounts: byVa,
    members: () => state.members,
    transfers: () => state.transfers,
    paidBalance: (va) => merchant.paidBalance(va),
    addTransfer: (t) => state.addTransfer(t),
    addMember: (m) => state.addMember(m),
    newVa: () => {
      let n = state.members.size + 1;
      while (byVa.has(memberVa(n)) || state.members.has(memberVa(n))) n++;
      return memberVa(n);
    },
    serial: (fn) => {
      const run = transfersRunning.then(fn, fn);
      transfersRunning = run.catch(() => undefined);
      return run;
    },
    now: cod.now,
  };
  return { cod, ship, close };
}
