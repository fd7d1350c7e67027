import { STATUSES } from '../statuses.js';
import type { Cursor } from './state.js';

/**
 * The gateway's history request as the emulator reads it (`POST /api/v2/history`): its fields
 * checked and turned into a query (ledger.ts answers it), and paycli's page cursor.
 */

/** A history query after validation. */
export interface HistoryQuery {
  ids?: number[];
  status?: number;
  dateField: 'created_at' | 'indate';
  start?: string;
  end?: string;
  page: number;
  limit: number;
  orderBy: 'id' | 'created_at' | 'indate';
  order: 'ASC' | 'DESC';
  /** The record's `Type` (7 VA/bank transfer, 10 COD, 11 convenience store, …). */
  type?: number;
  /** `lockStatus`: 1 locked only, 0 unlocked only (the emulator locks no payment). */
  locked?: boolean;
  /** `lang`: `en` words `StatusDesc` in English. */
  lang?: 'id' | 'en';
  /** paycli's extension: the page after this one (`Pagination.next_cursor` of the previous page). */
  cursor?: Cursor;
}

/** A page's cursor as it travels in JSON: `KEY:ID:MAXID:PAIDSEQ` (the last two: the walk's snapshot; an older `KEY:ID` is read too). */
export function encodeCursor(c: Cursor): string {
  return c.snapshot ? `${c.key}:${c.id}:${c.snapshot.maxId}:${c.snapshot.paidSeq}` : `${c.key}:${c.id}`;
}

export function decodeCursor(s: unknown): Cursor | undefined {
  const m = typeof s === 'string' ? /^(-?\d{1,16}):(\d{1,16})(?::(\d{1,16}):(\d{1,16}))?$/.exec(s) : null;
  if (!m) return undefined;
  const c: Cursor = { key: Number(m[1]), id: Number(m[2]) };
  if (m[3] !== undefined) c.snapshot = { maxId: Number(m[3]), paidSeq: Number(m[4]) };
  return c;
}

/** `StatusDesc` of each status code (check transaction, history), in Indonesian as the gateway words it (statuses.ts). */
export const STATUS_DESC: Record<string, string> = Object.fromEntries(STATUSES.map((s) => [String(s.code), s.desc]));

/** `StatusDesc` in English (`lang=en`). */
export const STATUS_DESC_EN: Record<string, string> = {
  '0': 'Pending',
  '1': 'Success',
  '6': 'Success (unsettled)',
  '-2': 'Expired',
  '2': 'Cancelled',
  '3': 'Refund',
  '4': 'Error',
  '5': 'Failed',
  '7': 'Escrow',
};

export const HISTORY_MAX_LIMIT = 20;
export const HISTORY_DEFAULT_LIMIT = 10;

const present = (v: unknown) => v !== undefined && v !== null && v !== '';

function intOf(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  if (typeof v === 'string' && /^\s*-?\d+\s*$/.test(v)) return Number(v);
  return undefined;
}

/**
 * Validates a history body as the official clients send it: every field optional, `null` for absent
 * (the Go SDK sends every field), numbers as numbers or numeric strings (the docs' example sends
 * strings). `limit` above 20 is capped at 20.
 */
export function parseHistoryQuery(body: Record<string, unknown>): { ok: true; query: HistoryQuery } | { ok: false; errors: Record<string, string[]> } {
  const errors: Record<string, string[]> = {};
  const add = (f: string, m: string): void => {
    errors[f] = [...(errors[f] ?? []), m];
  };
  const q: HistoryQuery = { dateField: 'created_at', page: 1, limit: HISTORY_DEFAULT_LIMIT, orderBy: 'id', order: 'DESC' };
  if (present(body.status)) {
    const s = intOf(body.status);
    if (s === undefined || !(s in STATUS_DESC)) add('status', 'status tidak valid.');
    else q.status = s;
  }
  if (present(body.date)) {
    if (body.date !== 'created_at' && body.date !== 'indate') add('date', 'date harus created_at atau indate.');
    else q.dateField = body.date;
  }
  for (const [field, key] of [
    ['startdate', 'start'],
    ['enddate', 'end'],
  ] as const) {
    if (!present(body[field])) continue;
    const v = body[field];
    if (typeof v !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(v) || Number.isNaN(Date.parse(v))) add(field, `${field} harus berformat Y-m-d.`);
    else q[key] = v;
  }
  if (present(body.page)) {
    const p = intOf(body.page);
    if (p === undefined || p < 1) add('page', 'page harus berupa angka lebih dari 0.');
    else q.page = p;
  }
  if (present(body.limit)) {
    const l = intOf(body.limit);
    if (l === undefined || l < 1) add('limit', 'limit harus berupa angka lebih dari 0.');
    else q.limit = Math.min(l, HISTORY_MAX_LIMIT);
  }
  if (present(body.orderBy)) {
    if (body.orderBy !== 'id' && body.orderBy !== 'created_at' && body.orderBy !== 'indate') add('orderBy', 'orderBy harus id, created_at atau indate.');
    else q.orderBy = body.orderBy;
  }
  if (present(body.order)) {
    const o = typeof body.order === 'string' ? body.order.toUpperCase() : '';
    if (o !== 'ASC' && o !== 'DESC') add('order', 'order harus ASC atau DESC.');
    else q.order = o;
  }
  if (present(body.type)) {
    const t = intOf(body.type);
    if (t === undefined || t < 0) add('type', 'type harus berupa angka.');
    else q.type = t;
  }
  if (present(body.lockStatus)) {
    const l = intOf(body.lockStatus);
    if (l !== 0 && l !== 1) add('lockStatus', 'lockStatus harus 0 atau 1.');
    else q.locked = l === 1;
  }
  if (present(body.lang)) {
    if (body.lang !== 'id' && body.lang !== 'en') add('lang', 'lang harus id atau en.');
    else q.lang = body.lang;
  }
  const ids: number[] = [];
  if (present(body.id)) {
    const id = intOf(body.id);
    if (id === undefined) add('id', 'id harus berupa angka.');
    else ids.push(id);
  }
  if (present(body.bulkId)) {
    const parts = String(body.bulkId)
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    if (parts.some((p) => intOf(p) === undefined)) add('bulkId', 'bulkId harus berupa daftar id dipisah koma.');
    else ids.push(...parts.map(Number));
  }
  if (ids.length > 0) q.ids = ids;
  if (present(body.cursor)) {
    const c = decodeCursor(body.cursor);
    if (!c) add('cursor', 'cursor tidak valid.');
    else q.cursor = c;
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return { ok: true, query: q };
}
