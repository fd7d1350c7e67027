import type { ServerResponse } from 'node:http';
import { statusInfo, statusLabel } from '../statuses.js';
import { nextStep } from './cod-clock.js';
import { formatJakarta } from '../time.js';
import type { SandboxAccount } from './accounts.js';
import { areaAnswer, awbOf, codRoute, labelPdf, rateAnswer, trackingOf, trxOfAwb } from './cod-api.js';
import type { ShipmentEvent } from './records.js';
import type { RegionIndex } from './regions.js';
import type { Transaction } from './state.js';
import type { PickupRequest } from './records.js';

export type { PickupRequest } from './records.js';
import { envelope } from './views.js';

export interface CodDeps {
  regions: RegionIndex;
  /** A transaction by id (any merchant's: the handler checks the owner). */
  get(id: number): Transaction | undefined;
  merchantName(va: string): string;
  /** A parcel's recorded steps, oldest first. */
  events(id: number): ShipmentEvent[];
  /** Records a pickup request durably (resolves once stored). */
  addPickup(p: PickupRequest): Promise<void>;
  pickups(id: number): PickupRequest[];
  now(): number;
}

const VEHICLES = ['Motor', 'Mobil'];

/**
 * Answers a COD logistics request under `/api/v2/` (after authentication); false when the path is
 * not one of them. `params` is the request's JSON (query, JSON body or form: request-body.ts).
 */
export async function codLogistics(
  d: CodDeps,
  res: ServerResponse,
  method: string,
  path: string,
  params: Record<string, unknown>,
  account: SandboxAccount,
): Promise<boolean> {
  const r = codRoute(method, path);
  if (!r) return false;
  if (r.op === 'method') {
    envelope(res, 405, 'method not allowed', null);
    return true;
  }
  if (r.op === 'area') areaAnswer(res, d.regions, params);
  else if (r.op === 'rate') rateAnswer(res, d.regions, params);
  else {
    const t = codTransaction(d, res, r.trx ?? params.transaction_id, r.op === 'track' ? params.awb : undefined, account);
    if (!t) return true;
    if (r.op === 'label') {
      const pdf = labelPdf(t, d.merchantName(t.merchantVa));
      res
        .writeHead(200, { 'content-type': 'application/pdf', 'content-length': pdf.length, 'content-disposition': `attachment; filename="label-${t.id}.pdf"` })
        .end(pdf);
    } else if (r.op === 'track') envelope(res, 200, 'Success', trackingOf(t, d.events(t.id)));
    else await pickup(d, res, t, params);
  }
  return true;
}

/** The COD transaction a request names by id or waybill, of this merchant; or a 400/404 answered. */
function codTransaction(d: CodDeps, res: ServerResponse, trx: unknown, awb: unknown, account: SandboxAccount): Transaction | undefined {
  const idText = typeof trx === 'number' ? String(trx) : typeof trx === 'string' ? trx.trim() : '';
  let id: number | undefined = /^\d{1,15}$/.test(idText) ? Number(idText) : undefined;
  const awbText = typeof awb === 'string' ? awb.trim() : '';
  if (awbText) {
    const byAwb = trxOfAwb(awbText);
    if (byAwb === undefined || (id !== undefined && id !== byAwb)) {
      envelope(res, 404, 'awb not found', null);
      return undefined;
    }
    id = byAwb;
  }
  if (id === undefined) {
    envelope(res, 400, 'error - invalid request', null, {
      Error: { transaction_id: [idText || awbText ? 'transaction_id harus berupa angka.' : 'transaction_id wajib diisi.'] },
    });
    return undefined;
  }
  const t = d.get(id);
  // Another merchant's payment is not found, as the gateway answers for check transaction.
  if (!t || t.merchantVa !== account.va) {
    envelope(res, 404, 'transaction not found', null);
    return undefined;
  }
  if (t.via !== 'cod') {
    envelope(res, 400, 'transaction is not a COD transaction', null);
    return undefined;
  }
  return t;
}

