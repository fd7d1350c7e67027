/**
 * Data checks: what each endpoint of the merchant API answers, for parseEnvelope's `checkData`.
 * An answer that is not one of these is a "malformed response" (exit 5), never NaN or an empty
 * table with exit 0. They accept every shape the readers of merchant.ts read, and nothing else.
 */

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const isNumeric = (v: unknown): boolean => (typeof v === 'number' && Number.isFinite(v)) || (typeof v === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(v));
const isId = (v: unknown): boolean => (typeof v === 'number' && Number.isInteger(v) && v > 0) || (typeof v === 'string' && /^\d{1,15}$/.test(v));
const kind = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'a list' : typeof v === 'object' ? 'an object' : typeof v);

function checkRecord(v: unknown, where = ''): string | undefined {
  if (!isObject(v)) return `${where}is ${kind(v)}, not a transaction`;
  if (!isId(v.TransactionId)) return `${where}has no TransactionId`;
  if (!isNumeric(v.Status) || !Number.isInteger(Number(v.Status))) return `${where}has no integer Status`;
  return undefined;
}

function checkRecords(list: unknown[]): string | undefined {
  for (let i = 0; i < list.length; i++) {
    const problem = checkRecord(list[i], `has a transaction that `);
    if (problem) return `${problem} (item ${i + 1})`;
  }
  return undefined;
}

/** Data of check transaction: one transaction with an id and an integer status. */
export function checkTransactionData(data: unknown): string | undefined {
  return checkRecord(data);
}

/**
 * Data of history: `{Transaction: [...], Pagination: {...}}` (real answers; `Transaction: null`
 * with a Pagination is an empty page), `{Results: [...], ...}` (the docs' example) or a bare list.
 */
export function checkHistoryData(data: unknown): string | undefined {
  if (Array.isArray(data)) return checkRecords(data);
  if (!isObject(data)) return `is ${kind(data)}, not a history page`;
  if (Array.isArray(data.Transaction))
    return data.Pagination === undefined || isObject(data.Pagination) ? checkRecords(data.Transaction) : 'has a Pagination that is not an object';
  if (data.Transaction === null && isObject(data.Pagination)) return undefined;
  if (Array.isArray(data.Results)) return checkRecords(data.Results);
  return 'has neither a Transaction nor a Results list';
}

/** Data of balance: an object with a numeric MerchantBalance (MemberBalance, UnsettledBalance numeric when present). */
export function checkBalanceData(data: unknown): string | undefined {
  if (!isObject(data)) return `is ${kind(data)}, not a balance`;
  if (!isNumeric(data.MerchantBalance)) return 'has no numeric MerchantBalance';
  for (const k of ['MemberBalance', 'UnsettledBalance'])
    if (data[k] !== undefined && data[k] !== null && !isNumeric(data[k])) return `has a ${k} that is not a number`;
  return undefined;
}

/** Data of either channel list: a list of methods, each with a Code and a list of channels with a Code. */
export function checkChannelsData(data: unknown): string | undefined {
  if (!Array.isArray(data)) return `is ${kind(data)}, not a list of payment methods`;
  for (let i = 0; i < data.length; i++) {
    const m = data[i];
    if (!isObject(m) || typeof m.Code !== 'string' || m.Code === '') return `has a method without a Code (item ${i + 1})`;
    const channels = m.Channels ?? m.PaymentMethod;
    if (!Array.isArray(channels)) return `has a method without a list of channels (${m.Code})`;
    const bad = channels.findIndex((c) => !isObject(c) || typeof c.Code !== 'string' || c.Code === '');
    if (bad >= 0) return `has a channel without a Code (${m.Code}, channel ${bad + 1})`;
  }
  return undefined;
}
