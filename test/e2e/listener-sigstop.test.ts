// The loss issue 23 reproduced: a listener stopped (SIGSTOP, Ctrl-Z) for more than 10 s while
// `events clear` waits; the JSONL store's clear took the "stale" lock over, the listener resumed,
// wrote into the deleted file and answered 200. On SQLite, locks belong to their process, stopped or
// not: a waiting command fails after its busy timeout with a clear message, and nothing acknowledged
// is lost. Spawns bin/paycli.js (build first).
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, request } from 'undici';
import { signCallbackRequest } from '../../src/core/callback/build.js';
import { sampleCallbackFields } from '../../src/core/callback/sample.js';
import { tempHome } from '../helpers/cli.js';
import { runPaycli, spawnPaycli } from '../helpers/spawn.js';

const VA = '1179000899';
let home: ReturnType<typeof tempHome>;
beforeAll(() => (home = tempHome()));
afterAll(() => home.cleanup());

let trx = 700000;
function callback() {
  const trxId = trx++;
  const s = signCallbackRequest(
    sampleCallbackFields({ status: 'berhasil', method: 'va', channel: 'bca', now: new Date(), url: 'http://127.0.0.1/cb', trxId }),
    VA,
    'form',
    new Date(),
    String(trxId),
  );
  return { trxId: String(trxId), ...s };
}

/** POSTs a callback; `fresh` on a new connection (a pooled one may be closed by the server's keep-alive timeout as it resumes). */
async function post(url: string, cb: ReturnType<typeof callback>, fresh = false): Promise<number> {
  try {
    const dispatcher = fresh ? new Agent({ connect: { timeout: 120_000 } }) : undefined;
    const res = await request(url, { method: 'POST', headers: cb.headers, body: cb.body, headersTimeout: 120_000, bodyTimeout: 120_000, dispatcher });
    await res.body.text();
    return res.statusCode;
  } catch (err) {
    if (process.env.DEBUG_SIGSTOP) console.error(err);
    return 0;
  }
}

async function startListen(store: string) {
  const l = spawnPaycli(['listen', '--port', '0', '--store', store, '--json', '--va', VA], { HOME: home.home });
  let url = '';
  l.child.stderr!.on('data', (c: Buffer) => {
    const m = /"url":"([^"]+)"/.exec(c.toString());
    if (m) url = m[1]!;
  });
  for (let i = 0; i < 1000 && !url; i++) await new Promise((r) => setTimeout(r, 10));
  expect(url).not.toBe('');
  return { ...l, url };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function storedTrx(store: string): Promise<Set<string>> {
  const r = await runPaycli(['events', 'list', '--store', store, '--json', '--limit', '1000000'], { HOME: home.home });
  expect(r.code, r.stderr).toBe(0);
  return new Set((JSON.parse(r.stdout) as { trx_id: string }[]).map((e) => e.trx_id));
}

describe('a listener stopped with SIGSTOP for more than 10 s while events clear runs', () => {
  it('loses nothing it acknowledged, in three rounds; clear either runs or fails naming the busy store, never takes a lock over', async () => {
    const store = join(home.home, 'stopped.db');
    const l = await startListen(store);
    try {
      for (let round = 0; round < 3; round++) {
        // Load, then stop the listener wherever it is (between transactions, or inside one holding the write lock).
        const acked = new Set<string>();
        let stop = false;
        const senders = Array.from({ length: 8 }, async () => {
          while (!stop) {
            const cb = callback();
            if ((await post(l.url, cb)) === 200) acked.add(cb.trxId);
          }
        });
        while (acked.size < 100) await sleep(5);
        l.child.kill('SIGSTOP');
        stop = true;
        // Sent while it is stopped: held in the socket's backlog, received and stored only after it resumes.
        const late = Array.from({ length: 5 }, () => callback());
        const lateAnswers = late.map((cb) => post(l.url, cb, true));
        const started = Date.now();
        const clear = runPaycli(['events', 'clear', '--store', store, '--json'], { HOME: home.home });
        await sleep(11_000); // past the old 10 s "stale lock" takeover
        l.child.kill('SIGCONT');
        const c = await clear;
        if (c.code === 0) expect(JSON.parse(c.stdout)).toMatchObject({ store });
        else {
          // The listener was stopped inside a transaction: clear waited, then said so (exit 2).
          expect(c.code).toBe(2);
          expect(JSON.parse(c.stderr).error.message).toContain(`the event store ${store} is busy: another process has held its write lock for over 5 s`);
        }
        expect(Date.now() - started).toBeGreaterThanOrEqual(11_000);
        await Promise.all(senders);
        expect(await Promise.all(lateAnswers)).toEqual([200, 200, 200, 200, 200]);
        const stored = await storedTrx(store);
        // Everything sent while stopped was stored after the clear: it must all be there.
        expect(late.filter((cb) => !stored.has(cb.trxId))).toEqual([]);
        // A clear that failed removed nothing: every acknowledged callback is there.
        if (c.code !== 0) expect([...acked].filter((t) => !stored.has(t))).toEqual([]);
      }
    } finally {
      l.child.kill('SIGCONT');
      l.child.kill('SIGTERM');
      await l.exited;
    }
  }, 120_000);

  it('a stopped process inside a write transaction keeps its lock: clear fails after its busy timeout, the listener answers 503 (never 200 unstored), and both work once it resumes', async () => {
    const store = join(home.home, 'holder.db');
    const l = await startListen(store);
    const first = callback();
    expect(await post(l.url, first)).toBe(200);
    // Another process takes the write lock, then is stopped (a sqlite3 shell in BEGIN IMMEDIATE, a debugger).
    const holder = spawn(
      process.execPath,
      [
        '-e',
        `const D = require(${JSON.stringify(createRequire(import.meta.url).resolve('better-sqlite3'))}); const db = new D(${JSON.stringify(store)}); db.exec('BEGIN IMMEDIATE'); console.log('held'); process.stdin.on('data', () => { db.exec('COMMIT'); process.exit(0); });`,
      ],
      { stdio: ['pipe', 'pipe', 'inherit'] },
    );
    await new Promise<void>((resolve) => holder.stdout!.once('data', () => resolve()));
    holder.kill('SIGSTOP');
    const held = callback();
    const heldAnswer = post(l.url, held, true);
    const clear = await runPaycli(['events', 'clear', '--store', store, '--json'], { HOME: home.home });
    expect(clear.code).toBe(2);
    expect(JSON.parse(clear.stderr).error).toMatchObject({
      message: `the event store ${store} is busy: another process has held its write lock for over 5 s (a paycli listen or trigger stopped with Ctrl-Z or a debugger, or a sqlite3 shell in a transaction)`,
    });
    expect(await heldAnswer).toBe(503); // not stored, so not acknowledged: the gateway retries
    holder.kill('SIGCONT');
    holder.stdin!.write('commit\n');
    await new Promise((r) => holder.on('exit', r));
    expect(await post(l.url, held)).toBe(200); // the retry
    const again = await runPaycli(['events', 'clear', '--store', store, '--json'], { HOME: home.home });
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual({ cleared: 2, store });
    l.child.kill('SIGTERM');
    await l.exited;
  }, 60_000);
});
