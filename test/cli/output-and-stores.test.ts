import { readFileSync, writeFileSync, mkdirSync, statSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { colorLevel } from '../../src/cli/output.js';
import { keepUntilExit } from '../../src/core/db.js';
import { EventStore } from '../../src/core/listener/event-store.js';
import { run } from '../../src/cli/run.js';
import { runCli, tempHome, testContext } from '../helpers/cli.js';
import { receiver } from '../helpers/receiver.js';

let home: ReturnType<typeof tempHome>;
beforeAll(() => (home = tempHome()));
afterAll(() => home.cleanup());

describe('color decision (README, "Configuration")', () => {
  const ctx = (env: Record<string, string>) => testContext({ env }).ctx;
  it('follows NO_COLOR, --no-color, TERM=dumb, the TTY and FORCE_COLOR', () => {
    expect(colorLevel(ctx({}), {}, true)).toBe(1);
    expect(colorLevel(ctx({}), {}, false)).toBe(0);
    expect(colorLevel(ctx({ NO_COLOR: '1' }), {}, true)).toBe(0);
    expect(colorLevel(ctx({ TERM: 'dumb' }), {}, true)).toBe(0);
    expect(colorLevel(ctx({}), { color: false }, true)).toBe(0);
    expect(colorLevel(ctx({ FORCE_COLOR: '1' }), {}, false)).toBe(1);
    expect(colorLevel(ctx({ FORCE_COLOR: '3', NO_COLOR: '1' }), {}, false)).toBe(3);
    expect(colorLevel(ctx({ FORCE_COLOR: '1' }), { color: false }, true)).toBe(0);
  });

  it('colors only when asked, and never with a pipe', async () => {
    const fixture = new URL('../fixtures/callback-qris-sandbox.form', import.meta.url).pathname;
    const args = ['verify-callback', fixture, '--va', '1179000899', '--signature', 'c9594cc8c9f5811ecf22422eed1c8071f7837211f58956f616658a904d94f024'];
    expect((await runCli(args)).stdout).not.toContain('\u001b[');
    expect((await runCli(args, { env: { FORCE_COLOR: '1' } })).stdout).toContain('\u001b[32m');
  });
});

describe('errors', () => {
  it('print a stack trace only with --debug', async () => {
    const plain = await runCli(['areas', 'province', '--no-cache'], {
      env: { PAYCLI_ENV: 'local', PAYCLI_BASE_URL: 'http://127.0.0.1:9/api' },
      home: home.home,
    });
    expect(plain.stderr).not.toMatch(/\n\s+at /);
    const debug = await runCli(['areas', 'province', '--no-cache', '--debug'], {
      env: { PAYCLI_ENV: 'local', PAYCLI_BASE_URL: 'http://127.0.0.1:9/api' },
      home: home.home,
    });
    expect(debug.code).toBe(5);
    expect(debug.stderr).toMatch(/NetworkError: GET .* failed[\s\S]*\n\s+at /);
  });
});

describe('user config checks', () => {
  it('reports unknown keys with file and line, and keeps them when it writes', async () => {
    const dir = join(home.home, '.config', 'paycli');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const file = join(dir, 'config.json');
    writeFileSync(file, JSON.stringify({ theme: 'dark', profiles: { default: { va: '1179000899', apiKye: 'typo' } } }, null, 2), { mode: 0o600 });
    const r = await runCli(['config', 'set', 'env', 'local'], { home: home.home });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`${file}:2: unknown key "theme" ignored`);
    expect(r.stderr).toContain(`${file}:6: unknown key "apiKye" in profile "default" ignored`);
    const saved = JSON.parse(readFileSync(file, 'utf8'));
    expect(saved).toMatchObject({ theme: 'dark', profiles: { default: { va: '1179000899', apiKye: 'typo', env: 'local' } } });
  });
});

