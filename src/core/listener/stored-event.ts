export type Verdict = 'valid' | 'valid-variant' | 'invalid' | 'malformed';

/** One request the listener received, stored before it was answered. */
export interface StoredEvent {
  id: string;
  receivedAt: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  /** The raw body as text (UTF-8; bytes that are not UTF-8 read as U+FFFD). */
  body: string;
  /** The body's exact bytes in base64, only when they are not UTF-8 (`body` cannot give them back). */
  bodyBase64?: string;
  verdict: Verdict;
  /** The encoding variant that matched, for `valid-variant`. */
  variant: string | null;
  reason: string | null;
  duplicate: boolean;
  trx_id: string | null;
  status: string | null;
  /** HTTP status the listener answered. */
  answer: number;
  source?: 'listen' | 'trigger';
}

/** The exact bytes of an event's body. */
export function bodyBytes(e: Pick<StoredEvent, 'body' | 'bodyBase64'>): Buffer {
  return e.bodyBase64 === undefined ? Buffer.from(e.body, 'utf8') : Buffer.from(e.bodyBase64, 'base64');
}

/** What makes a retry of a callback a duplicate: its transaction, status and signature. */
export function retryKey(trxId: string | null, status: string | null, signature: string): string {
  return `${trxId}|${status}|${signature.trim().toLowerCase()}`;
}

const VERDICTS = new Set(['valid', 'valid-variant', 'invalid', 'malformed']);
const strOrNull = (v: unknown) => v === null || typeof v === 'string';

/** Whether a parsed line of a JSONL store (the previous release's) has the shape of a stored event. */
export function isStoredEvent(e: unknown): e is StoredEvent {
  if (typeof e !== 'object' || e === null) return false;
  const x = e as Record<string, unknown>;
  if (typeof x.id !== 'string' || typeof x.receivedAt !== 'string' || typeof x.method !== 'string' || typeof x.path !== 'string' || typeof x.body !== 'string')
    return false;
  if (typeof x.verdict !== 'string' || !VERDICTS.has(x.verdict) || typeof x.answer !== 'number' || typeof x.duplicate !== 'boolean') return false;
  if (!strOrNull(x.trx_id) || !strOrNull(x.status) || !strOrNull(x.reason ?? null) || !strOrNull(x.variant ?? null)) return false;
  if (x.source !== undefined && x.source !== 'listen' && x.source !== 'trigger') return false;
  if (typeof x.headers !== 'object' || x.headers === null || Array.isArray(x.headers)) return false;
  for (const v of Object.values(x.headers)) if (typeof v !== 'string') return false;
  return true;
}
