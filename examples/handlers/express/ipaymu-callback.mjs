// iPaymu callbacks for Node: an Express-compatible handler, `(req, res)`, using node:crypto only.
//   app.post('/ipaymu/callback', express.urlencoded({ extended: false }), express.json(), ipaymuCallback(options))
// works with Express's parsed req.body; without a body parser (plain node:http) it reads the raw body.
// The signature is checked over the gateway's canonical form (PHP's json_encode: "\/" and "\u00d6"),
// the payment confirmed through check transaction, and each order fulfilled once, even when copies
// of a callback arrive at once (one lock per order around check-then-act).
// HANDLER_BUG turns on one deliberate bug (the tests prove paycli test-handler catches each).
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

const bugs = new Set(String(process.env.HANDLER_BUG ?? '').split(','));
const INTEGERS = new Set(['trx_id', 'status_code', 'transaction_status_code', 'paid_off']);

/** PHP's json_encode of a value: JSON with "/" escaped and every non-ASCII character as \uXXXX. */
function phpJson(value) {
  const json = JSON.stringify(value);
  if (bugs.has('json-stringify')) return json.replace(/\//g, '\\/'); // the gateway's JavaScript sample
  return json.replace(/\//g, '\\/').replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The canonical JSON the gateway signs: 4 integers, is_escrow a boolean, additional_info an array, the rest strings, keys in byte order. */
export function canonical(fields) {
  const out = {};
  for (const [key, value] of Object.entries(fields)) {
    if (key === 'signature') continue;
    if (INTEGERS.has(key)) out[key] = Number.parseInt(String(value), 10) || 0;
    else if (key === 'is_escrow') out[key] = value === true || ['1', 'true', 'on', 'yes'].includes(String(value).toLowerCase());
    else if (key === 'additional_info') out[key] = typeof value === 'string' ? (value === '' || value === '[]' ? [] : value) : value;
    else out[key] = String(value);
  }
  out.additional_info ??= [];
  const sorted = {};
  for (const key of Object.keys(out).sort((a, b) => (Buffer.from(a) < Buffer.from(b) ? -1 : 1))) sorted[key] = out[key];
  return phpJson(sorted);
}

export function signatureOk(fields, signature, va) {
  if (bugs.has('no-signature-check')) return true;
  const expected = createHmac('sha256', va).update(canonical(fields)).digest();
  const given = Buffer.from(String(signature ?? ''), 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Paid: status_code 1 with transaction_status_code 1 (settled), 6 (settled later) or 7 (escrow). */
export function isPaid(f) {
  if (bugs.has('any-status-paid')) return true;
  const tsc = f.transaction_status_code === undefined ? 1 : Number(f.transaction_status_code);
  const codes = bugs.has('six-is-refund') ? [1, 7] : bugs.has('seven-is-expired') ? [1, 6] : [1, 6, 7];
  return Number(f.status_code) === 1 && codes.includes(tsc);
}

/** Check transaction, signed with the API key: the gateway's record of a trx, or null. */
export async function checkTransaction(trxId, { va, apiKey, baseUrl }) {
  const body = JSON.stringify({ transactionId: trxId });
  const hash = createHash('sha256').update(body).digest('hex');
  const signature = createHmac('sha256', apiKey).update(`POST:${va}:${hash}:${apiKey}`).digest('hex');
  const timestamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
  try {
    const res = await fetch(`${baseUrl.replace(/\/+$/, '')}/v2/transaction`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json', va, signature, timestamp },
      body,
      signal: AbortSignal.timeout(10_000),
    });
    const json = await res.json();
    return json?.Status === 200 && json.Data ? json.Data : null;
  } catch {
    return null;
  }
}

async function fieldsOf(req) {
  if (req.body && typeof req.body === 'object' && !Buffer.isBuffer(req.body)) return req.body; // parsed by Express
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const text = Buffer.concat(chunks).toString('utf8');
  if (String(req.headers['content-type'] ?? '').includes('json')) {
    try {
      const v = JSON.parse(text);
      return v && typeof v === 'object' ? v : null;
    } catch {
      return null;
    }
  }
  return Object.fromEntries(new URLSearchParams(text));
}

function send(res, status, body) {
  if (typeof res.status === 'function' && typeof res.json === 'function') return res.status(status).json(body); // Express
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/**
 * The callback handler. `orders` keeps orders: `get(ref)`, `put(order)` (durable before it returns),
 * `lock(ref, fn)` (one at a time per order), `ship(ref)` (the fulfilment: once per order).
 * Answers 200 once the outcome is stored, 400 for a bad signature, 409 while the gateway does not
 * confirm a paid callback (the gateway retries anything but 200).
 */
export function ipaymuCallback({ va, apiKey, baseUrl, orders }) {
  return async (req, res) => {
    const f = await fieldsOf(req);
    if (!f || !signatureOk(f, req.headers['x-signature'], va)) return send(res, 400, { status: 'invalid signature' });
    const ref = String(f.reference_id ?? '');
    const trx = Number(f.trx_id);
    const amount = Number(f.sub_total ?? f.amount);
    const paid = isPaid(f);
    const refund = Number(f.status_code) === 3 || Number(f.transaction_status_code) === 3;
    if (paid && !bugs.has('no-confirm')) {
      // The signature proves the VA signed it; the VA is no secret. The gateway's record decides.
      const record = await checkTransaction(trx, { va, apiKey, baseUrl });
      if (!record || ![1, 6, 7].includes(Number(record.Status))) return send(res, 409, { status: 'not confirmed by the gateway' });
      if (Number(record.Amount) !== amount && !bugs.has('no-amount-check')) return send(res, 409, { status: 'amount differs from the gateway' });
    }
    const answer = await orders.lock(ref, async () => {
      let o = orders.get(ref);
      if (!o && bugs.has('create-unknown')) o = { reference_id: ref, trx_id: trx, amount, status: 'unpaid' };
      if (!o || o.trx_id !== trx) return { status: 'unknown order: ignored' };
      if (paid && amount !== o.amount && !bugs.has('no-amount-check')) return { status: 'amount differs from the order: not fulfilled' };
      if (bugs.has('no-lock')) await new Promise((r) => setTimeout(r, 200)); // see OrderFile.lock
      if (paid && (o.status === 'unpaid' || bugs.has('no-idempotency') || (o.status === 'refunded' && bugs.has('replay-after-refund')))) {
        o = { ...o, status: 'paid' };
        await orders.ship(ref); // inside the lock: once per order
      } else if (refund && o.status === 'paid') o = { ...o, status: 'refunded' };
      else if (!paid && !refund && bugs.has('downgrade')) o = { ...o, status: 'unpaid' };
      await orders.put({ ...o, gateway_status: String(f.status ?? '') });
      return { status: 'OK' };
    });
    send(res, 200, answer);
  };
}
