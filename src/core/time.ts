// Time as the gateway writes it: Asia/Jakarta (WIB, UTC+7, no daylight saving).

/** Asia/Jakarta's offset from UTC (WIB, UTC+7, no daylight saving), in ms. */
export const WIB_OFFSET_MS = 7 * 3_600_000;

/** `YYYYMMDDHHmmss` in Asia/Jakarta time (UTC+7, no daylight saving). */
export function jakartaTimestamp(date: Date): string {
  return formatJakarta(date).replace(/[-: ]/g, '');
}

/** `YYYY-MM-DD HH:mm:ss` in Asia/Jakarta time. */
export function formatJakarta(date: Date): string {
  const d = new Date(date.getTime() + WIB_OFFSET_MS);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getUTCFullYear()}-${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())}`;
}

/** ISO 8601 with the `+07:00` offset, as the gateway's X-Timestamp header. */
export function isoJakarta(date: Date): string {
  return formatJakarta(date).replace(' ', 'T') + '+07:00';
}

/** Parses the gateway's `YYYY-MM-DD HH:mm:ss` (WIB, UTC+7); undefined for a time that does not exist (`2026-02-30`, `25:00`). */
export function parseWib(text: unknown): Date | undefined {
  const m = typeof text === 'string' ? /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})$/.exec(text.trim()) : null;
  if (!m) return undefined;
  const d = new Date(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]! - 7, +m[5]!, +m[6]!));
  // Date.UTC rolls fields over (month 13, day 30 of February, hour 47): only a time that reads back as given exists.
  return formatJakarta(d) === `${m[1]}-${m[2]}-${m[3]} ${m[4]}:${m[5]}:${m[6]}` ? d : undefined;
}
