import type { IncomingMessage, ServerResponse } from 'node:http';
import { actingAccount } from './accounts.js';
import { buildTransaction } from './payments.js';
import { lookupRegions } from './regions.js';
import type { RouteContext } from './route-context.js';
import { readPaymentRequest } from './validate.js';
import { envelope, jsonObjectBody, paymentData } from './views.js';

/** Region lookups (province → city → district → village), from the bundled data. */
export function regionsRoute(c: RouteContext, req: IncomingMessage, res: ServerResponse, signed: Buffer[], level: string, code: string | undefined): void {
  if (!c.authenticated(req, signed, res)) return;
  if (level !== 'province' && code === undefined) {
    envelope(res, 404, 'route not found', null);
    return;
  }
  let decoded: string | undefined;
  try {
    decoded = code === undefined ? undefined : decodeURIComponent(code);
  } catch {
    decoded = ''; // not a code the gateway knows: an empty result, like any unknown code
  }
  envelope(res, 200, 'Success', lookupRegions(c.regions, level, decoded));
}

/** A direct payment: authenticate → validate → create → store → answer (the callback comes on its transition). */
export async function directPayment(c: RouteContext, req: IncomingMessage, res: ServerResponse, body: Buffer, signed: Buffer[], method: string): Promise<void> {
  const account = c.authenticated(req, signed, res);
  if (!account) return;
  if (method !== 'POST') {
    envelope(res, 405, 'method not allowed', null);
    return;
  }
  const json = jsonObjectBody(body, res, 'null');
  if (!json) return;
  // A payment for one of the caller's child accounts (`account`), or the caller's own.
  const acting = actingAccount(account, json.account, c.byVa);
  if (!acting) {
    envelope(res, 400, 'error - invalid request', null, { Error: { account: ['Invalid va'] } });
    return;
  }
  const read = readPaymentRequest(json);
  if (!read.ok) {
    envelope(res, 400, 'error - invalid request', null, { Error: read.errors });
    return;
  }
  // The id comes from the ledger's sequence, in the transaction that stores the payment; the answer goes out once it is committed.
  const t = await c.state.addTransaction((id) => buildTransaction(read.request, acting, id, c.now().getTime()));
  envelope(res, 200, 'Success', paymentData(t, `http://${req.headers.host ?? 'sandbox'}`));
}
