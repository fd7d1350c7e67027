import { UsageError } from './errors.js';

/**
 * Normalises an Indonesian mobile number to the local form the gateway's examples use (`08…`):
 * `08123456789`, `628123456789`, `+62 812-3456-789` all become `08123456789`. Spaces, dashes, dots
 * and parentheses are dropped. A mobile number is 08 followed by a non-zero digit and 7–10 more
 * digits (10–13 digits in all); anything else (`0000000000`, a landline, too short or too long) is
 * refused with a UsageError naming `label`.
 */
export function normalizePhone(text: string, label = '--phone'): string {
  const compact = String(text)
    .trim()
    .replace(/[\s\-().]/g, '');
  const local = compact.startsWith('+62') ? `0${compact.slice(3)}` : compact.startsWith('62') ? `0${compact.slice(2)}` : compact;
  if (!/^08[1-9]\d{7,10}$/.test(local)) {
    throw new UsageError(`invalid ${label} "${text}": expected an Indonesian mobile number such as 08123456789, 628123456789 or +628123456789`);
  }
  return local;
}

/**
 * The local form of a number when it is an Indonesian mobile number (see normalizePhone), else the
 * text trimmed: for places that accept what the gateway accepts (a landline too) but store mobile
 * numbers the way the CLI does.
 */
export function normalizePhoneIfMobile(text: string): string {
  try {
    return normalizePhone(text);
  } catch {
    return String(text).trim();
  }
}