describe('event store', () => {
  it('keeps what it stored across reopenings, in a SQLite file 0600 in a 0700 directory', async () => {
    const path = join(home.home, 'fresh', 'events.db');
    const store = new EventStore(path);
    const event = {
      id: 'evt_1',
      receivedAt: new Date().toISOString(),
      method: 'POST',
      path: '/',
      headers: { 'x-a': 'ü' },
      body: 'a=1',
      verdict: 'malformed' as const,
      variant: null,
      reason: 'x',
      duplicate: false,
      trx_id: null,
      status: null,
      answer: 400,
    };
    await store.append(event);
    await store.close();
    expect(readFileSync(path).subarray(0, 16).toString('latin1')).toBe('SQLite format 3\u0000');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(home.home, 'fresh')).mode & 0o777).toBe(0o700);
    const again = new EventStore(path);
    await again.append({ ...event, id: 'evt_3', source: 'trigger' });
    await again.close();
    expect(await new EventStore(path).list()).toEqual([
      { ...event, source: 'listen' },
      { ...event, id: 'evt_3', source: 'trigger' },
    ]);
    // Commits are synced to the disk only with `fsync` (listen --fsync): SQLite's synchronous FULL (2), else NORMAL (1).
    for (const fsync of [false, true]) {
      const s = new EventStore(path, { fsync });
      expect((await s.prepare()).pragma('synchronous', { simple: true })).toBe(fsync ? 2 : 1);
      await s.close();
    }
    // Reading a store that was never written creates nothing.
    expect(await new EventStore(join(home.home, 'nowhere', 'events.db')).list()).toEqual([]);
    expect(existsSync(join(home.home, 'nowhere'))).toBe(false);
  });

  it('lists the newest matches with --limit and the filters, and finds events by id or unique prefix', async () => {
    const store = join(home.home, 'query.jsonl');
    const base = {
      receivedAt: '2026-11-22T00:00:00.000Z',
      method: 'POST',
      path: '/',
      headers: {},
      body: 'a=1',
      variant: null,
      reason: null,
      duplicate: false,
      trx_id: '1',
      answer: 200,
    };
    const rows = [
      { id: 'evt_aa1', verdict: 'valid', status: 'berhasil' },
      { id: 'evt_aa', verdict: 'invalid', status: 'berhasil' },
      { id: 'evt_ab1', verdict: 'valid', status: 'pending' },
      { id: 'evt_b1', verdict: 'malformed', status: null },
      { id: 'evt_b2', verdict: 'valid-variant', status: 'berhasil' },
    ];
    writeFileSync(store, rows.map((r) => JSON.stringify({ ...base, ...r })).join('\n') + '\n');
    const ids = async (...args: string[]) => {
      const r = await runCli(['events', 'list', '--store', store, '--json', ...args], { home: home.home });
      expect(r.code, r.stderr).toBe(0);
      return (JSON.parse(r.stdout) as { id: string }[]).map((e) => e.id);
    };
    expect(await ids()).toEqual(rows.map((r) => r.id));
    expect(await ids('--limit', '2')).toEqual(['evt_b1', 'evt_b2']);
    expect(await ids('--valid', '--limit', '2')).toEqual(['evt_ab1', 'evt_b2']);
    expect(await ids('--invalid')).toEqual(['evt_aa', 'evt_b1']);
    expect(await ids('--status', 'berhasil', '--limit', '1')).toEqual(['evt_b2']);
    expect((await runCli(['events', 'list', '--store', store, '--limit', '0'], { home: home.home })).code).toBe(2);
    const show = async (id: string) => runCli(['events', 'show', id, '--store', store, '--json'], { home: home.home });
    expect(JSON.parse((await show('evt_aa')).stdout).id).toBe('evt_aa'); // exact, though also a prefix of evt_aa1
    expect(JSON.parse((await show('evt_ab')).stdout).id).toBe('evt_ab1'); // unique prefix
    const ambiguous = await show('evt_b');
    expect(ambiguous.code).toBe(2);
    expect(JSON.parse(ambiguous.stderr).error.message).toContain('"evt_b" is the start of more than one event id');
  });

  it('imports a large JSONL store of the previous release whole: multi-byte text, a torn last line skipped', async () => {
    const path = join(home.home, 'big.jsonl');
    const base = {
      receivedAt: '2026-11-22T00:00:00.000Z',
      method: 'POST',
      path: '/',
      headers: {},
      verdict: 'valid' as const,
      variant: null,
      reason: null,
      duplicate: false,
      trx_id: '1',
      status: 'berhasil',
      answer: 200,
    };
    const lines = Array.from({ length: 1500 }, (_, i) => JSON.stringify({ ...base, id: `evt_${i}`, body: `buyer_name=${'Ö€🌺'.repeat(200 + (i % 7))}` }));
    writeFileSync(path, lines.join('\n') + '\n{"id":"evt_torn","body":"Ö€');
    const seen: string[] = [];
    await new EventStore(path).scan((e) => seen.push(`${e.id}:${e.body.length}`));
    expect(seen).toHaveLength(1500);
    expect(seen[1499]).toBe(`evt_1499:${'buyer_name='.length + 4 * (200 + (1499 % 7))}`);
    expect((await new EventStore(path).list()).map((e) => e.id)).toEqual(lines.map((_, i) => `evt_${i}`));
    expect(readFileSync(`${path}.migrated`, 'utf8').split('\n')).toHaveLength(1501); // the old file, untouched, beside it
  });
});

