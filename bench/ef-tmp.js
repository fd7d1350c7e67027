// What one group commit of the listener costs SQLite, by part of the schema: the event store's real
// schema (MIGRATIONS) and writes (insertEvents, as the writer thread commits), groups of G signed
// callbacks (default 21, about what the listener hands its writer thread under wrk -t2 -c32), no
// automatic checkpoint in the measured stretch. Prints the time per commit and per event, then the
// WAL frames one commit writes, by table and index (from the WAL's frame headers and SQLite's
// dbstat). Usage: node bench/event-frames.js [G] (build first).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventIds } from '../dist/core/listener/event-id.js';
import { eventWrites, insertEvents, insertParams, MIGRATIONS } from '../dist/core/listener/event-schema.js';
import { SAMPLE } from './sample-callback.js';

const Sqlite = createRequire(import.meta.url)('better-sqlite3');
const G = Number(process.argv[2] ?? 21);
const WARM = 2000;
const COMMITS = 3000;
const SAMPLED = 100;
const tmp = mkdtempSync(join(tmpdir(), 'paycli-bench-frames-'));
const file = join(tmp, 'events.db');
const db = new Sqlite(file); if (process.env.PS) db.pragma("page_size=" + process.env.PS); db.pragma("journal_mode = WAL");

db.pragma('synchronous = NORMAL');
db.pragma('wal_autocheckpoint = 0');
if (process.env.PS) db.pragma("page_size=" + process.env.PS);
for (const m of MIGRATIONS) m(db);
// As the writer thread commits a group: the rows, then the summaries of their blocks (insertEvents).
const { insert, summarize } = eventWrites(db);
const commit = db.transaction((rows) => insertEvents(insert, summarize, rows));

const now = new Date('2026-11-22T07:07:01Z');
const headers = Object.fromEntries(
  Object.entries({ ...SAMPLE.headers, host: '127.0.0.1:8080', 'content-length': String(SAMPLE.body.length) }).map(([k, v]) => [k.toLowerCase(), v]),
);
const ids = new EventIds();
let k = 0;
/** One acknowledged callback as the listener stores it, a millisecond after the last. */
const event = () => {
  const at = new Date(now.getTime() + k++);
  return insertParams({
    id: ids.next(at),
    receivedAt: at.toISOString(),
    method: 'POST',
    path: '/',
    headers,
    body: SAMPLE.body,
    verdict: 'valid',
    variant: null,
    reason: null,
    duplicate: false,
    trx_id: '183148',
    status: 'berhasil',
    answer: 200,
  });
};
const groups = (n) => Array.from({ length: n }, () => Array.from({ length: G }, event));

for (const g of groups(WARM)) commit.immediate(g);
db.pragma('wal_checkpoint(TRUNCATE)');
const measured = groups(COMMITS);
const t0 = performance.now();
for (const g of measured) commit.immediate(g);
const us = ((performance.now() - t0) * 1000) / COMMITS;
db.pragma('wal_checkpoint(TRUNCATE)');

// The frames of SAMPLED commits, each named by the b-tree its page belongs to.
for (const g of groups(SAMPLED)) commit.immediate(g);
const pageSize = db.pragma('page_size', { simple: true });
const wal = readFileSync(`${file}-wal`);
const owner = new Map(db.prepare('SELECT pageno, name FROM dbstat').raw().all());
const frames = {};
for (let at = 32; at + 24 + pageSize <= wal.length; at += 24 + pageSize) {
  const page = wal.readUInt32BE(at);
  const name = page === 1 ? 'page 1 (header)' : (owner.get(page) ?? `page ${page}`);
  frames[name] = (frames[name] ?? 0) + 1;
}
const perCommit = Object.fromEntries(Object.entries(frames).map(([n, c]) => [n, Math.round((c / SAMPLED) * 100) / 100]));
const total = Object.values(frames).reduce((a, b) => a + b, 0) / SAMPLED;
console.log(
  JSON.stringify({
    eventsPerCommit: G,
    usPerCommit: Math.round(us * 10) / 10,
    usPerEvent: Math.round((us / G) * 100) / 100,
    framesPerCommit: Math.round(total * 100) / 100,
    byBtree: perCommit,
  }),
);
db.close();
rmSync(tmp, { recursive: true, force: true });