async function pickup(d: CodDeps, res: ServerResponse, t: Transaction, params: Record<string, unknown>): Promise<void> {
  const errors: Record<string, string[]> = {};
  const date = typeof params.pickup_date === 'string' ? params.pickup_date.trim() : '';
  const time = typeof params.pickup_time === 'string' ? params.pickup_time.trim() : '';
  const vehicle = VEHICLES.find(
    (v) =>
      v.toLowerCase() ===
      String(params.pickup_vehicle ?? '')
        .trim()
        .toLowerCase(),
  );
  const day = Date.parse(`${date}T00:00:00Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || Number.isNaN(day) || new Date(day).toISOString().slice(0, 10) !== date)
    errors.pickup_date = ['pickup_date harus berupa tanggal (YYYY-MM-DD).'];
  if (!/^([01]\d|2[0-3]):[0-5]\d$/.test(time)) errors.pickup_time = ['pickup_time harus berupa jam (HH:MM).'];
  if (!vehicle) errors.pickup_vehicle = [`pickup_vehicle tidak valid. Pilihan: ${VEHICLES.join(', ')}.`];
  if (Object.keys(errors).length > 0) {
    envelope(res, 400, 'error - invalid request', null, { Error: errors });
    return;
  }
  if (t.status !== 'pending' || d.events(t.id).length > 0) {
    envelope(res, 409, 'the parcel is no longer waiting for pickup', null);
    return;
  }
  // The payment expires unless its parcel is picked up first (cod-clock.ts): a later pickup cannot happen.
  if (Date.parse(`${date}T${time}:00+07:00`) >= t.expiresAt) {
    envelope(res, 400, 'error - invalid request', null, {
      Error: { pickup_date: [`pickup_date dan pickup_time harus sebelum transaksi kedaluwarsa (${formatJakarta(new Date(t.expiresAt))} WIB).`] },
    });
    return;
  }
  const p: PickupRequest = { trxId: t.id, date, time, vehicle: vehicle!, requestedAt: d.now() };
  await d.addPickup(p);
  envelope(res, 200, 'Success', { transaction_id: t.id, awb: awbOf(t.id), pickup_date: date, pickup_time: time, pickup_vehicle: vehicle });
}

export type ShipResult = { ok: true; txn: Transaction; stage: string; changed: boolean } | { ok: false; status: number; message: string; txn?: Transaction };

export interface ShipDeps {
  find(id: string): Transaction | undefined;
  events(id: number): ShipmentEvent[];
  pickups(id: number): PickupRequest[];
  /** Records a step durably at `at` (resolves once stored); false when the payment is no longer pending or the step was taken. */
  record(id: number, stage: 'picked_up' | 'in_transit', at: number): Promise<boolean>;
  /**
   * Marks the payment paid at `at`: the courier handed the parcel over and took the cash (a
   * transition with its callback and the `delivered` step, in one SQLite transaction).
   */
  pay(
    id: string,
    by: 'admin' | 'clock',
    at: number,
  ): Promise<{ ok: true; changed: boolean; txn: Transaction } | { ok: false; status: number; message: string; txn?: Transaction }>;
  /** Expires a pending payment past its expiry (with its callback), as every action does first. */
  expire(id: string): Promise<unknown>;
  /**
   * The parcels whose next step is due at `at` on the clock, by due time then id, after `after`
   * (a page of the clock's sweep, from the ledger's index of due times: parcels not due cost nothing).
   */
  dueParcels(at: number, after: { at: number; id: number } | undefined, limit: number): { id: number; at: number }[];
  now(): number;
}

/**
 * Moves a COD parcel on: `next` one step and `delivered` every remaining step, now (admin: `paycli
 * sandbox ship|deliver ID`, the dashboard); `due` every step the emulator's clock has reached, each
 * at its own time (cod-clock.ts). Steps go waiting → picked up → in transit → delivered; delivered
 * is the payment's paid status, with its callback, as a courier's cash collection is. Every step is
 * stored once (a step taken is not taken again; a paid payment is not paid twice), so a sweep cut
 * short by a crash goes on from what is stored.
 */
export async function advanceShipment(d: ShipDeps, id: string, to: 'next' | 'delivered' | 'due'): Promise<ShipResult> {
  const t = d.find(id);
  if (!t) return { ok: false, status: 404, message: `no transaction with id or payment number "${id}"` };
  if (t.via !== 'cod') return { ok: false, status: 409, message: `transaction ${t.id} is not a COD payment (via ${t.via})`, txn: t };
  if (statusInfo(t.status).paid) return { ok: true, txn: t, stage: 'delivered', changed: false };
  if (t.status !== 'pending')
    return { ok: false, status: 409, message: `transaction ${t.id} is ${statusLabel(statusInfo(t.status))}: its parcel cannot move`, txn: t };
  const clock = to === 'due';
  let changed = false;
  for (;;) {
    const steps = d.events(t.id);
    const next = nextStep(t, steps, d.pickups(t.id));
    if (!next) return { ok: true, txn: t, stage: 'delivered', changed };
    if (next.stage === 'picked_up' && t.expiresAt <= (clock ? next.at : d.now())) {
      // Not picked up before the payment expired: it expires (once), and the parcel never leaves.
      if (clock) return { ok: true, txn: t, stage: 'waiting', changed };
      await d.expire(String(t.id));
      return {
        ok: false,
        status: 409,
        message: `transaction ${t.id} expired before its parcel was picked up: its parcel cannot move`,
        txn: d.find(String(t.id)) ?? t,
      };
    }
    if (clock && next.at > d.now()) return { ok: true, txn: t, stage: steps.at(-1)?.stage ?? 'waiting', changed };
    const at = clock ? next.at : d.now();
    if (next.stage === 'delivered') {
      const r = await d.pay(String(t.id), clock ? 'clock' : 'admin', at);
      if (!r.ok) return r;
      return { ok: true, txn: r.txn, stage: 'delivered', changed: r.changed };
    }
    if (!(await d.record(t.id, next.stage, at))) {
      // Another request moved it meanwhile: go on from what is stored now.
      const now = d.find(String(t.id));
      if (now?.status !== 'pending') return advanceShipment(d, id, to);
      continue;
    }
    changed = true;
    if (to === 'next') return { ok: true, txn: t, stage: next.stage, changed };
  }
}

/**
 * The clock's sweep over the COD parcels it has reached: each step due, in order, at its time;
 * returns how many parcels moved. Only parcels due now are read (the ledger keeps each pending
 * parcel's next due time), so its cost does not grow with the parcels still waiting.
 */
export async function moveDueParcels(d: ShipDeps): Promise<number> {
  const PAGE = 500;
  const now = d.now();
  let moved = 0;
  for (let after: { at: number; id: number } | undefined; ; ) {
    const page = d.dueParcels(now, after, PAGE);
    for (const p of page) {
      const r = await advanceShipment(d, String(p.id), 'due');
      if (r.ok && r.changed) moved++;
    }
    if (page.length < PAGE) return moved;
    after = page.at(-1);
  }
}
