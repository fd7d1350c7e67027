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
