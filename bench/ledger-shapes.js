// The ledger's slower request shapes at scale, timed on the ledger itself (no HTTP: what the store
// costs a request), on a data dir seeded with `paycli sandbox seed --payments 1000000`:
//
//   node bench/ledger-shapes.js prepare DIR   several merchants, COD rows, a rare method, 100 000
//                                             transfers (once, on a freshly seeded ledger)
//   node bench/ledger-shapes.js time DIR      opens DIR (times a schema migration, if one runs),
//                                             then the shapes and the cost of writes
//
// After `npm run build`. `time` writes to DIR (payments made and paid): time a copy.
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import { parseHistoryQuery } from '../dist/core/sandbox/history-query.js';
import { historyPage } from '../dist/core/sandbox/ledger.js';
import { rebuildDays } from '../dist/core/sandbox/state-days.js';
import { SandboxState } from '../dist/core/sandbox/state.js';

const VA = '1179000899';
const OTHER = '1179000900';
const DAY = 86_400_000;
const r2 = (x) => Math.round(x * 100) / 100;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function timed(runs, fn) {
  fn(0);
  const xs = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    fn(i);
    xs.push(performance.now() - t);
  }
  return { medianMs: r2(median(xs)), maxMs: r2(Math.max(...xs)) };
}

async function prepare(dir) {
  const db = new Sqlite(join(dir, 'ledger.db'));
  // A second merchant (a third of the payments), COD payments (1 % of the expired), a method with 5 payments.
  db.exec(`
    UPDATE txns SET merchant_va = '${OTHER}' WHERE id % 3 = 0;
    UPDATE txns SET via = 'cod' WHERE id % 100 = 5 AND status = 'expired';
    UPDATE txns SET via = 'paylater' WHERE id IN (100011, 300017, 500023, 700031, 900037);
    DELETE FROM txn_counts;
    INSERT INTO txn_counts SELECT merchant_va, status, via, count(*), sum(paid_off) FROM txns GROUP BY 1, 2, 3;
  `);
  // One paid payment in a thousand paid 20 days after it was made (a COD parcel delivered late, a payment paid once
  // the clock moved on): the late ones a page in id order within paid dates reads by txns_paid_late.
  db.prepare('UPDATE txns SET paid_at = paid_at + ? WHERE id % 1000 = 7 AND paid_at IS NOT NULL').run(20 * DAY);
  // The running counts per day and the late payments' index, as the rows now stand (a ledger of schema 8; an older
  // one gets them when opened).
  if (db.pragma('user_version', { simple: true }) >= 8) rebuildDays(db);
  db.close();
  const state = await SandboxState.open(dir);
  const top = state.idFloors().txnId;
  const transfers = [];
  for (let i = 0; i < 100_000; i++) {
    const out = i % 3 === 0;
    transfers.push({
      id: top + 1 + i,
      by: VA,
      sender: out ? VA : `11790${String(i % 50).padStart(5, '0')}`,
      receiver: out ? `11790${String(i % 50).padStart(5, '0')}` : VA,
      amount: 1000 + (i % 17),
      referenceId: `bench-${i}`,
      notes: '',
      at: Date.now() - i * 1000,
    });
  }
  state.bulk([], { records: { transfers } });
  await state.close();
}

async function time(dir) {
  const t0 = performance.now();
  const state = await SandboxState.open(dir);
  const openMs = r2(performance.now() - t0);
  const now = Date.now();
  const last = state.db.prepare('SELECT max(created_at) AS t FROM txns').get().t;
  const day = (back) => new Date(last - back * DAY + 7 * 3_600_000).toISOString().slice(0, 10);
  const history = (va, body) => () => {
    const q = parseHistoryQuery(body);
    if (!q.ok) throw new Error(JSON.stringify(q.errors));
    historyPage(state, va, 'bench', q.query, 'immediate', now);
  };
  const shapes = {
    // 1. a date range in id order
    'history one day 60 days ago (id DESC)': history(VA, { startdate: day(60), enddate: day(60) }),
    'history days 80-50 ago (id DESC)': history(VA, { startdate: day(80), enddate: day(50) }),
    'history one day 60 days ago (id ASC)': history(VA, { startdate: day(60), enddate: day(60), order: 'ASC' }),
    'history since 30 days ago, status 1 (id DESC)': history(VA, { startdate: day(30), status: 1 }),
    // 2. counts over a date range with several merchants (the second merchant's too)
    'history days 80-20 ago, other merchant': history(OTHER, { startdate: day(80), enddate: day(20) }),
    'history days 80-20 ago by paid date (indate)': history(VA, { date: 'indate', startdate: day(80), enddate: day(20) }),
    'history days 80-20 ago, status 1': history(VA, { startdate: day(80), enddate: day(20), status: 1 }),
    'history days 30-20 ago by paid date, id ASC': history(VA, { date: 'indate', startdate: day(30), enddate: day(20), order: 'ASC' }),
    'history days 80-20 ago by paid date, id ASC': history(VA, { date: 'indate', startdate: day(80), enddate: day(20), order: 'ASC' }),
    'history days 80-20 ago by paid date, status 1, page 50': history(VA, { date: 'indate', startdate: day(80), enddate: day(20), status: 1, page: 50 }),
    'history days 80-20 ago by paid date, status 0 (none paid)': history(VA, { date: 'indate', startdate: day(80), enddate: day(20), status: 0 }),
    // 3. paid-time order with a paid status
    'history status 1 orderBy indate ASC': history(VA, { status: 1, orderBy: 'indate', order: 'ASC' }),
    'history status 1 orderBy indate DESC': history(VA, { status: 1, orderBy: 'indate', order: 'DESC' }),
    // 4. a rare method
    'history type 22 (5 payments)': history(VA, { type: 22 }),
    'page via paylater (dashboard ?method=)': () => state.page({ via: 'paylater' }, { by: 'id', desc: true }, 50),
    'page via paylater, pending': () => state.page({ via: 'paylater', status: 'pending' }, { by: 'id', desc: true }, 50),
    'page via cod by created time': () => state.page({ via: 'cod' }, { by: 'created', desc: true }, 50),
    // common shapes, for regressions
    'history default page': history(VA, {}),
    'history status 0': history(VA, { status: 0 }),
    'history type 7': history(VA, { type: 7 }),
    'page pending qris (dashboard)': () => state.page({ status: 'pending', via: 'qris' }, { by: 'id', desc: true }, 50),
    // 5. transfers
    transferNet: () => state.transferNet(VA),
  };
  const figures = { openMs };
  for (const [name, fn] of Object.entries(shapes)) figures[name] = timed(10, fn);
  // Writes: a payment made, then paid (what the emulator's create and pay cost the store).
  const model = state.get(100_002);
  const made = [];
  figures.addTransaction = timed(100, () => {
    const t = state.db.prepare(`SELECT seq FROM sqlite_sequence WHERE name = 'txns'`).get().seq + 1;
    made.push(t);
    void state.addTransaction({
      ...model,
      id: t,
      paymentNo: `bench${t}`,
      referenceId: '',
      status: 'pending',
      paidAt: undefined,
      settledAt: undefined,
      endedAt: undefined,
      createdAt: Date.now(),
    });
  });
  let k = 0;
  figures.transitionPaid = timed(99, () => {
    void state.transition(made[k++], 'berhasil', Date.now());
  });
  await state.close();
  return figures;
}

const [cmd, dir] = process.argv.slice(2);
if (cmd === 'prepare') await prepare(dir);
else if (cmd === 'time') console.log(JSON.stringify(await time(dir), null, 1));
else console.error('usage: node bench/ledger-shapes.js prepare|time DIR');