/** `paycli listen --exit-after 2` on a free port, in this process; resolves once it listens. */
async function listenInProcess(store: string) {
  const { ctx, out, err } = testContext({ env: { PAYCLI_VA: '1179000899' }, home: home.home });
  const done = run(['listen', '--port', '0', '--exit-after', '2', '--store', store, '--json'], ctx);
  let url = '';
  for (let i = 0; i < 300 && !url; i++) {
    await new Promise((r) => setTimeout(r, 10));
    url = /"url":"([^"]+)"/.exec(err())?.[1] ?? '';
  }
  return { done, url, out, err };
}

describe('listen options and replay --resign', () => {
  it('stops by itself after --exit-after N, and replays re-signed with another VA', async () => {
    const store = join(home.home, 'exit-after.jsonl');
    const { done, url, out, err } = await listenInProcess(store);
    const env = { PAYCLI_VA: '1179000899' };
    await runCli(['trigger', '--to', url, '--no-persist'], { env, home: home.home });
    await runCli(['trigger', '--to', url, '--no-persist'], { env, home: home.home });
    expect(await done).toBe(0);
    expect(out().trim().split('\n')).toHaveLength(2);
    expect(err()).toContain('"stopped"');

    const events = JSON.parse((await runCli(['events', 'list', '--store', store, '--json'], { home: home.home })).stdout);
    const rx = await receiver([200]);
    const r = await runCli(['events', 'replay', events[0].id, '--to', rx.url, '--store', store, '--resign', '--va', '2220002220', '--json'], {
      home: home.home,
    });
    expect(r.code).toBe(0);
    const sent = rx.received[0]!;
    expect(sent.body.toString()).toBe(events[0].body);
    expect(sent.headers['x-signature']).not.toBe(events[0].headers['x-signature']);
    const check = await runCli(['verify-callback', '--data', events[0].body, '--signature', String(sent.headers['x-signature']), '--va', '2220002220'], {
      home: home.home,
    });
    expect(check.code).toBe(0);
    await rx.close();
  });
});

describe('completion --json', () => {
  it('wraps the script', async () => {
    const r = await runCli(['completion', 'fish', '--json']);
    expect(JSON.parse(r.stdout)).toMatchObject({ shell: 'fish', script: expect.stringContaining('complete -c paycli') });
  });
});

describe('file-system problems are one-line errors, not internal errors', () => {
  it('names the path and the reason with the documented exit code', async () => {
    const notDir = join(home.home, 'plain-file');
    writeFileSync(notDir, 'x');
    const sb = await runCli(['sandbox', '--port', '0', '--data-dir', join(notDir, 'state')], { home: home.home });
    expect(sb.code).toBe(2);
    expect(sb.stderr).toBe(`error: cannot use the emulator data dir ${join(notDir, 'state')}: a part of the path is not a directory\n`);
    const batch = await runCli(['verify-callback', '--jsonl', home.home, '--va', '1179000899'], { home: home.home });
    expect(batch.code).toBe(2);
    expect(batch.stderr).toContain('it is not a file');
    const cfg = await runCli(['config', 'set', 'va', '1179000899'], { home: notDir });
    expect(cfg.code).toBe(4);
    expect(cfg.stderr).toContain('a part of the path is not a directory');
    const area = await runCli(['areas', 'city', ''], { env: { PAYCLI_ENV: 'local' }, home: home.home });
    expect(area.code).toBe(2);
    expect(area.stderr).toContain('a province code is required');
  });
});

