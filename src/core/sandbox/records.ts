/**
 * The records of COD parcels and of the Close API that the emulator's state keeps (state.ts),
 * apart from the handlers that make them (cod-api.ts, cod-routes.ts, close-api.ts).
 */

/** The stages of a COD parcel after the payment is made; `delivered` is the payment's `berhasil`. */
export const SHIPMENT_STAGES = ['picked_up', 'in_transit', 'delivered'] as const;
export type ShipmentStage = (typeof SHIPMENT_STAGES)[number];

/** One step of a parcel's journey, as recorded by the emulator. */
export interface ShipmentEvent {
  stage: ShipmentStage;
  /** Epoch ms. */
  at: number;
}

/** A pickup request as the emulator records it. */
export interface PickupRequest {
  trxId: number;
  date: string;
  time: string;
  vehicle: string;
  /** Epoch ms. */
  requestedAt: number;
}

/** A Close API balance transfer. */
export interface Transfer {
  id: number;
  /** The caller (the referenceId's scope). */
  by: string;
  sender: string;
  receiver: string;
  amount: number;
  referenceId: string;
  relatedId?: string;
  notes: string;
  /** Epoch ms. */
  at: number;
}

/** A member registered through the Close API. */
export interface Member {
  va: string;
  name: string;
  email: string;
  phone: string;
  /** The account that registered it. */
  parent: string;
  websiteUrl?: string;
  /** Epoch ms. */
  at: number;
}
