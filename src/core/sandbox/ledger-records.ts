import type { RedirectSession } from './redirect-session.js';
import { SHIPMENT_STAGES, type Member, type PickupRequest, type Transfer } from './records.js';
import { isStatusKey } from '../statuses.js';
import type { AttemptDetail, AttemptInfo, Delivery, Transaction } from './state.js';

// The shapes of the records in a ledger export (or an older journal) line: what `sandbox import` accepts.

/** The nine statuses of statuses.ts. */
export const STATUSES = { has: isStatusKey };
export const DELIVERY_STATES = new Set(['pending', 'delivered', 'failed']);
export const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
export const isInt = (v: unknown): v is number => Number.isSafeInteger(v);
export const isStr = (v: unknown): v is string => typeof v === 'string';

export function validTxn(t: unknown): t is Transaction {
  return (
    isObj(t) &&
    isInt(t.id) &&
    t.id > 0 &&
    isStr(t.merchantVa) &&
    isStr(t.via) &&
    isStr(t.channel) &&
    isStr(t.paymentNo) &&
    isInt(t.amount) &&
    isInt(t.fee) &&
    isStr(t.status) &&
    STATUSES.has(t.status) &&
    isInt(t.createdAt) &&
    isInt(t.expiresAt) &&
    isStr(t.notifyUrl) &&
    isObj(t.buyer) &&
    Array.isArray(t.items)
  );
}

export function validDelivery(d: unknown): d is Delivery {
  return (
    isObj(d) &&
    isStr(d.id) &&
    /^cb-\d+$/.test(d.id) &&
    isInt(d.trxId) &&
    isStr(d.status) &&
    STATUSES.has(d.status) &&
    isStr(d.url) &&
    (d.format === 'form' || d.format === 'json') &&
    isInt(d.attempts) &&
    isStr(d.state) &&
    DELIVERY_STATES.has(d.state) &&
    (d.nextAt === null || isInt(d.nextAt))
  );
}

export function validDetail(a: unknown): a is AttemptDetail {
  return (
    isObj(a) &&
    isInt(a.at) &&
    isStr(a.url) &&
    isObj(a.headers) &&
    Object.values(a.headers).every(isStr) &&
    isStr(a.body) &&
    (a.httpStatus === null || isInt(a.httpStatus)) &&
    (a.ms === null || typeof a.ms === 'number') &&
    isStr(a.answer) &&
    (a.truncated === undefined || typeof a.truncated === 'boolean') &&
    (a.duplicate === undefined || typeof a.duplicate === 'boolean')
  );
}

export function validAttempt(a: unknown): a is Omit<AttemptInfo, 'deliveryId'> {
  return (
    isObj(a) &&
    isInt(a.attempt) &&
    isStr(a.state) &&
    DELIVERY_STATES.has(a.state) &&
    (a.nextAt === null || isInt(a.nextAt)) &&
    isStr(a.result) &&
    (a.detail === undefined || validDetail(a.detail))
  );
}

export const STAGES = new Set<string>(SHIPMENT_STAGES);

export function validPickup(p: unknown): p is PickupRequest {
  return isObj(p) && isInt(p.trxId) && isStr(p.date) && isStr(p.time) && isStr(p.vehicle) && isInt(p.requestedAt);
}

export function validTransfer(t: unknown): t is Transfer {
  return (
    isObj(t) &&
    isInt(t.id) &&
    t.id > 0 &&
    isStr(t.by) &&
    isStr(t.sender) &&
    isStr(t.receiver) &&
    isInt(t.amount) &&
    t.amount > 0 &&
    isStr(t.referenceId) &&
    (t.relatedId === undefined || isStr(t.relatedId)) &&
    isStr(t.notes) &&
    isInt(t.at)
  );
}

export function validMember(m: unknown): m is Member {
  return (
    isObj(m) &&
    isStr(m.va) &&
    isStr(m.name) &&
    isStr(m.email) &&
    isStr(m.phone) &&
    isStr(m.parent) &&
    (m.websiteUrl === undefined || isStr(m.websiteUrl)) &&
    isInt(m.at)
  );
}

export function validSession(s: unknown): s is RedirectSession {
  return (
    isObj(s) &&
    isStr(s.sid) &&
    isStr(s.merchantVa) &&
    isInt(s.createdAt) &&
    isInt(s.expiresAt) &&
    isInt(s.amount) &&
    Array.isArray(s.items) &&
    isObj(s.buyer) &&
    isStr(s.notifyUrl)
  );
}
