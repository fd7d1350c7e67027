import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { feeFor } from '../fees.js';
import { paymentNumber } from '../payment-numbers.js';
import { CHANNEL_NAMES } from '../payment-rules.js';
import { parseStatus, STATUS_CHOICES } from '../statuses.js';
import { ledgerLines } from './ledger-jsonl.js';
import { decodeCursor, encodeCursor } from './history-query.js';
import type { SandboxState, SeedPayment, Transaction, TxnFilter } from './state.js';

/** What `sandbox seed` makes: N payments over the last D days, a share of them paid. */
export interface SeedSpec {
  payments: number;
  /** Share of paid payments, 0 to 1. */
  paid: number;
  days: number;
}

export const SEED_MAX = 10_000_000;

/** How many of a seed's payments are paid: exactly the share asked for, rounded (`--paid 0.7` of 10 is 7). */
export function paidCount(spec: SeedSpec): number {
  return Math.round(spec.payments * spec.paid);
}

/** Checks a seed request (flags or the admin API's query). */
export function readSeedSpec(raw: { payments?: unknown; paid?: unknown; days?: unknown }): { ok: true; spec: SeedSpec } | { ok: false; error: string } {
  const num = (v: unknown, dflt: number) =>
    v === undefined || v === '' ? dflt : typeof v === 'number' ? v : typeof v === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(v) ? Number(v) : NaN;
  const payments = num(raw.payments, NaN);
  const paid = num(raw.paid, 0.7);
  const days = num(raw.days, 90);
  if (!Number.isInteger(payments) || payments < 1 || payments > SEED_MAX) return { ok: false, error: `payments must be a whole number from 1 to ${SEED_MAX}` };
  if (!(paid >= 0 && paid <= 1)) return { ok: false, error: 'paid must be a share from 0 to 1 (0.7 = 70 %)' };
  if (!Number.isInteger(days) || days < 1 || days > 3650) return { ok: false, error: 'days must be a whole number from 1 to 3650' };
  return { ok: true, spec: { payments, paid, days } };
}

const CHANNELS: [string, string][] = [
  ['va', 'bca'],
  ['va', 'bni'],
  ['va', 'mandiri'],
  ['va', 'bri'],
  ['qris', 'mpm'],
  ['cstore', 'alfamart'],
  ['cstore', 'indomaret'],
];
const HOUR = 3_600_000;
const DAY = 86_400_000;
/** Seeded callbacks went to the discard port: a re-send reaches nobody unless the merchant says so. */
export const SEED_NOTIFY_URL = 'http://127.0.0.1:9/callback';

/** A small deterministic generator (mulberry32): the same seed makes the same history. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Bulk synthetic history: payments created evenly over the last `days` days (oldest first), exactly
 * `paidCount` of them (chosen at random, the same ones for the same spec) paid within the hour with
 * a delivered callback, the rest expired after 24 h (with a
 * delivered expiry callback) or, when recent, still pending. The callbacks' requests are not made
 * up: a seeded delivery has its outcome and no attempt record. Ids come from the ledger's sequence.
 * In batches of one SQLite transaction each; with `yieldBetween`, the event loop runs between
 * batches (seeding a running emulator).
 */
