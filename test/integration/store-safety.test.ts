// The event store keeps its promises under failing disks, corrupt lines and concurrent prune/clear:
// no callback is answered 200 unless it is durably in the store (or removed later by a rule the user
// asked for), nothing torn is left for the next record to be glued to.
import { execFileSync, spawn } from 'node:child_process';
import { appendFileSync, existsSync, ftruncateSync, mkdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync, writeSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { Journal, type JournalIo } from '../../src/core/journal.js';
import { canonicalStorePath, EventStore, StoreBusyError, type StoredEvent } from '../../src/core/listener/event-store.js';
import { startListener, type StoreTrouble } from '../../src/core/listener/server.js';
import { signCallbackRequest } from '../../src/core/callback/build.js';
import { sampleCallbackFields } from '../../src/core/callback/sample.js';
import { runCli, tempHome, testContext } from '../helpers/cli.js';
import { run } from '../../src/cli/run.js';
import { withStore } from '../../src/cli/callback-shared.js';
import { BIN } from '../helpers/spawn.js';

const VA = '1179000899';
let home: ReturnType<typeof tempHome>;
beforeAll(() => (home = tempHome()));
afterAll(() => home.cleanup());

let trx = 300000;
function callback(extra: Record<string, string> = {}) {
  const fields = { ...sampleCallbackFields({ status: 'berhasil', method: 'va', channel: 'bca', now: new Date(), url: 'http://127.0.0.1/cb', trxId: trx++ }), ...extra };
  return signCallbackRequest(fields, VA, 'form', new Date(), String(trx));
}

async function post(url: string, headers: Record<string, string>, body: string) {
  const res = await request(url, { method: 'POST', headers, body });
  return { status: res.statusCode, text: await res.body.text() };
}

const lines = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8') : '').split('\n').filter(Boolean);

describe('journal: a failed or short write', () => {
  it('rejects every record of the write and cuts the file back to its length before it', async () => {
    const path = join(home.home, 'short.jsonl');
    let mode: 'ok' | 'short-then-enospc' | 'enospc' = 'ok';
    const io: JournalIo = {
      write(fd, buf, off, len) {
        if (mode === 'enospc') throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
        if (mode === 'short-then-enospc') {
          mode = 'enospc'; // the kernel takes a part, then the next write fails
          return writeSync(fd, buf, off, Math.max(1, Math.floor(len / 3)));
        }
        return writeSync(fd, buf, off, len);
      },
      truncate: (fd, len) => ftruncateSync(fd, len),
    };
    const j = new Journal<{ n: number; pad: string }>(path, { io });
    await j.append({ n: 1, pad: 'x'.repeat(100) });
    mode = 'short-then-enospc';
    const failed = await Promise.allSettled([j.append({ n: 2, pad: 'y'.repeat(100) }), j.append({ n: 3, pad: 'z'.repeat(100) })]);
    expect(failed.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect((failed[0] as PromiseRejectedResult).reason.code).toBe('ENOSPC');
    expect(lines(path).map((l) => JSON.parse(l).n)).toEqual([1]); // nothing torn left behind
    mode = 'ok';
    await j.append({ n: 4, pad: '' }); // space is back: a whole line, not glued to a torn one
    await j.close();
    expect(readFileSync(path, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l).n)).toEqual([1, 4]);
    expect(await new Journal(path).read()).toMatchObject({ skipped: 0 });
  });

  it('a write that returns 0 bytes is a failure, not a success', async () => {
    const path = join(home.home, 'zero.jsonl');
    const j = new Journal<{ n: number }>(path, { io: { write: () => 0, truncate: (fd, len) => ftruncateSync(fd, len) } });
    await expect(j.append({ n: 1 })).rejects.toThrow(/short write/);
    await j.close();
    expect(readFileSync(path, 'utf8')).toBe('');
  });

  it('when even the cut fails, the torn tail is cut back to the last complete line before the next write', async () => {
    const path = join(home.home, 'cutfails.jsonl');
    let fail = false;
    let failCut = false;
    const io: JournalIo = {
      write(fd, buf, off, len) {
        if (!fail) return writeSync(fd, buf, off, len);
        fail = false;
        failCut = true;
        writeSync(fd, buf, off, 5); // a torn piece reaches the file …
        throw Object.assign(new Error('I/O error'), { code: 'EIO' });
      },
      truncate(fd, len) {
        if (failCut) {
          failCut = false; // … and the cut back fails once
          throw Object.assign(new Error('I/O error'), { code: 'EIO' });
        }
        ftruncateSync(fd, len);
      },
    };
    const j = new Journal<{ n: number }>(path, { io });
    await j.append({ n: 1 });
    fail = true;
    await expect(j.append({ n: 2 })).rejects.toThrow('I/O error');
    expect(readFileSync(path, 'utf8')).toBe('{"n":1}\n{"n":');
    await j.append({ n: 3 });
    await j.close();
    expect(readFileSync(path, 'utf8')).toBe('{"n":1}\n{"n":3}\n');
  });

  it('a torn line left by another writer between two of our writes is cut off, never glued to the next record', async () => {
    const path = join(home.home, 'shared-writer.jsonl');
    let held = false;
    const lock = async () => {
      held = true;
      return async () => {
        held = false;
      };
    };
    const j = new Journal<{ n: number }>(path, { tornPath: `${path}.unreadable`, lock });
    await j.open();
    await j.append({ n: 1 });
    for (let i = 0; i < 100 && held; i++) await new Promise((r) => setTimeout(r, 10)); // an idle writer lets the lock go
    expect(held).toBe(false);
    appendFileSync(path, '{"n":2,"tor'); // another writer (trigger, a second listener) killed mid-append
    await j.append({ n: 3 }); // same descriptor, same file, grown by someone else
    await j.close();
    expect(readFileSync(path, 'utf8')).toBe('{"n":1}\n{"n":3}\n');
    expect(readFileSync(`${path}.unreadable`, 'utf8')).toBe('{"n":2,"tor\n');
  });

  it('a torn last line left by a crash is cut off at open and kept in the side file', async () => {
    const path = join(home.home, 'torn.jsonl');
    writeFileSync(path, '{"n":1}\n{"n":2}\n{"n":3,"tor');
    const j = new Journal<{ n: number }>(path, { tornPath: `${path}.unreadable` });
    await j.open();
    await j.append({ n: 4 });
    await j.close();
    expect(readFileSync(path, 'utf8')).toBe('{"n":1}\n{"n":2}\n{"n":4}\n');
    expect(readFileSync(`${path}.unreadable`, 'utf8')).toBe('{"n":3,"tor\n');
  });
});

describe('journal: the lines of a group are encoded into one buffer kept from write to write', () => {
  it('writes each record as JSON.stringify gives it, in order, whatever the group sizes and characters', async () => {
    const path = join(home.home, 'groups.jsonl');
    const sizes: number[] = [];
    const io: JournalIo = {
      write(fd, buf, off, len) {
        sizes.push(len);
        return writeSync(fd, buf, off, len);
      },
      truncate: (fd, len) => ftruncateSync(fd, len),
    };
    const j = new Journal<{ n: number; text: string }>(path, { io });
    const texts = ['plain', 'Ñandú 日本 🌺', 'lone \ud800 surrogate', 'quote " backslash \\ nl \n', 'x'.repeat(400_000), 'é'.repeat(200_000), ''];
    const want: string[] = [];
    // Group 1: many small records; group 2: one over the reused buffer's limit at worst; group 3: small again (no bytes of an earlier group may show).
    const groups = [texts.slice(0, 4).concat(texts.slice(0, 4)), [texts[4]!, texts[5]!], [texts[6]!, texts[0]!]];
    let n = 0;
    for (const g of groups) {
      const writes = g.map((text) => {
        const r = { n: n++, text };
        want.push(`${JSON.stringify(r)}\n`);
        return j.append(r);
      });
      await Promise.all(writes);
    }
    await j.close();
    expect(sizes).toHaveLength(3); // one write per group
    expect(readFileSync(path, 'utf8')).toBe(want.join(''));
    expect(readFileSync(path).length).toBe(Buffer.byteLength(want.join('')));
  });
});

describe('full disk: listen --store on a 256 KiB tmpfs', () => {
  const isRoot = process.getuid?.() === 0;
  it.skipIf(!isRoot)(`answers 503 (never 200) for what it cannot store, leaves no torn line, says so once, and recovers${isRoot ? '' : ' (skipped: needs root to mount a tmpfs; the injected-write tests above cover the journal)'}`, async () => {
    const mnt = join(home.home, 'tmpfs');
    mkdirSync(mnt);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', mnt]);
    try {
      writeFileSync(join(mnt, 'filler'), Buffer.alloc(160 * 1024));
      const store = new EventStore(join(mnt, 'events.jsonl'));
      const trouble: StoreTrouble[] = [];
      const l = await startListener({ port: 0, va: VA, store, onStoreTrouble: (t) => trouble.push(t) });
      const acked: string[] = [];
      const answers: number[] = [];
      const pad = 'x'.repeat(10_000); // ~10 KB callbacks, as in the report
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
      const raw = readFileSync(join(mnt, 'events.jsonl'), 'utf8');
      expect(raw.endsWith('\n')).toBe(true);
      const stored = raw.split('\n').filter(Boolean).map((line) => JSON.parse(line) as StoredEvent); // every line whole
      expect(stored.map((e) => e.trx_id)).toEqual(acked); // every 200 is stored, nothing else
      expect(stored.every((e) => e.answer === 200)).toBe(true);
    } finally {
      execFileSync('umount', [mnt]);
    }
  });
});

describe('listen says on stderr, once, that it cannot store', () => {
  it('prints one line when the store starts failing and one when it recovers', async () => {
    let failing = true;
    const store = new EventStore(join(home.home, 'flaky.jsonl'), {
      io: {
        write(fd, buf, off, len) {
          if (failing) throw Object.assign(new Error('EIO: i/o error, write'), { code: 'EIO' });
          return writeSync(fd, buf, off, len);
        },
        truncate: (fd, len) => ftruncateSync(fd, len),
      },
    });
    const errs: string[] = [];
    const l = await startListener({
      port: 0,
      va: VA,
      store,
      onStoreTrouble: (t) => errs.push(t.failing ? `failing ${t.code}` : `recovered after ${t.refused}`),
    });
    for (let i = 0; i < 4; i++) {
      const cb = callback();
      expect((await post(l.url, cb.headers, cb.body)).status).toBe(503);
    }
    // A retry of a callback answered 503 is not a duplicate: it was never acknowledged.
    const cb = callback();
    expect((await post(l.url, cb.headers, cb.body)).status).toBe(503);
    failing = false;
    expect((await post(l.url, cb.headers, cb.body)).status).toBe(200);
    await l.close();
    expect(errs).toEqual(['failing EIO', 'recovered after 5']);
    const events = await store.list();
    expect(events.map((e) => [e.trx_id, e.duplicate])).toEqual([[cb.fields.trx_id, false]]);
  });
});

describe('paycli listen when its store breaks', () => {
  it('answers 503, prints one line on stderr when storing fails and one when it works again, and a busy lock is exit 2', async () => {
    const dir = join(home.home, 'breaks');
    mkdirSync(dir);
    const path = join(dir, 'events.jsonl');
    const { ctx, out, err } = testContext({ env: { PAYCLI_VA: VA }, home: home.home });
    const done = run(['listen', '--port', '0', '--exit-after', '5', '--store', path], ctx);
    let url = '';
    for (let i = 0; i < 300 && !url; i++) {
      await new Promise((r) => setTimeout(r, 10));
      url = /notifyUrl\s+(\S+)/.exec(err())?.[1] ?? '';
    }
    const first = callback();
    expect((await post(url, first.headers, first.body)).status).toBe(200);
    // An idle listener lets the store's lock go (then a prune could replace the file): wait for that.
    for (let i = 0; i < 200 && existsSync(`${path}.lock`); i++) await new Promise((r) => setTimeout(r, 10));
    expect(existsSync(`${path}.lock`)).toBe(false);
    rmSync(path);
    mkdirSync(path); // the store's path cannot be opened for writing any more
    for (let i = 0; i < 3; i++) {
      const cb = callback();
      expect((await post(url, cb.headers, cb.body)).status).toBe(503);
    }
    rmSync(path, { recursive: true });
    const last = callback();
    expect((await post(url, last.headers, last.body)).status).toBe(200);
    expect(await done).toBe(0);
    const notices = err().split('\n').filter((l) => /cannot store|storing again/.test(l));
    expect(notices).toEqual([
      `cannot store requests in ${path}: EISDIR: illegal operation on a directory, open '${path}'; answering 503 (the gateway retries) until it can`,
      `storing again in ${path}; 3 requests were answered 503 meanwhile`,
    ]);
    expect(err()).toContain('3 not stored (answered 503)');
    expect(out().split('\n').filter((l) => / 503 /.test(l))).toHaveLength(3);
    expect((await new EventStore(path).list()).map((e) => e.trx_id)).toEqual([last.fields.trx_id]);
    await expect(withStore(async () => Promise.reject(new StoreBusyError('the event store x is locked')))).rejects.toMatchObject({ kind: 'usage', message: 'the event store x is locked' });
  });
});

describe('corrupt lines', () => {
  const good = (id: string): StoredEvent => ({ id, receivedAt: '2026-11-22T00:00:00.000Z', method: 'POST', path: '/', headers: {}, body: 'a=1', verdict: 'valid', variant: null, reason: null, duplicate: false, trx_id: '1', status: 'berhasil', answer: 200 });

  it('events list skips and counts them (stderr), exit 0; events show still finds the good ones', async () => {
    const store = join(home.home, 'corrupt.jsonl');
    writeFileSync(
      store,
      [JSON.stringify(good('evt_a')), '{"id": 42, "verdict": "valid"}', 'not json at all', JSON.stringify({ ...good('evt_b'), headers: { x: 1 } }), JSON.stringify(good('evt_c')), '{"id":"evt_torn'].join('\n'),
    );
    const r = await runCli(['events', 'list', '--store', store], { home: home.home });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(`warning: 4 unreadable lines skipped in ${store}\n`);
    expect(r.stdout).toContain('evt_a');
    expect(r.stdout).toContain('evt_c');
    const json = await runCli(['events', 'list', '--store', store, '--json'], { home: home.home });
    expect(JSON.parse(json.stdout).map((e: StoredEvent) => e.id)).toEqual(['evt_a', 'evt_c']);
    expect(JSON.parse(json.stderr)).toEqual({ warning: `4 unreadable lines skipped in ${store}` });
    expect((await runCli(['events', 'show', 'evt_c', '--store', store], { home: home.home })).code).toBe(0);
  });

  it('listen says how many unreadable lines it skipped when it read the store at start', async () => {
    const store = join(home.home, 'corrupt-listen.jsonl');
    writeFileSync(store, [JSON.stringify(good('evt_a')), 'garbage', '{"id":1}'].join('\n') + '\n');
    const r = await runCli(['listen', '--port', '0', '--store', store, '--timeout', '50ms'], { env: { PAYCLI_VA: VA }, home: home.home });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`warning: 2 unreadable lines skipped in ${store}\n`);
  });

  it('prune keeps unreadable lines in <store>.unreadable and removes the *.tmp of an interrupted prune', async () => {
    const store = join(home.home, 'corrupt-prune.jsonl');
    writeFileSync(store, [JSON.stringify(good('evt_a')), 'garbage', JSON.stringify(good('evt_b'))].join('\n') + '\n');
    writeFileSync(`${store}.1a2b3c4d.tmp`, '{"id":"evt_half'); // a prune killed mid-write
    const r = await runCli(['events', 'prune', '--store', store, '--keep', '1', '--json'], { home: home.home });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ before: 2, removed: 1, kept: 1, unreadable: 1 });
    expect(lines(store).map((l) => JSON.parse(l).id)).toEqual(['evt_b']);
    expect(readFileSync(`${store}.unreadable`, 'utf8')).toBe('garbage\n');
    expect(existsSync(`${store}.1a2b3c4d.tmp`)).toBe(false);
    const human = await runCli(['events', 'prune', '--store', store, '--keep', '5'], { home: home.home });
    expect(human.stdout).toBe(`pruned 0 of 1 events from ${store}; 1 kept\n`);
  });
});

