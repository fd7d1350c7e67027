import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { IN_TRANSIT_AFTER_MS, nextStep, PICKUP_AFTER_MS } from '../../src/core/sandbox/cod-clock.js';
import { importLedger, ledgerLines } from '../../src/core/sandbox/ledger-jsonl.js';
import { SandboxState, type Transaction } from '../../src/core/sandbox/state.js';
import { sandbox } from '../helpers/sandbox.js';

/**
 * The clock's sweep over COD parcels reads only the due ones: the ledger keeps each pending
 * parcel's next due time (`parcel_due`, migration 4) with every change that moves it.
 */
const H = 3_600_000;
const dir = mkdtempSync(join(tmpdir(), 'paycli-cod-due-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SHIPMENT = {
  shipping: 'RPX',
  shippingService: 'REG',
  deliveryArea: '3173021001',
  deliveryAddress: 'Jl. Kemuning 1',
  pickupArea: '3173021001',
  weightKg: 1,
};

/** A COD payment stored through the state API (no HTTP), created at `createdAt` on the clock. */
function cod(state: SandboxState, createdAt: number, va = '1179000899'): Promise<Transaction> {
  return state.addTransaction((id) => ({
    id,
    sid: `s${id}`,
    merchantVa: va,
    referenceId: `R${id}`,
    via: 'cod',
    channel: 'rpx',
    paymentNo: `RPX${id}`,
    paymentName: 'RPX',
    amount: 10000,
    fee: 4000,
    status: 'pending',
    createdAt,
    expiresAt: createdAt + 24 * H,
    notifyUrl: 'http://127.0.0.1:9/none',
    buyer: { name: 'A', phone: '08123456789', email: 'a@b.co' },
    items: [{ product: 'K', qty: 1, price: 10000 }],
    shipment: SHIPMENT,
  }));
}

/** What the ledger stored as due, by payment id. */
const stored = (state: SandboxState) =>
  new Map(
    state.db
      .prepare<[], { trx_id: number; due_at: number }>('SELECT trx_id, due_at FROM parcel_due')
      .all()
      .map((r) => [r.trx_id, r.due_at]),
  );

/** Every pending COD parcel's due time as cod-clock.ts computes it from the stored steps and pickups. */
function computed(state: SandboxState): Map<number, number> {
  const pending = state.page({ status: 'pending', via: 'cod' }, { by: 'id', desc: false }, 1_000_000).rows;
  return new Map(pending.map((t) => [t.id, nextStep(t, state.parcelSteps(t.id), state.pickupsOf(t.id))!.at]));
}

describe('the COD clock sweep costs O(due parcels), not O(parcels in flight)', () => {
  it('a sweep over 2 000 waiting parcels reads only the few that are due, through an index', async () => {
    const sb = await sandbox({ expirySweepMs: 3_600_000 });
    try {
      const now = sb.clock.nowMs();
      for (let i = 0; i < 2000; i++) await cod(sb.state, now);
      const due = [];
      for (let i = 0; i < 5; i++) due.push((await cod(sb.state, now - 4 * H)).id);
      const rows = { read: 0 };
      const dueParcels = sb.state.dueParcels.bind(sb.state);
      vi.spyOn(sb.state, 'dueParcels').mockImplementation((...a) => {
        const page = dueParcels(...a);
        rows.read += page.length;
        return page;
      });
      const find = vi.spyOn(sb.state, 'find');
      const steps = vi.spyOn(sb.state, 'parcelSteps');
      const pickups = vi.spyOn(sb.state, 'pickupsOf');

      expect((await sb.advanceClock(60_000)).ok).toBe(true);
      // The five due parcels were picked up (in transit is 2 h later); no other parcel was read.
      expect(rows.read).toBe(5);
      expect(find).toHaveBeenCalledTimes(5);
      expect(steps.mock.calls.length).toBeLessThanOrEqual(3 * 5);
      expect(pickups.mock.calls.length).toBeLessThanOrEqual(3 * 5);
      expect(due.map((id) => sb.state.parcelSteps(id).map((s) => s.stage))).toEqual(due.map(() => ['picked_up']));
      expect(sb.state.db.prepare('SELECT count(*) FROM parcel_steps').pluck().get()).toBe(5);

      // Nothing due: nothing read.
      rows.read = 0;
      for (const spy of [find, steps, pickups]) spy.mockClear();
      expect((await sb.advanceClock(60_000)).ok).toBe(true);
      expect(rows.read).toBe(0);
      expect(find).not.toHaveBeenCalled();
      expect(steps).not.toHaveBeenCalled();
      expect(pickups).not.toHaveBeenCalled();

      // The sweep's query is a range of the due-time index, not a scan of the parcels.
      const source = (sb.state as unknown as { stmts: { dueParcels: { source: string } } }).stmts.dueParcels.source;
      const plan = sb.state.db.prepare(`EXPLAIN QUERY PLAN ${source}`).all(now, 0, 0, 500) as { detail: string }[];
      expect(plan.map((p) => p.detail).join('\n')).toMatch(/^SEARCH parcel_due USING (COVERING )?INDEX parcel_due_at \(due_at>\? AND due_at<\?\)$/);
      expect(stored(sb.state)).toEqual(computed(sb.state));
      expect(stored(sb.state).size).toBe(2005);
      vi.restoreAllMocks();
    } finally {
      await sb.close();
    }
  });

  it("each pending parcel's due time is kept with every change: created, pickup, step, paid, expired, reset", async () => {
    const state = await SandboxState.open();
    const at = Date.UTC(2026, 10, 27, 3, 0);
    const waiting = await cod(state, at);
    const scheduled = await cod(state, at);
    const moving = await cod(state, at);
    const paid = await cod(state, at);
    const expired = await cod(state, at);
    const va = await state.addTransaction((id) => ({ ...waiting, id, via: 'va', channel: 'bca', shipment: undefined }));
    expect(stored(state)).toEqual(new Map([waiting, scheduled, moving, paid, expired].map((t) => [t.id, at + PICKUP_AFTER_MS])));

    // A pickup at 14:00 WIB (07:00 UTC) the same day.
    await state.addPickup({ trxId: scheduled.id, date: '2026-11-27', time: '14:00', vehicle: 'Motor', requestedAt: at + 60_000 });
    expect(stored(state).get(scheduled.id)).toBe(Date.UTC(2026, 10, 27, 7, 0));
    expect(await state.addParcelStep(moving.id, 'picked_up', at + H)).toBe(true);
    expect(stored(state).get(moving.id)).toBe(at + H + IN_TRANSIT_AFTER_MS);
    await state.transition(paid.id, 'berhasil', at + 2 * H, undefined, 'delivered');
    await state.transition(expired.id, 'expired', at + 24 * H);
    expect([...stored(state).keys()].sort()).toEqual([waiting.id, scheduled.id, moving.id]);
    expect(stored(state).has(va.id)).toBe(false);
    expect(stored(state)).toEqual(computed(state));

    // An export imported into an empty ledger: due times from the imported steps and pickups.
    const file = join(dir, 'export.jsonl');
    writeFileSync(file, [...ledgerLines(state)].join(''));
    const other = await SandboxState.open();
    await importLedger(other, file);
    expect(stored(other)).toEqual(stored(state));

    await state.reset();
    expect(stored(state).size).toBe(0);
    await state.close();
    await other.close();
  });

  it('migration 4 fills the due times of the pending parcels of a ledger written by schema 3', async () => {
    const data = join(dir, 'schema3');
    let state = await SandboxState.open(data);
    const at = Date.UTC(2026, 10, 27, 3, 0);
    const ids = [];
    for (let i = 0; i < 4; i++) ids.push((await cod(state, at + i * H)).id);
    await state.addPickup({ trxId: ids[1]!, date: '2026-11-28', time: '09:30', vehicle: 'Mobil', requestedAt: at });
    await state.addParcelStep(ids[2]!, 'picked_up', at + 5 * H);
    await state.transition(ids[3]!, 'batal', at + 6 * H);
    const want = stored(state);
    expect(want.size).toBe(3);
    // The ledger as schema 3 left it: no parcel_due (nor what later migrations add).
    state.db.exec(
      'DROP TABLE parcel_due; DROP INDEX txns_paid_seq; DROP INDEX txns_status_paid; DROP INDEX txns_paid_order; DROP INDEX txns_status_paid_order; ALTER TABLE txns DROP COLUMN paid_seq; PRAGMA user_version = 3;',
    );
    await state.close();

    state = await SandboxState.open(data);
    expect(state.db.pragma('user_version', { simple: true })).toBeGreaterThanOrEqual(4);
    expect(stored(state)).toEqual(want);
    expect(stored(state)).toEqual(computed(state));
    await state.close();
  });
});