export async function seedLedger(
  state: SandboxState,
  spec: SeedSpec & { va: string; merchantName: string; now: number },
  opts: { batch?: number; yieldBetween?: boolean; onProgress?: (done: number) => void } = {},
): Promise<number> {
  const rnd = random(spec.payments * 31 + Math.round(spec.paid * 1000) + spec.days);
  const span = spec.days * DAY;
  const start = spec.now - span;
  const batch = opts.batch ?? 20_000;
  let done = 0;
  // Selection sampling (Knuth's algorithm S): each payment is paid with the chance that leaves
  // exactly `toPay` paid in all, whatever the generator draws.
  let toPay = paidCount(spec);
  const make =
    (i: number) =>
    (id: number): SeedPayment => {
      const [via, channel] = CHANNELS[i % CHANNELS.length]!;
      const amount = 10_000 + Math.floor(rnd() * 990) * 1000;
      const createdAt = Math.floor(start + ((i + rnd()) * span) / spec.payments);
      const expiresAt = createdAt + DAY;
      const isPaid = rnd() * (spec.payments - i) < toPay;
      if (isPaid) toPay--;
      const { paymentNo, qrString } = paymentNumber(via, channel, id, spec.merchantName, amount);
      const txn: Transaction = {
        id,
        sid: randomUUID(),
        merchantVa: spec.va,
        referenceId: `SEED-${id}`,
        via,
        channel,
        paymentNo,
        paymentName: CHANNEL_NAMES[channel] ?? channel,
        ...(qrString ? { qrString } : {}),
        amount,
        fee: feeFor(via, amount),
        status: 'pending',
        createdAt,
        expiresAt,
        notifyUrl: SEED_NOTIFY_URL,
        buyer: { name: `Buyer ${i + 1}`, phone: `0812${String(i).padStart(8, '0')}`, email: `buyer${i + 1}@example.com` },
        items: [{ product: 'Seeded item', qty: 1, price: amount }],
      };
      let endedAt: number | undefined;
      if (isPaid) {
        txn.status = 'berhasil';
        txn.paidAt = endedAt = Math.min(spec.now, createdAt + Math.floor(rnd() * HOUR));
        txn.endedAt = endedAt;
      } else if (expiresAt <= spec.now) {
        txn.status = 'expired';
        txn.endedAt = endedAt = expiresAt;
      }
      if (endedAt === undefined) return { txn };
      const status = txn.status;
      return {
        txn,
        deliveries: [
          {
            // Delivered at the first attempt; what was sent is not made up (the dashboard says so).
            delivery: {
              status,
              url: SEED_NOTIFY_URL,
              format: 'form',
              attempts: 1,
              state: 'delivered',
              nextAt: null,
              lastResult: 'HTTP 200',
              createdAt: endedAt,
            },
            attempts: [],
          },
        ],
      };
    };
  while (done < spec.payments) {
    const n = Math.min(batch, spec.payments - done);
    const from = done;
    state.bulk(
      (function* () {
        for (let i = from; i < from + n; i++) yield make(i);
      })(),
    );
    done += n;
    opts.onProgress?.(done);
    if (opts.yieldBetween) await new Promise((r) => setImmediate(r));
  }
  return done;
}

/** A page of `sandbox list` (admin API): newest first by (created time, id), after a cursor. */
export function listPage(
  state: SandboxState,
  q: URLSearchParams,
): { ok: true; rows: Transaction[]; next: string | null; total: number } | { ok: false; error: string } {
  const limitRaw = q.get('limit');
  const limit = limitRaw === null ? 100 : Number(limitRaw);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) return { ok: false, error: 'limit must be a whole number from 1 to 1000' };
  const after = q.get('after');
  const cursor = after === null || after === '' ? undefined : decodeCursor(after);
  if (after && !cursor) return { ok: false, error: `invalid cursor "${after}"` };
  const f: TxnFilter = {};
  const status = q.get('status');
  if (status) {
    // As history reads it: the key, the gateway's word, the gloss or the code (`paid`, `PENDING`, `-2`).
    const s = parseStatus(status);
    if (!s) return { ok: false, error: `invalid status "${status}" (${STATUS_CHOICES})` };
    f.status = s.key;
  }
  const via = q.get('method');
  if (via) f.via = via;
  const { rows, next } = state.page(f, { by: 'created', desc: true }, limit, { cursor });
  return { ok: true, rows, next: next ? encodeCursor(next) : null, total: state.count(f) };
}

/** Streams the ledger as JSONL (`sandbox export`), letting the event loop run between chunks. */
export async function sendExport(res: ServerResponse, state: SandboxState): Promise<void> {
  res.writeHead(200, { 'content-type': 'application/x-ndjson' });
  let n = 0;
  for (const line of ledgerLines(state)) {
    if (!res.write(line))
      await new Promise<void>((r) => {
        res.once('drain', () => r());
        res.once('close', () => r());
      });
    if (++n % 500 === 0) await new Promise((r) => setImmediate(r));
    if (res.destroyed) return;
  }
  res.end();
}
