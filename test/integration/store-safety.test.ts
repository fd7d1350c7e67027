// The event store keeps its promises under failing disks, held locks, planted symlinks and
// concurrent prune/clear: no callback is answered 200 unless it is committed to the store (or removed
// later by a rule the user asked for), and no lock is ever taken over.
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import Sqlite from 'better-sqlite3';
import { keepUntilExit } from '../../src/core/db.js';
import { EventStore } from '../../src/core/listener/event-store.js';
import { startListener, type StoreTrouble } from '../../src/core/listener/server.js';
import { signCallbackRequest } from '../../src/core/callback/build.js';
import { sampleCallbackFields } from '../../src/core/callback/sample.js';
import { runCli, tempHome, testContext } from '../helpers/cli.js';
import { run } from '../../src/cli/run.js';
import { BIN } from '../helpers/spawn.js';

const VA = '1179000899';
const FIXTURE = join(import.meta.dirname, '..', 'fixtures', 'legacy-store', 'events.jsonl');
let home: ReturnType<typeof tempHome>;
beforeAll(() => (home = tempHome()));
afterAll(() => home.cleanup());

let trx = 300000;
function callback(extra: Record<string, string> = {}) {
  const fields = {
    ...sampleCallbackFields({ status: 'berhasil', method: 'va', channel: 'bca', now: new Date(), url: 'http://127.0.0.1/cb', trxId: trx++ }),
    ...extra,
  };
  return signCallbackRequest(fields, VA, 'form', new Date(), String(trx));
}

async function post(url: string, headers: Record<string, string>, body: string) {
  const res = await request(url, { method: 'POST', headers, body });
  return { status: res.statusCode, text: await res.body.text() };
}

describe('full disk: listen --store on a 256 KiB tmpfs', () => {
  const isRoot = process.getuid?.() === 0;
  it.skipIf(!isRoot)(
    `answers 503 (never 200) for what it cannot store, says so once, keeps running and recovers${isRoot ? '' : ' (skipped: needs root to mount a tmpfs)'}`,
    async () => {
      const mnt = join(home.home, 'tmpfs');
      mkdirSync(mnt);
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', mnt]);
      try {
        writeFileSync(join(mnt, 'filler'), Buffer.alloc(120 * 1024));
        const store = new EventStore(join(mnt, 'events.db'), { busyTimeoutMs: 0 });
        const trouble: StoreTrouble[] = [];
        const l = await startListener({ port: 0, va: VA, store, onStoreTrouble: (t) => trouble.push(t) });
        const acked: string[] = [];
        const answers: number[] = [];
        const pad = 'x'.repeat(10_000); // ~10 KB callbacks
        for (let i = 0; i < 30; i++) {
          const cb = callback({ buyer_name: pad });
          const r = await post(l.url, cb.headers, cb.body);
          answers.push(r.status);
          if (r.status === 200) acked.push(cb.fields.trx_id!);
          else expect(r).toEqual({ status: 503, text: 'cannot store the request (ENOSPC); try again later\n' });
        }
        expect(answers.filter((s) => s === 503).length).toBeGreaterThan(10);
        expect(trouble).toEqual([{ failing: true, error: expect.stringContaining('no space left'), code: 'ENOSPC' }]); // once per episode
        rmSync(join(mnt, 'filler')); // space comes back
        for (let i = 0; i < 3; i++) {
          const cb = callback({ buyer_name: pad });
          expect((await post(l.url, cb.headers, cb.body)).status).toBe(200);
          acked.push(cb.fields.trx_id!);
        }
        expect(trouble[1]).toEqual({ failing: false, refused: answers.filter((s) => s === 503).length });
        await l.close();
        const reader = new EventStore(join(mnt, 'events.db'));
        const stored = await reader.list();
        await reader.close();
        expect(stored.map((e) => e.trx_id)).toEqual(acked); // every 200 is stored, nothing else
        expect(stored.every((e) => e.answer === 200)).toBe(true);
      } finally {
        execFileSync('umount', [mnt]);
      }
    },
  );
});

