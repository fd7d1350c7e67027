import { UsageError } from './errors.js';

/** Whether a text is the shape of a merchant's virtual account number (VA): 4 to 32 digits. */
export function isVaNumber(text: string): boolean {
  return /^\d{4,32}$/.test(text);
}

/**
 * The refusal of a value given as a VA (`what`: the flag or variable that gave it). The value is not
 * echoed: one that is not digits may well be the API key, given in the VA's place.
 */
export function invalidVa(what: string): UsageError {
  return new UsageError(`invalid ${what}: expected a virtual account number (4 to 32 digits)`, {
    hint: 'the VA is the account number (e.g. 1179000899), not the API key',
  });
}