describe('the store lock', () => {
  it('one canonical path for every spelling: symlinks, relative paths, directories that do not exist yet', async () => {
    const realDir = join(home.home, 'canon-real');
    mkdirSync(realDir);
    const linkDir = join(home.home, 'canon-link');
    symlinkSync(realDir, linkDir);
    const expected = join(realpathSync(realDir), 'later', 'events.jsonl');
    expect(await canonicalStorePath(join(linkDir, 'later', 'events.jsonl'))).toBe(expected); // 'later' does not exist
    mkdirSync(join(realDir, 'later'));
    expect(await canonicalStorePath(join(linkDir, 'later', 'events.jsonl'))).toBe(expected);
    writeFileSync(expected, '');
    expect(await canonicalStorePath(join(linkDir, 'later', '..', 'later', 'events.jsonl'))).toBe(expected);
    expect(await canonicalStorePath(relative(process.cwd(), join(linkDir, 'later', 'events.jsonl')))).toBe(expected);
  });

  it('a live lock held past the wait is a clear error naming the lock; a symlinked path shares the lock', async () => {
    const real = join(home.home, 'locked.jsonl');
    writeFileSync(real, '');
    const link = join(home.home, 'locked-link.jsonl');
    symlinkSync(real, link);
    const holder = new EventStore(real, { holder: process.pid });
    const release = await holder.lock();
    const other = new EventStore(link, { lockWaitMs: 300, processRuns: () => true });
    await expect(other.prune({ keepNewest: 0 })).rejects.toBeInstanceOf(StoreBusyError);
    await expect(other.prune({ keepNewest: 0 })).rejects.toThrow(`the event store ${link} is locked by process ${process.pid} (${real}.lock) and stayed locked for 300 ms`);
    const crashed = new EventStore(link, { lockWaitMs: 300, processRuns: () => false });
    await expect(crashed.clear()).rejects.toThrow(`is locked by process ${process.pid}, which no longer runs (its lock is taken over once it is 10 s old)`);
    await release();
    await expect(other.clear()).resolves.toEqual({ cleared: 0, unreadable: 0 });
  });
});