describe('a store another process holds locked', () => {
  it('the listener keeps its event loop free, answers 503 after its wait, says so once, and stores again once the lock is let go', async () => {
    const path = join(home.home, 'held.db');
    const store = new EventStore(path, { busyTimeoutMs: 0, writeWaitMs: 300 });
    const errs: string[] = [];
    const l = await startListener({
      port: 0,
      va: VA,
      store,
      onStoreTrouble: (t) => errs.push(t.failing ? `failing ${t.code}` : `recovered after ${t.refused}`),
    });
    const holder = keepUntilExit(new Sqlite(path));
    holder.exec('BEGIN IMMEDIATE'); // a stopped process in a write transaction
    const waiting = Array.from({ length: 3 }, () => callback()).map((cb) => post(l.url, cb.headers, cb.body));
    expect((await Promise.all(waiting)).map((r) => r.status)).toEqual([503, 503, 503]);
    // A retry of a callback answered 503 is not a duplicate: it was never acknowledged.
    const cb = callback();
    expect(await post(l.url, cb.headers, cb.body)).toEqual({ status: 503, text: 'cannot store the request (EBUSY); try again later\n' });
    holder.exec('ROLLBACK');
    holder.close();
    expect((await post(l.url, cb.headers, cb.body)).status).toBe(200);
    await l.close();
    expect(errs).toEqual(['failing EBUSY', 'recovered after 4']);
    const events = await new EventStore(path).list();
    expect(events.map((e) => [e.trx_id, e.duplicate])).toEqual([[cb.fields.trx_id, false]]);
  });

  it('waits for the lock without blocking its event loop: requests held meanwhile are answered 200 once the holder commits', async () => {
    const path = join(home.home, 'wait.db');
    const store = new EventStore(path, { busyTimeoutMs: 0, writeWaitMs: 120_000 });
    const l = await startListener({ port: 0, va: VA, store });
    const holder = keepUntilExit(new Sqlite(path));
    holder.exec('BEGIN IMMEDIATE');
    let answered = 0;
    const cbs = Array.from({ length: 3 }, () => callback());
    const waiting = cbs.map((cb) => post(l.url, cb.headers, cb.body).then((r) => (answered++, r)));
    // This process's own timers run while the listener (same thread) waits: SQLite is never left blocking it.
    for (let i = 0; i < 20; i++) await new Promise((r) => setTimeout(r, 10));
    expect(answered).toBe(0); // nothing answered before it is stored
    holder.exec('COMMIT');
    holder.close();
    expect((await Promise.all(waiting)).map((r) => r.status)).toEqual([200, 200, 200]);
    await l.close();
    expect((await new EventStore(path).list()).map((e) => e.trx_id)).toEqual(cbs.map((c) => c.fields.trx_id));
  });

  it('a retry of a callback acknowledged before a restart is a duplicate (found in the store, not in memory)', async () => {
    const path = join(home.home, 'restart.db');
    const cb = callback();
    for (const expected of [false, true]) {
      const store = new EventStore(path, { busyTimeoutMs: 0 });
      const l = await startListener({ port: 0, va: VA, store });
      expect((await post(l.url, cb.headers, cb.body)).status).toBe(200);
      await l.close();
      expect((await new EventStore(path).list()).at(-1)!.duplicate).toBe(expected);
    }
  });
});

describe('paycli listen when its store breaks', () => {
  it('answers 503 while another process holds the store, prints one line when storing fails and one when it works again', async () => {
    const path = join(home.home, 'breaks.db');
    const { ctx, out, err } = testContext({ env: { PAYCLI_VA: VA }, home: home.home });
    const done = run(['listen', '--port', '0', '--exit-after', '5', '--store', path], ctx);
    let url = '';
    for (let i = 0; i < 300 && !url; i++) {
      await new Promise((r) => setTimeout(r, 10));
      url = /notifyUrl\s+(\S+)/.exec(err())?.[1] ?? '';
    }
    const first = callback();
    expect((await post(url, first.headers, first.body)).status).toBe(200);
    const holder = keepUntilExit(new Sqlite(path));
    holder.exec('BEGIN IMMEDIATE');
    const held = await Promise.all(Array.from({ length: 3 }, () => callback()).map((cb) => post(url, cb.headers, cb.body)));
    expect(held.map((r) => r.status)).toEqual([503, 503, 503]);
    holder.exec('ROLLBACK');
    holder.close();
    const last = callback();
    expect((await post(url, last.headers, last.body)).status).toBe(200);
    expect(await done).toBe(0);
    const notices = err()
      .split('\n')
      .filter((l) => /cannot store|storing again/.test(l));
    expect(notices).toEqual([
      `cannot store requests in ${path}: cannot write the event store ${path}: another process holds the store's write lock; answering 503 (the gateway retries) until it can`,
      `storing again in ${path}; 3 requests were answered 503 meanwhile`,
    ]);
    expect(err()).toContain('3 not stored (answered 503)');
    expect(
      out()
        .split('\n')
        .filter((l) => / 503 /.test(l)),
    ).toHaveLength(3);
    expect((await new EventStore(path).list()).map((e) => e.trx_id)).toEqual([first.fields.trx_id, last.fields.trx_id]);
  }, 30_000);
});

