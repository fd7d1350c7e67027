import type { IncomingMessage, ServerResponse } from 'node:http';
import { actionRefusal } from '../dashboard/html.js';
import { formatJakarta, isoJakarta } from '../time.js';
import type { SandboxLedger, Transaction } from './state.js';
import { statusInfo, statusLabel } from '../statuses.js';
import { noteRequest } from './request-log.js';
import { chargeOf, type Charge } from '../fees.js';
import { awbOf, trackingOf } from './cod-clock.js';

/** Answers with the gateway's envelope (docs/gateway.md, "Answers"). */
/**
 * A request body that must be a JSON object, as the gateway reads it; otherwise answered 400 in the
 * gateway's shape (undefined returned). `emptyAs`: what an empty body is (the merchant API's
 * lookups take it as `{}`, a direct payment as nothing, which is refused).
 */
export function jsonObjectBody(body: Buffer, res: ServerResponse, emptyAs: '{}' | 'null'): Record<string, unknown> | undefined {
  try {
    const v = JSON.parse(body.toString('utf8') || emptyAs) as unknown;
    if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    /* answered below */
  }
  envelope(res, 400, 'error - invalid request', null, { Error: { body: ['body harus berupa objek JSON yang valid.'] } });
  return undefined;
}

export function envelope(res: ServerResponse, status: number, message: string, data: unknown, extra?: Record<string, unknown>): void {
  if (extra && typeof extra.Error === 'object' && extra.Error !== null) noteRequest(res, { fieldErrors: extra.Error as Record<string, unknown> });
  const body = JSON.stringify({ Status: status, Success: status < 400, Message: message, ...(extra ?? {}), Data: data });
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** Answers with plain JSON (admin API). */
export function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/**
 * An admin change: POST only, and never from a page of another site (a browser must not act here for
 * it). False when refused (405 or 403 answered).
 */
export function postAllowed(req: IncomingMessage, method: string, res: ServerResponse): boolean {
  if (method !== 'POST') {
    res.setHeader('allow', 'POST');
    sendJson(res, 405, { ok: false, error: 'use POST' });
    return false;
  }
  const refused = actionRefusal(req);
  if (refused) {
    sendJson(res, 403, { ok: false, error: refused });
    return false;
  }
  return true;
}

/** The view of a transaction that the admin API and `paycli sandbox list` show. */
export function transactionView(t: Transaction, state: SandboxLedger, deliveries = state.deliveriesOf(t.id)): Record<string, unknown> {
  const s = statusInfo(t.status);
  return {
    id: t.id,
    sid: t.sid,
    referenceId: t.referenceId,
    status: t.status,
    statusCode: s.code,
    statusLabel: statusLabel(s),
    escrow: t.escrow === true,
    via: t.via,
    channel: t.channel,
    paymentNo: t.paymentNo,
    amount: t.amount,
    fee: t.fee,
    buyer: t.buyer,
    notifyUrl: t.notifyUrl,
    // paycli's own JSON: ISO 8601 with the WIB offset (`2026-11-24T00:58:04+07:00`).
    createdAt: isoJakarta(new Date(t.createdAt)),
    expiresAt: isoJakarta(new Date(t.expiresAt)),
    paidAt: t.paidAt ? isoJakarta(new Date(t.paidAt)) : null,
    settledAt: t.settledAt ? isoJakarta(new Date(t.settledAt)) : null,
    endedAt: t.endedAt ? isoJakarta(new Date(t.endedAt)) : null,
    callbacks: deliveries.map((d) => ({ id: d.id, status: d.status, state: d.state, attempts: d.attempts, lastResult: d.lastResult ?? null })),
    // A COD payment's parcel, as `cod track` answers it (its current state and steps on the clock).
    ...(t.via === 'cod' ? { parcel: parcelView(t, state) } : {}),
  };
}

/** A COD parcel in paycli's own JSON: the waybill, its state (the tracking words) and its steps with their times. */
function parcelView(t: Transaction, state: SandboxLedger): Record<string, unknown> {
  const steps = state.parcelSteps(t.id);
  return { awb: awbOf(t.id), state: trackingOf(t, steps).status, steps: steps.map((s) => ({ stage: s.stage, at: isoJakarta(new Date(s.at)) })) };
}

/** A transaction's money (fees.ts chargeOf): what the buyer pays, the fee, what the merchant receives. */
export function chargeOfTxn(t: Transaction): Charge {
  return chargeOf(t.amount, t.fee, t.feeDirection);
}

/** What the buyer pays: the amount, plus the fee when the buyer bears it. */
export function totalOf(t: Transaction): number {
  return chargeOfTxn(t).total;
}

/**
 * The `Data` of a direct-payment answer: the documented fields plus `SessionId`; QRIS adds the
 * documented extras (`QrString`, `QrImage` and `QrTemplate` served by the emulator, `SubTotal`,
 * `FeeDirection`, `Terminal`, `NNSCode`).
 */
export function paymentData(t: Transaction, base: string): Record<string, unknown> {
  const data: Record<string, unknown> = {
    SessionId: t.sid,
    TransactionId: t.id,
    ReferenceId: t.referenceId,
    Via: t.via,
    Channel: t.channel,
    PaymentNo: t.paymentNo,
    PaymentName: t.paymentName,
    Total: totalOf(t),
    Fee: t.fee,
    Expired: formatJakarta(new Date(t.expiresAt)),
    Note: null,
    Url: `${base}/pay/${t.id}`,
  };
  if (t.qrString) {
    Object.assign(data, {
      QrString: t.qrString,
      SubTotal: t.amount,
      FeeDirection: t.feeDirection ?? 'MERCHANT',
      QrImage: `${base}/qr/${t.id}`,
      QrTemplate: `${base}/qr/template/${t.id}`,
      Terminal: 'A01',
      NNSCode: '93600898',
    });
  }
  return data;
}
