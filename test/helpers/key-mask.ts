import { createHash } from 'node:crypto';

/** How paycli shows an API key (maskApiKey): none of its characters, an 8-digit SHA-256 fingerprint. */
export const shownKey = (key: string) => `[API key sha256=${createHash('sha256').update(key).digest('hex').slice(0, 8)}]`;

/** True when some run of `n` characters of the key appears in `text` (a partial leak). */
export function leaksKeyPart(text: string, key: string, n = 4): boolean {
  for (let i = 0; i + n <= key.length; i++) if (text.includes(key.slice(i, i + n))) return true;
  return false;
}
