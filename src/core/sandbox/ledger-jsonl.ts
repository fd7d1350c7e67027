import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { UsageError } from '../errors.js';
import { fsError } from '../fs-errors.js';
import type { RedirectSession } from './redirect-session.js';
import type { Member, PickupRequest, Transfer } from './records.js';
import { statusInfo } from '../statuses.js';
import {
  DELIVERY_STATES,
  isInt,
  isObj,
  isStr,
  STAGES,
  STATUSES,
  validAttempt,
  validDelivery,
  validDetail,
  validMember,
  validPickup,
  validSession,
  validTransfer,
  validTxn,
} from './ledger-records.js';
import { CLOCK_SETTING } from './clock.js';
import type { AttemptDetail, AttemptInfo, Delivery, SandboxState, SeedPayment, ServiceRecords, Transaction } from './state.js';

/**
 * The ledger as JSONL, both ways: `sandbox export` writes one `{"t":"payment", txn, deliveries}` line
 * per transaction (oldest first), one `{"t":"session", s}` line per redirect session, and the COD
 * and Close API records as the older journal wrote them: `{"t":"ship", id, stage, at}` (a parcel's
 * step), `{"t":"pickup", p}`, `{"t":"transfer", tr}` and `{"t":"member", m}`, then the ledger's
 * counters, `{"t":"ids", upTo, callbacksUpTo, membersUpTo}` (the next transaction id, the next
 * callback's number and the next Close API member's), and last the clock's offset, `{"t":"clock", offsetMs}`; `sandbox import` reads
 * those, and also the journal that paycli's emulator wrote before the ledger moved to SQLite
 * (`journal.jsonl`: `txn`, `status`, `delivery`, `attempt`, `ids` and those four records), which a
 * data dir imports once, on its first start with this version.
 */

type Queued = { delivery: Delivery; attempts: Omit<AttemptInfo, 'deliveryId'>[] };
type Entry = { txn: Transaction; deliveries: Map<string, Queued> };
interface Reading {
  txns: Map<number, Entry>;
  deliveries: Map<string, Queued>;
  sessions: Map<string, RedirectSession>;
  reserve: { txnId: number; deliverySeq: number; memberSeq?: number };
  /** Parcel steps by `trxId:stage`, pickups, transfers by id, members by VA. */
  steps: Map<string, ServiceRecords['steps'][number]>;
  pickups: PickupRequest[];
  transfers: Map<number, Transfer>;
  members: Map<string, Member>;
  /** The clock's offset (ms ahead of real time) of an export. */
  clock?: number;
}

/** What a file held, ready to store in one transaction. */
export interface ReadLedger {
  payments: SeedPayment[];
  sessions: RedirectSession[];
  /** Numbers up to these may have been handed out (an export's counters, the older journal's reservations). */
  reserve: { txnId: number; deliverySeq: number; memberSeq?: number };
  /** COD parcels' steps and pickups (of the transactions read), Close API transfers and members. */
  records: ServiceRecords;
  /** Lines that could not be read or applied (a line torn by a crash, a hand edit). */
  skipped: number;
  /** The exported emulator's clock offset (ms ahead of real time); undefined in an older file. */
  clockOffsetMs?: number;
}

/**
 * An `ids` record: `upTo`, the next transaction id (all the older journal wrote), and an export's
 * `callbacksUpTo` and `membersUpTo`, the next callback's and member's numbers; the numbers below
 * them may have been handed out.
 */
function reserveIds(r: Record<string, unknown>, reserve: Reading['reserve']): boolean {
  const next = (v: unknown): v is number => isInt(v) && v > 0;
  if (!next(r.upTo) || (r.callbacksUpTo !== undefined && !next(r.callbacksUpTo)) || (r.membersUpTo !== undefined && !next(r.membersUpTo))) return false;
  reserve.txnId = Math.max(reserve.txnId, r.upTo - 1);
  if (next(r.callbacksUpTo)) reserve.deliverySeq = Math.max(reserve.deliverySeq, r.callbacksUpTo - 1);
  if (next(r.membersUpTo)) reserve.memberSeq = Math.max(reserve.memberSeq ?? 0, r.membersUpTo - 1);
  return true;
}

