import type { SandboxAccount } from './accounts.js';
import type { CloseDeps } from './close-api.js';
import { moveDueParcels, type CodDeps, type ShipDeps } from './cod-routes.js';
import type { MerchantApi } from './merchant-api.js';
import type { RegionIndex } from './regions.js';
import type { SandboxState } from './state.js';
import type { Transitions } from './transitions.js';
import { memberVa } from './state-types.js';

/**
 * What the COD logistics (cod-routes.ts) and Close API (close-api.ts) handlers need of the
 * emulator's ledger: its transactions, parcel steps, pickups, transfers and members, transitions and accounts.
 */
export function serviceDeps(o: {
  state: SandboxState;
  regions: RegionIndex;
  byVa: Map<string, SandboxAccount>;
  transitions: Transitions;
  merchant: MerchantApi;
  now(): Date;
}): { cod: CodDeps; ship: ShipDeps; close: CloseDeps } {
  const { state, regions, byVa, transitions, merchant, now } = o;
  const cod: CodDeps = {
    regions,
    get: (id) => state.get(id),
    merchantName: (va) => byVa.get(va)?.name ?? va,
    events: (id) => state.parcelSteps(id),
    addPickup: (p) => state.addPickup(p),
    pickups: (id) => state.pickupsOf(id),
    now: () => now().getTime(),
  };
  const ship: ShipDeps = {
    find: (id) => state.find(id),
    events: cod.events,
    pickups: cod.pickups,
    record: (id, stage, at) => state.addParcelStep(id, stage, at),
    // The delivered step is stored with the transition and its callback (one SQLite transaction).
    pay: async (id, by, at) => {
      const r = await transitions.act(id, 'pay', by, 'delivered', at);
      return r.ok ? { ok: true, changed: r.changed, txn: r.txn } : r;
    },
    expire: (id) => transitions.act(id, 'expire', 'clock'),
    dueParcels: (at, after, limit) => state.dueParcels(at, after, limit),
    now: cod.now,
  };
  // The clock moves COD parcels through the same code path as `sandbox ship|deliver` (cod-routes.ts).
  transitions.moveParcels = () => moveDueParcels(ship);
  const close: CloseDeps = {
    accounts: byVa,
    member: (va) => state.member(va),
    memberByEmail: (email) => state.memberByEmail(email),
    transferNet: (va) => state.transferNet(va),
    paidBalance: (va) => merchant.paidBalance(va),
    addTransfer: (t, covers) => state.addTransfer(t, covers),
    addMember: (m) => state.addMember(m),
    newVa: () => {
      // Above every member this ledger ever had (its sequence survives a reset, and an import carries it): a VA is never handed out twice.
      let n = Math.max(state.memberCount(), state.idFloors().memberSeq) + 1;
      while (byVa.has(memberVa(n)) || state.member(memberVa(n))) n++;
      return memberVa(n);
    },
    now: cod.now,
  };
  return { cod, ship, close };
}
