import { STATUS_WORDS, type TransactionRecord } from '../core/api/merchant.js';
import { escapeControl } from '../core/terminal-text.js';

/** A field of the gateway's answer as human output shows it: `-` when empty, control characters escaped. */
export const gatewayText = (v: unknown): string => (v === null || v === undefined || v === '' ? '-' : escapeControl(String(v)));

/** `paid`, `pending`, … for a record (its PaidStatus decides paid-ness when present). */
export function statusWord(r: TransactionRecord): string {
  return STATUS_WORDS[String(r.Status)] ?? `status ${r.Status}`;
}