describe('a store of the previous release (JSONL)', () => {
  it('is imported once, in one transaction, on first open, and the old file kept as *.jsonl.migrated', async () => {
    const dir = join(home.home, 'legacy', 'paycli');
    mkdirSync(dir, { recursive: true });
    copyFileSync(FIXTURE, join(dir, 'events.jsonl'));
    const env = { XDG_DATA_HOME: join(home.home, 'legacy') };
    const list = await runCli(['events', 'list', '--json'], { env, home: home.home });
    expect(list.code, list.stderr).toBe(0);
    const events = JSON.parse(list.stdout) as { id: string; verdict: string; duplicate: boolean; source: string; trx_id: string | null; answer: number }[];
    // Every whole line of the fixture, in order; its torn last line skipped.
    const want = readFileSync(FIXTURE, 'utf8')
      .split('\n')
      .slice(0, -1)
      .map((l) => JSON.parse(l));
    expect(events).toEqual(want.map((e) => ({ source: 'listen', ...e })));
    expect(events.map((e) => e.verdict)).toEqual(['valid', 'valid', 'valid', 'invalid', 'malformed', 'invalid', 'valid', 'valid']);
    expect(events.at(-1)!.source).toBe('trigger');
    expect(existsSync(join(dir, 'events.jsonl'))).toBe(false);
    expect(readFileSync(join(dir, 'events.jsonl.migrated'), 'utf8')).toBe(readFileSync(FIXTURE, 'utf8'));
    expect(existsSync(join(dir, 'events.db'))).toBe(true);
    // Opened again: nothing imported twice, even with the old file put back.
    copyFileSync(FIXTURE, join(dir, 'events.jsonl'));
    expect(JSON.parse((await runCli(['events', 'list', '--json'], { env, home: home.home })).stdout)).toHaveLength(want.length);
    // A retry of a callback the old store acknowledged is still a duplicate for the listener.
    const store = new EventStore(join(dir, 'events.db'), { busyTimeoutMs: 0 });
    const l = await startListener({ port: 0, va: VA, store });
    const first = want[0] as { headers: Record<string, string>; body: string };
    const { host: _h, 'content-length': _c, connection: _k, ...headers } = first.headers;
    expect((await post(l.url, headers, first.body)).status).toBe(200);
    await l.close();
    expect((await new EventStore(join(dir, 'events.db')).list()).at(-1)).toMatchObject({ trx_id: '170001', duplicate: true });
  });

  it('named by --store itself: the same path becomes the database, the old file *.jsonl.migrated', async () => {
    const path = join(home.home, 'named.jsonl');
    copyFileSync(FIXTURE, path);
    const r = await runCli(['events', 'show', 'evt_mwwbif34', '--store', path, '--json'], { home: home.home });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ id: 'evt_mwwbif34b6850c0001', source: 'trigger' });
    expect(readFileSync(path).subarray(0, 15).toString()).toBe('SQLite format 3');
    expect(readFileSync(`${path}.migrated`, 'utf8')).toBe(readFileSync(FIXTURE, 'utf8'));
  });

  it('a --store that is neither SQLite nor an event store (a mistyped README) is refused and left untouched', async () => {
    const path = join(home.home, 'notes.md');
    writeFileSync(path, '# notes\n\nnot events\n');
    for (const args of [
      ['events', 'list'],
      ['events', 'prune', '--keep', '0'],
      ['listen', '--port', '0', '--timeout', '1s'],
    ]) {
      const r = await runCli([...args, '--store', path], { env: { PAYCLI_VA: VA }, home: home.home });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toContain(`${path} is not an event store`);
    }
    expect(readFileSync(path, 'utf8')).toBe('# notes\n\nnot events\n');
    expect(existsSync(`${path}.migrated`)).toBe(false);
  });

  it('opened by eight processes at once: imported once, the old file kept whole, none of them fails', async () => {
    for (let round = 0; round < 4; round++) {
      const path = join(home.home, `race-${round}.jsonl`);
      copyFileSync(FIXTURE, path);
      const runs = await Promise.all(
        Array.from(
          { length: 8 },
          () =>
            new Promise<{ code: number | null; out: string; err: string }>((done) => {
              const child = spawn(process.execPath, [BIN, 'events', 'list', '--json', '--store', path], { env: { ...process.env, HOME: home.home } });
              let out = '';
              let err = '';
              child.stdout.on('data', (c) => (out += c));
              child.stderr.on('data', (c) => (err += c));
              child.on('close', (code) => done({ code, out, err }));
            }),
        ),
      );
      for (const r of runs) expect(r.code, r.err).toBe(0);
      expect(readFileSync(`${path}.migrated`, 'utf8')).toBe(readFileSync(FIXTURE, 'utf8'));
      expect(JSON.parse((await runCli(['events', 'list', '--json', '--store', path], { home: home.home })).stdout)).toHaveLength(8);
    }
  });

  it('a JSONL store whose .migrated name is taken by another file is refused, both left as they were', async () => {
    const path = join(home.home, 'taken.jsonl');
    copyFileSync(FIXTURE, path);
    writeFileSync(`${path}.migrated`, 'an older import\n');
    const r = await runCli(['events', 'list', '--store', path], { home: home.home });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${path}.migrated exists already`);
    expect(readFileSync(path, 'utf8')).toBe(readFileSync(FIXTURE, 'utf8'));
    expect(readFileSync(`${path}.migrated`, 'utf8')).toBe('an older import\n');
  });

  it('a first line over 256 KiB (a large body the previous release took) is still known as a JSONL store', async () => {
    const path = join(home.home, 'big-first.jsonl');
    const [first, ...rest] = readFileSync(FIXTURE, 'utf8').split('\n');
    const big = { ...JSON.parse(first!), id: 'evt_bigfirst0001', body: 'x'.repeat(300 * 1024) };
    writeFileSync(path, [JSON.stringify(big), ...rest].join('\n'));
    const r = await runCli(['events', 'show', 'evt_bigfirst', '--store', path, '--json'], { home: home.home });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).body).toHaveLength(300 * 1024);
  });

  it('a --store that is a directory is refused, its mode left as it was (it was once made 0600)', async () => {
    const dir = join(home.home, 'a-directory');
    mkdirSync(dir, { mode: 0o755 });
    execFileSync('chmod', ['0755', dir]);
    for (const args of [
      ['events', 'list'],
      ['events', 'clear', '--yes'],
      ['listen', '--port', '0', '--timeout', '1s'],
      ['trigger', '--to', 'http://127.0.0.1:9/'],
    ]) {
      for (const store of [dir, `${dir}/`]) {
        const r = await runCli([...args, '--store', store], { env: { PAYCLI_VA: VA }, home: home.home });
        expect(r.code, `${args.join(' ')} ${store}: ${r.stderr}`).toBe(2);
        expect(r.stderr).toContain('it is a directory');
      }
    }
    expect(execFileSync('stat', ['-c', '%a', dir], { encoding: 'utf8' }).trim()).toBe('755');
  });

  it('a SQLite database paycli did not write is refused before anything in it changes', async () => {
    const path = join(home.home, 'app.db');
    const app = keepUntilExit(new Sqlite(path));
    app.exec("CREATE TABLE orders (id INTEGER PRIMARY KEY, ref TEXT); INSERT INTO orders (ref) VALUES ('A-1')");
    app.close();
    execFileSync('chmod', ['0644', path]);
    const before = readFileSync(path);
    for (const args of [
      ['events', 'list'],
      ['events', 'export'],
      ['events', 'clear', '--yes'],
      ['listen', '--port', '0', '--timeout', '1s'],
    ]) {
      const r = await runCli([...args, '--store', path], { env: { PAYCLI_VA: VA }, home: home.home });
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toContain(`${path} is a SQLite database paycli did not write`);
    }
    expect(readFileSync(path).equals(before)).toBe(true); // still a rollback-journal database, 0644, no tables added
    expect(existsSync(`${path}-wal`)).toBe(false);
    expect(execFileSync('stat', ['-c', '%a', path], { encoding: 'utf8' }).trim()).toBe('644');
  });

  it('a new store created by several processes at once: each finds it made, none fails', async () => {
    for (let round = 0; round < 3; round++) {
      const path = join(home.home, `fresh-${round}.db`);
      const runs = await Promise.all(
        Array.from(
          { length: 6 },
          () =>
            new Promise<string>((done) => {
              const child = spawn(process.execPath, [BIN, 'events', 'clear', '--yes', '--store', path], { env: { ...process.env, HOME: home.home } });
              let err = '';
              child.stderr.on('data', (c) => (err += c));
              child.on('close', (code) => done(`${code} ${err}`.trim()));
            }),
        ),
      );
      expect(runs).toEqual(['0', '0', '0', '0', '0', '0']);
    }
  });
});

describe('symlinks', () => {
  it('listen and events prune refuse a planted symlink as --store (or as its -wal) and never write through it: exit 2', async () => {
    const victim = join(home.home, 'victim.txt');
    writeFileSync(victim, 'precious\n');
    const link = join(home.home, 'planted.db');
    symlinkSync(victim, link);
    const env = { PAYCLI_VA: VA };
    for (const args of [
      ['listen', '--port', '0', '--store', link, '--timeout', '1s'],
      ['events', 'prune', '--keep', '0', '--store', link],
      ['events', 'clear', '--store', link],
    ]) {
      const r = await runCli(args, { env, home: home.home });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toContain(`refusing to open the event store ${link}: it is a symbolic link`);
    }
    const real = join(home.home, 'walled.db');
    const wal = join(home.home, 'walled-victim');
    writeFileSync(wal, 'precious\n');
    symlinkSync(wal, `${real}-wal`);
    const r = await runCli(['listen', '--port', '0', '--store', real, '--timeout', '1s'], { env, home: home.home });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`refusing to open the event store ${real}-wal: it is a symbolic link`);
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
    expect(readFileSync(wal, 'utf8')).toBe('precious\n');
  });
});

describe('prune and clear racing a listener under load', () => {
  it('every acknowledged callback is in the store, or was removed by a rule the user asked for', async () => {
    const dir = join(home.home, 'race');
    mkdirSync(dir);
    const storePath = join(dir, 'events.db');
    const store = new EventStore(storePath, { busyTimeoutMs: 0 });
    const l = await startListener({ port: 0, va: VA, store });
    type Ack = { trx: string; sent: number };
    const acked: Ack[] = [];
    const ops: { kind: 'prune' | 'clear'; end: number; cutoff: number }[] = [];
    let stop = false;
    let failures = 0;
    const client = async () => {
      while (!stop) {
        const cb = callback();
        const sent = Date.now();
        const r = await post(l.url, cb.headers, cb.body);
        if (r.status === 200) acked.push({ trx: cb.fields.trx_id!, sent });
        else failures++;
      }
    };
    const runBin = (args: string[], cwd: string) =>
      new Promise<{ code: number | null; err: string }>((resolve) => {
        const child = spawn(process.execPath, [BIN, ...args], {
          cwd,
          env: { PATH: process.env.PATH ?? '', HOME: home.home },
          stdio: ['ignore', 'ignore', 'pipe'],
        });
        let err = '';
        child.stderr.on('data', (c: Buffer) => (err += c.toString()));
        child.on('exit', (code) => resolve({ code, err }));
      });
    // Rounds of clear then prune; the load goes on after the last prune, so that an append lost to
    // any of them cannot be excused by a later clear.
    const operator = async () => {
      for (let round = 0; round < 3; round++) {
        await new Promise((r) => setTimeout(r, 150));
        const c = await runBin(['events', 'clear', '--store', relative(dir, storePath)], dir);
        expect(c.code, c.err).toBe(0);
        ops.push({ kind: 'clear', end: Date.now(), cutoff: Infinity });
        await new Promise((r) => setTimeout(r, 150));
        const p = await runBin(['events', 'prune', '--store', storePath, '--older-than', '200ms'], home.home);
        expect(p.code, p.err).toBe(0);
        ops.push({ kind: 'prune', end: Date.now(), cutoff: Date.now() - 200 });
      }
      await new Promise((r) => setTimeout(r, 300));
      stop = true;
    };
    await Promise.all([client(), client(), client(), client(), operator()]);
    await l.close();
    const inStore = new Map((await new EventStore(storePath).list()).map((e) => [e.trx_id, e]));
    const lost = acked.filter((a) => {
      if (inStore.has(a.trx)) return false;
      // Removed legitimately only by an operation that ended after the request was sent and whose
      // rule covers it (clear: everything; prune: received before its cutoff, which is ≤ its end − 200 ms).
      return !ops.some((o) => o.end > a.sent && (o.kind === 'clear' || a.sent < o.cutoff));
    });
    expect(failures).toBe(0);
    expect(acked.length).toBeGreaterThan(50);
    expect(lost).toEqual([]);
  }, 60_000);
});
