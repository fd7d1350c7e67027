// Time as the gateway writes it: Asia/Jakarta (WIB, UTC+7, no daylight saving).

/** `YYYYMMDDHHmmss` in Asia/Jakarta time (UTC+7, no daylight saving). */
export function jakartaTimestamp(date: Date): string {
  return formatJakarta(date).replace(/[-: ]/g, '');
}

/** `YYYY-MM-DD HH:mm:ss` in Asia/Jakarta time. */
export function formatJakarta(date: Date): string {
  const d = new Date(date.getTime() + 7 * 3600_000);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getUTCFullYear()}-${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())}`;
}

/** ISO 8601 with the `+07:00` offset, as the gateway's X-Timestamp header. */
export function isoJakarta(date: Date): string {
  return formatJakarta(date).replace(' ', 'T') + '+07:00';
}