describe('prune and clear racing a listener under load', () => {
  it('every acknowledged callback is in the store, or was removed by a rule the user asked for', async () => {
    const dir = join(home.home, 'race');
    mkdirSync(dir);
    const storePath = join(dir, 'events.jsonl');
    const link = join(home.home, 'race-link');
    symlinkSync(dir, link); // prune through a symlinked directory, clear through a relative path
    const store = new EventStore(storePath);
    const l = await startListener({ port: 0, va: VA, store });
    type Ack = { trx: string; sent: number; receivedAt?: string };
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
        const child = spawn(process.execPath, [BIN, ...args], { cwd, env: { PATH: process.env.PATH ?? '', HOME: home.home }, stdio: ['ignore', 'ignore', 'pipe'] });
        let err = '';
        child.stderr.on('data', (c: Buffer) => (err += c.toString()));
        child.on('exit', (code) => resolve({ code, err }));
      });
    // Rounds of clear then prune; the load goes on after the last prune, so that an append lost to
    // any of them (written into a file that was replaced or removed) cannot be excused by a later clear.
    const operator = async () => {
      for (let round = 0; round < 3; round++) {
        await new Promise((r) => setTimeout(r, 150));
        const c = await runBin(['events', 'clear', '--store', relative(dir, storePath)], dir);
        expect(c.code, c.err).toBe(0);
        ops.push({ kind: 'clear', end: Date.now(), cutoff: Infinity });
        await new Promise((r) => setTimeout(r, 150));
        const p = await runBin(['events', 'prune', '--store', join(link, 'events.jsonl'), '--older-than', '200ms'], home.home);
        expect(p.code, p.err).toBe(0);
        ops.push({ kind: 'prune', end: Date.now(), cutoff: Date.now() - 200 });
      }
      await new Promise((r) => setTimeout(r, 300));
      stop = true;
    };
    await Promise.all([client(), client(), client(), client(), operator()]);
    await l.close();
    const inStore = new Map((await store.list()).map((e) => [e.trx_id, e]));
    const lost = acked.filter((a) => {
      if (inStore.has(a.trx)) return false;
      // Removed legitimately only by an operation that ended after the request was sent and whose
      // rule covers it (clear: everything; prune: received before its cutoff, which is ≤ its end − 200 ms).
      return !ops.some((o) => o.end > a.sent && (o.kind === 'clear' || a.sent < o.cutoff));
    });
    expect(failures).toBe(0);
    expect(acked.length).toBeGreaterThan(50);
    expect(lost).toEqual([]);
    // And the store is whole: every line an event.
    expect(await new EventStore(storePath).scan(() => undefined)).toBe(0);
  });
});
