import { UsageError } from './errors.js';

/** The largest amount paycli accepts: any larger number loses precision as a JSON number. */
export const MAX_RUPIAH = Number.MAX_SAFE_INTEGER;

const HOW = 'Rupiah are whole numbers: write 25000, 25.000 or Rp 25.000 (dots group thousands; there are no decimals)';

/**
 * Parses an amount of Rupiah as an Indonesian writes it: `25000`, `25.000`, `25.000.000`,
 * `Rp 25.000`, `Rp25.000`, `Rp. 25.000`, also with a zero minor unit (`25.000,00`, `25.000,-`).
 * Dots group thousands, so `25.000` is twenty-five thousand. Anything fractional or ambiguous
 * (`25.5`, `25,50`, `2.50`, `1,000`, `25 000`) is refused with a UsageError naming `label` and
 * saying how to write it. The result is a positive safe integer.
 */
export function parseRupiah(text: string, label: string): number {
  const raw = String(text);
  const t = raw
    .trim()
    .replace(/^rp\.?\s*/i, '')
    .replace(/,(00|-)$/, '');
  if (!/^(\d+|\d{1,3}(\.\d{3})+)$/.test(t)) {
    throw new UsageError(`invalid ${label} "${raw}": ${/[.,]\d{1,2}$/.test(t) ? 'a fractional amount; ' : ''}${HOW}`);
  }
  const n = Number(t.replace(/\./g, ''));
  if (n <= 0) throw new UsageError(`invalid ${label} "${raw}": the amount must be above 0`);
  if (!Number.isSafeInteger(n)) throw new UsageError(`invalid ${label} "${raw}": more than the largest amount paycli handles (${MAX_RUPIAH})`);
  return n;
}

/** Parses a quantity: a positive whole number (`2`), nothing else. */
export function parseQuantity(text: string, label: string): number {
  const t = String(text).trim();
  const n = Number(t);
  if (!/^\d+$/.test(t) || !Number.isSafeInteger(n) || n <= 0) throw new UsageError(`invalid ${label} "${text}": a quantity is a whole number above 0`);
  return n;
}

/** Rupiah as Indonesians read them, thousands grouped with dots: `Rp 102.000`. */
export function formatRupiah(amount: number): string {
  return (
    'Rp ' +
    Math.round(amount)
      .toString()
      .replace(/\B(?=(\d{3})+(?!\d))/g, '.')
  );
}
