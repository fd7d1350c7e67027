import { statusInfo, type StatusKey } from '../statuses.js';
import { formatJakarta } from '../time.js';
import { deliveryDays } from './cod-areas.js';
import type { PickupRequest, ShipmentEvent, ShipmentStage } from './records.js';

/**
 * What of a COD payment (a `Transaction`) its parcel's journey reads. state.ts imports this module
 * (the ledger keeps each pending parcel's next due time from `nextStep`), so it does not import
 * state.ts back.
 */
export interface ParcelPayment {
  id: number;
  status: StatusKey;
  createdAt: number;
  expiresAt: number;
  paidAt?: number;
  endedAt?: number;
  shipment?: { shipping: string; shippingService: string; deliveryArea: string; pickupArea?: string };
}

/**
 * A COD parcel's journey: its waybill, its tracking answer, and when the emulator's clock moves it
 * on (docs/emulator-fidelity.md, "COD logistics"). The
 * gateway documents no courier timings: these are assumptions, chosen to look like a domestic
 * courier and to be easy to reason about in a test.
 *
 * - picked up: at the pickup request's date and time (WIB) when `cod pickup` scheduled one (never
 *   before the request was made), otherwise PICKUP_AFTER_MS after the payment was created;
 * - in transit: IN_TRANSIT_AFTER_MS after pickup (the parcel leaves the courier's first hub);
 * - delivered (paid, with its callback): the courier's estimate after pickup: the longest day count
 *   of the rate model's `etd` for the payment's courier, service and zone (cod-areas.ts; the
 *   farthest zone when the pickup or delivery area is not an area id), DEFAULT_DELIVERY_DAYS when
 *   the model does not know the service; never before the parcel went in transit.
 *
 * A COD payment's expiry is the time by which its parcel must be picked up: a pickup due after the
 * expiry never happens (the payment expires), and once picked up the payment no longer expires (the
 * buyer pays the courier on delivery). transitions.ts applies the second half.
 */
export const PICKUP_AFTER_MS = 3 * 3_600_000;
export const IN_TRANSIT_AFTER_MS = 2 * 3_600_000;
export const DEFAULT_DELIVERY_DAYS = 1;
const DAY_MS = 86_400_000;

/** A pickup request's date and time (WIB) as epoch ms. */
function pickupTime(p: PickupRequest): number {
  const at = Date.parse(`${p.date}T${p.time}:00+07:00`);
  return Number.isNaN(at) ? p.requestedAt : Math.max(at, p.requestedAt);
}

/** An area id of the COD area search (a village code), or undefined for a postal code or nothing. */
const areaId = (v: string | undefined): number | undefined => (v !== undefined && /^\d{10}$/.test(v) ? Number(v) : undefined);

/** The days the courier takes from pickup to the buyer's door (the rate model's estimate). */
export function deliveryDaysOf(t: ParcelPayment): number {
  const s = t.shipment;
  if (!s) return DEFAULT_DELIVERY_DAYS;
  return deliveryDays(s.shipping, s.shippingService, areaId(s.pickupArea), areaId(s.deliveryArea)) ?? DEFAULT_DELIVERY_DAYS;
}

/**
 * A pending COD parcel's next step and when it is due on the clock, from what is stored: its
 * payment, its steps so far and its pickup requests (the latest counts). Undefined when delivered.
 */
export function nextStep(
  t: ParcelPayment,
  steps: readonly ShipmentEvent[],
  pickups: readonly PickupRequest[],
): { stage: ShipmentStage; at: number } | undefined {
  const at = (stage: ShipmentStage) => steps.find((s) => s.stage === stage)?.at;
  const pickedUp = at('picked_up');
  if (pickedUp === undefined) {
    const last = pickups.at(-1);
    return { stage: 'picked_up', at: last ? Math.max(pickupTime(last), t.createdAt) : t.createdAt + PICKUP_AFTER_MS };
  }
  const inTransit = at('in_transit');
  if (inTransit === undefined) return { stage: 'in_transit', at: pickedUp + IN_TRANSIT_AFTER_MS };
  if (at('delivered') !== undefined) return undefined;
  return { stage: 'delivered', at: Math.max(pickedUp + deliveryDaysOf(t) * DAY_MS, inTransit) };
}

/** The waybill number of a COD payment in the emulator (one per payment, from its id). */
export function awbOf(id: number): string {
  return `PAYCLI${String(id).padStart(10, '0')}`;
}

const STAGE_WORDS: Record<ShipmentStage | 'waiting' | 'cancelled' | 'stopped', { status: string; note: string }> = {
  waiting: { status: 'waiting for pickup', note: 'order received; the courier has not picked the parcel up yet' },
  picked_up: { status: 'picked up', note: 'the courier picked the parcel up from the merchant' },
  in_transit: { status: 'in transit', note: 'the parcel is on its way to the buyer' },
  delivered: { status: 'delivered', note: 'delivered; the buyer paid the courier' },
  cancelled: { status: 'cancelled', note: 'the payment ended before the parcel left' },
  stopped: { status: 'cancelled', note: 'the payment ended while the parcel was on its way; it does not move on' },
};

/** The tracking answer's `Data`: the waybill, the current state and the history (newest first), times on the emulator's clock. */
export function trackingOf(
  t: ParcelPayment,
  events: readonly ShipmentEvent[],
): { awb: string; transaction_id: number; status: string; history: { at: string; status: string; note: string }[] } {
  const steps: { at: number; key: keyof typeof STAGE_WORDS }[] = [{ at: t.createdAt, key: 'waiting' }, ...events.map((e) => ({ at: e.at, key: e.stage }))];
  const delivered = events.some((e) => e.stage === 'delivered');
  // Paid another way (the payment page, `sandbox pay`): delivered when paid.
  const paid = statusInfo(t.status).paid || t.paidAt !== undefined;
  if (paid && !delivered) steps.push({ at: t.paidAt ?? t.createdAt, key: 'delivered' });
  // Expired, cancelled, failed: the parcel stops where it was.
  else if (!paid && t.status !== 'pending') steps.push({ at: t.endedAt ?? t.expiresAt, key: events.length > 0 ? 'stopped' : 'cancelled' });
  const history = steps.map((s) => ({ at: formatJakarta(new Date(s.at)), status: STAGE_WORDS[s.key].status, note: STAGE_WORDS[s.key].note })).reverse();
  return { awb: awbOf(t.id), transaction_id: t.id, status: history[0]!.status, history };
}