describe('events prune', () => {
  const base = {
    method: 'POST',
    path: '/',
    headers: {},
    body: 'a=1',
    verdict: 'valid',
    variant: null,
    reason: null,
    duplicate: false,
    trx_id: '1',
    status: 'berhasil',
    answer: 200,
  };
  const now = new Date('2026-11-22T12:00:00Z');
  const write = (path: string, ages: number[]) =>
    writeFileSync(
      path,
      ages.map((h, i) => JSON.stringify({ ...base, id: `evt_${i}`, receivedAt: new Date(now.getTime() - h * 3_600_000).toISOString() })).join('\n') +
        '\n{"id":"evt_torn"',
    );
  const prune = (store: string, ...args: string[]) => runCli(['events', 'prune', '--store', store, '--json', ...args], { home: home.home, now: () => now });
  const ids = async (store: string) => (await new EventStore(store).list()).map((e) => e.id);

  it('drops events older than --older-than and beyond the newest --keep, in a 0600 file', async () => {
    const store = join(home.home, 'prune.db');
    write(join(home.home, 'prune.jsonl'), [200, 100, 30, 5, 1]); // hours ago, oldest first (imported on first open)
    const r = await prune(store, '--older-than', '2d');
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ store, before: 5, removed: 2, kept: 3 });
    expect(await ids(store)).toEqual(['evt_2', 'evt_3', 'evt_4']);
    expect(statSync(store).mode & 0o777).toBe(0o600);
    expect(JSON.parse((await prune(store, '--keep', '2')).stdout)).toMatchObject({ before: 3, removed: 1, kept: 2 });
    expect(await ids(store)).toEqual(['evt_3', 'evt_4']);
    expect(JSON.parse((await prune(store, '--older-than', '2h', '--keep', '5')).stdout)).toMatchObject({ removed: 1, kept: 1 });
    expect(await ids(store)).toEqual(['evt_4']);
    for (const bad of [[], ['--keep', '-1'], ['--keep', 'x'], ['--older-than', 'soon']]) expect((await prune(store, ...bad)).code, bad.join(' ')).toBe(2);
    expect(await ids(store)).toEqual(['evt_4']);
  });

  it('prunes and clears a store a running listener writes to without losing what it appends; a held lock is waited for, never taken', async () => {
    const store = join(home.home, 'busy.db');
    const { done, url } = await listenInProcess(store);
    const env = { PAYCLI_VA: '1179000899' };
    await runCli(['trigger', '--to', url, '--no-persist'], { env, home: home.home }); // the listener has the store open
    for (const args of [['prune', '--keep', '0'], ['clear']]) {
      const r = await runCli(['events', ...args, '--store', store], { home: home.home });
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
    }
    expect(await ids(store)).toEqual([]);
    await runCli(['trigger', '--to', url, '--no-persist'], { env, home: home.home });
    expect(await done).toBe(0);
    expect(await ids(store)).toHaveLength(1); // stored after the clear, in the same database
    // Another connection in a write transaction (a stopped process, a sqlite3 shell): prune waits its busy timeout, then says so.
    const { default: Sqlite } = await import('better-sqlite3');
    const holder = keepUntilExit(new Sqlite(store));
    holder.exec('BEGIN IMMEDIATE');
    const r = await prune(store, '--keep', '0');
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stderr).error.message).toBe(
      `the event store ${store} is busy: another process has held its write lock for over 5 s (a paycli listen or trigger stopped with Ctrl-Z or a debugger, or a sqlite3 shell in a transaction)`,
    );
    holder.exec('ROLLBACK');
    holder.close();
    expect(JSON.parse((await prune(store, '--keep', '0')).stdout)).toMatchObject({ removed: 1, kept: 0 });
  }, 30_000);
});