/** Applies one record (an export line or an older journal's record); false when it is not one this version reads. */
function apply(r: unknown, reading: Reading): boolean {
  const { txns, deliveries, sessions, reserve, steps, pickups, transfers, members } = reading;
  if (!isObj(r)) return false;
  const seq = (id: string) => Number(id.slice(3));
  const addDelivery = (d: Delivery, attempts: Omit<AttemptInfo, 'deliveryId'>[] = []): boolean => {
    const e = txns.get(d.trxId);
    if (!e) return false;
    const q = { delivery: { ...d }, attempts };
    e.deliveries.set(d.id, q);
    deliveries.set(d.id, q);
    reserve.deliverySeq = Math.max(reserve.deliverySeq, seq(d.id));
    return true;
  };
  switch (r.t) {
    case 'payment': {
      if (!validTxn(r.txn) || !Array.isArray(r.deliveries)) return false;
      const list = r.deliveries as unknown[];
      if (!list.every((x) => isObj(x) && validDelivery(x.delivery) && Array.isArray(x.attempts) && (x.attempts as unknown[]).every(validAttempt))) return false;
      txns.set(r.txn.id, { txn: r.txn, deliveries: new Map() });
      reserve.txnId = Math.max(reserve.txnId, r.txn.id);
      for (const x of list as { delivery: Delivery; attempts: Omit<AttemptInfo, 'deliveryId'>[] }[])
        addDelivery({ ...x.delivery, trxId: r.txn.id }, x.attempts);
      return true;
    }
    case 'session':
      if (!validSession(r.s)) return false;
      sessions.set(r.s.sid, r.s);
      return true;
    case 'txn':
      if (!validTxn(r.txn)) return false;
      txns.set(r.txn.id, { txn: { ...r.txn }, deliveries: new Map() });
      reserve.txnId = Math.max(reserve.txnId, r.txn.id);
      return true;
    case 'ids':
      return reserveIds(r, reserve);
    case 'status': {
      if (!isInt(r.id) || !isStr(r.status) || !STATUSES.has(r.status) || !isInt(r.at) || (r.d !== undefined && !validDelivery(r.d))) return false;
      const e = txns.get(r.id);
      if (!e) return false;
      e.txn.status = r.status as Transaction['status'];
      if (statusInfo(r.status as Transaction['status']).paid && e.txn.paidAt === undefined) e.txn.paidAt = r.at;
      if (r.status === 'berhasil') e.txn.settledAt = r.at;
      e.txn.endedAt = r.at;
      if (r.d) addDelivery(r.d as Delivery);
      return true;
    }
    case 'delivery':
      return validDelivery(r.d) && addDelivery(r.d);
    case 'attempt': {
      if (
        !isStr(r.id) ||
        !isInt(r.attempts) ||
        !isStr(r.state) ||
        !DELIVERY_STATES.has(r.state) ||
        !(r.nextAt === null || isInt(r.nextAt)) ||
        !isStr(r.result) ||
        (r.a !== undefined && !validDetail(r.a))
      )
        return false;
      const d = deliveries.get(r.id);
      if (!d) return false;
      Object.assign(d.delivery, { attempts: r.attempts, state: r.state, nextAt: r.nextAt, lastResult: r.result });
      d.attempts.push({
        attempt: r.attempts,
        state: r.state as Delivery['state'],
        nextAt: r.nextAt as number | null,
        result: r.result,
        ...(r.a ? { detail: r.a as AttemptDetail } : {}),
      });
      return true;
    }
    case 'ship':
      if (!isInt(r.id) || !isStr(r.stage) || !STAGES.has(r.stage) || !isInt(r.at)) return false;
      steps.set(`${r.id}:${r.stage}`, { trxId: r.id, stage: r.stage as ServiceRecords['steps'][number]['stage'], at: r.at });
      return true;
    case 'pickup':
      if (!validPickup(r.p)) return false;
      pickups.push(r.p);
      return true;
    case 'transfer':
      if (!validTransfer(r.tr)) return false;
      transfers.set(r.tr.id, r.tr);
      reserve.txnId = Math.max(reserve.txnId, r.tr.id);
      return true;
    case 'member':
      if (!validMember(r.m)) return false;
      members.set(r.m.va, r.m);
      return true;
    case 'clock':
      if (!isInt(r.offsetMs) || r.offsetMs < 0) return false;
      reading.clock = r.offsetMs;
      return true;
    default:
      return false;
  }
}

