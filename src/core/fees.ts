/** The emulator's fee model as the channel list states it (feeFor charges it). */
export const FEE_MODEL: Record<string, { ActualFee: number; ActualFeeType: 'FLAT' | 'PERCENT'; AdditionalFee: number; MinimumFee?: number }> = {
  va: { ActualFee: 4000, ActualFeeType: 'FLAT', AdditionalFee: 0 },
  cstore: { ActualFee: 5000, ActualFeeType: 'FLAT', AdditionalFee: 0 },
  qris: { ActualFee: 0.7, ActualFeeType: 'PERCENT', AdditionalFee: 0 },
  ewallet: { ActualFee: 1.5, ActualFeeType: 'PERCENT', AdditionalFee: 0 },
  cc: { ActualFee: 2.9, ActualFeeType: 'PERCENT', AdditionalFee: 2000 },
  paylater: { ActualFee: 1.7, ActualFeeType: 'PERCENT', AdditionalFee: 0 },
  cod: { ActualFee: 3, ActualFeeType: 'PERCENT', AdditionalFee: 0, MinimumFee: 5000 },
};

/**
 * The fee model (documented in README): flat for bank and store channels, a rate for the rest, never
 * more than the amount. The emulator charges it; sample callbacks and the channel list state it.
 */
export function feeFor(method: string, amount: number): number {
  const fee = (() => {
    switch (method) {
      case 'va':
        return 4000;
      case 'cstore':
        return 5000;
      case 'qris':
        return Math.round(amount * 0.007);
      case 'ewallet':
        return Math.round(amount * 0.015);
      case 'cc':
        return Math.round(amount * 0.029) + 2000;
      case 'paylater':
        return Math.round(amount * 0.017);
      case 'cod':
        return Math.max(5000, Math.round(amount * 0.03));
      default:
        return 0;
    }
  })();
  return Math.min(fee, amount);
}

/** Who bears a payment's fee (`feeDirection` of a payment request). */
export type FeeDirection = 'MERCHANT' | 'BUYER';

/** The money of one payment, in Rupiah, as every view of it states it. */
export interface Charge {
  /** What the merchant asked for (`sub_total`, `SubTotal`). */
  subTotal: number;
  fee: number;
  /** What the buyer pays (`total` and `amount` of the callback, `Total`). */
  total: number;
  /** What the merchant receives once paid (`paid_off`, `PaidOff`, what the balance adds up). */
  paidOff: number;
}

/**
 * The one money model of a payment, for its callback, its record, the balance and `recover`: the
 * merchant bears the fee by default (the buyer pays the amount, the merchant receives it less the
 * fee, as the real QRIS capture); with `BUYER` the buyer pays amount + fee and the merchant
 * receives the amount (as the gateway's published callback sample). The fee is taken once.
 */
export function chargeOf(amount: number, fee: number, direction: FeeDirection | undefined): Charge {
  return direction === 'BUYER'
    ? { subTotal: amount, fee, total: amount + fee, paidOff: amount }
    : { subTotal: amount, fee, total: amount, paidOff: amount - fee };
}