/** Reads a ledger export or an older journal, line by line; unreadable lines are counted and skipped. */
export async function readLedgerJsonl(file: string): Promise<ReadLedger> {
  const reading: Reading = {
    txns: new Map(),
    deliveries: new Map(),
    sessions: new Map(),
    reserve: { txnId: 0, deliverySeq: 0, memberSeq: 0 },
    steps: new Map(),
    pickups: [],
    transfers: new Map(),
    members: new Map(),
  };
  const { txns, sessions, reserve } = reading;
  let skipped = 0;
  try {
    const lines = createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
    for await (const line of lines) {
      if (line.trim() === '') continue;
      let r: unknown;
      try {
        r = JSON.parse(line);
      } catch {
        skipped++;
        continue;
      }
      if (!apply(r, reading)) skipped++;
    }
  } catch (err) {
    throw fsError(err, file);
  }
  const payments: SeedPayment[] = [...txns.values()]
    .sort((a, b) => a.txn.id - b.txn.id)
    .map((e) => ({
      txn: e.txn,
      deliveries: [...e.deliveries.values()]
        .sort((a, b) => Number(a.delivery.id.slice(3)) - Number(b.delivery.id.slice(3)))
        .map(({ delivery: { trxId: _t, ...delivery }, attempts }) => ({ delivery, attempts })),
    }));
  // A step or pickup of a transaction the file does not hold has nothing to belong to: skipped.
  const steps = [...reading.steps.values()].filter((x) => txns.has(x.trxId));
  const pickups = reading.pickups.filter((x) => txns.has(x.trxId));
  skipped += reading.steps.size - steps.length + reading.pickups.length - pickups.length;
  // A transfer of a referenceId used before (a hand edit) is not stored twice; nor a member's e-mail.
  const refs = new Set<string>();
  const transfers = [...reading.transfers.values()]
    .sort((a, b) => a.id - b.id)
    .filter((t) => t.referenceId === '' || (!refs.has(`${t.by}\0${t.referenceId}`) && refs.add(`${t.by}\0${t.referenceId}`)));
  const emails = new Set<string>();
  const members = [...reading.members.values()].sort((a, b) => a.at - b.at).filter((m) => !emails.has(m.email) && emails.add(m.email));
  skipped += reading.transfers.size - transfers.length + reading.members.size - members.length;
  return {
    payments,
    sessions: [...sessions.values()],
    reserve,
    records: { steps, pickups, transfers, members },
    skipped,
    ...(reading.clock !== undefined ? { clockOffsetMs: reading.clock } : {}),
  };
}

/**
 * Stores what a file held into an empty ledger, in one transaction; refuses a ledger that holds
 * anything (transactions, redirect sessions, transfers or members: what `sandbox reset` empties).
 * The export's clock offset comes with it (the times in the file are on that clock); a file without
 * one (an older paycli's) leaves the clock as it is. Its counters raise the ledger's, never lower
 * them: ids and payment numbers go on above both.
 */
export async function importLedger(
  state: SandboxState,
  file: string,
  mark?: string,
): Promise<{ payments: number; sessions: number; skipped: number; clockOffsetMs: number }> {
  const held = Object.entries(state.holdings()).filter(([, n]) => n > 0);
  if (held.length > 0)
    throw new UsageError(
      `the emulator ledger ${state.path} is not empty: it holds ${held.map(([what, n]) => `${n} ${n === 1 ? what.slice(0, -1) : what}`).join(', ')}`,
      {
        hint: 'empty it first with `paycli sandbox reset`',
      },
    );
  const read = await readLedgerJsonl(file);
  const settings = read.clockOffsetMs !== undefined ? { [CLOCK_SETTING]: String(read.clockOffsetMs) } : undefined;
  const payments = state.bulk(read.payments, { sessions: read.sessions, reserve: read.reserve, records: read.records, mark, settings });
  return { payments, sessions: read.sessions.length, skipped: read.skipped, clockOffsetMs: Number(state.setting(CLOCK_SETTING) ?? 0) };
}

/** The export lines of a ledger: one per transaction (with its callbacks and attempts), one per redirect session, the COD and Close API records, the counters, then the clock. */
export function* ledgerLines(state: SandboxState): Generator<string> {
  for (const p of state.everything()) {
    const deliveries = p.deliveries.map(({ delivery, attempts }) => ({ delivery, attempts: attempts.map(({ deliveryId: _d, ...a }) => a) }));
    yield `${JSON.stringify({ t: 'payment', txn: p.txn, deliveries })}\n`;
  }
  for (const s of state.sessions()) yield `${JSON.stringify({ t: 'session', s })}\n`;
  const r = state.serviceRecords();
  for (const { trxId, stage, at } of r.steps) yield `${JSON.stringify({ t: 'ship', id: trxId, stage, at })}\n`;
  for (const p of r.pickups) yield `${JSON.stringify({ t: 'pickup', p })}\n`;
  for (const tr of r.transfers) yield `${JSON.stringify({ t: 'transfer', tr })}\n`;
  for (const m of r.members) yield `${JSON.stringify({ t: 'member', m })}\n`;
  // The next numbers of the ledger's sequences (what a reset keeps): an import goes on from them.
  const f = state.idFloors();
  yield `${JSON.stringify({ t: 'ids', upTo: f.txnId + 1, callbacksUpTo: f.deliverySeq + 1, membersUpTo: f.memberSeq + 1 })}\n`;
  // Last: the clock the times above are on (how far `sandbox clock` moved it ahead of real time).
  yield `${JSON.stringify({ t: 'clock', offsetMs: Number(state.setting(CLOCK_SETTING) ?? 0) })}\n`;
}
