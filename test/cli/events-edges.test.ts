// Edges of the event store commands a merchant meets: ambiguous id prefixes, times that do not
// exist, a store that cannot be used by `trigger` (refused before anything is sent) or is locked
// after a delivery (said, with the delivery).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keepUntilExit } from '../../src/core/db.js';
import { EventStore } from '../../src/core/listener/event-store.js';
import { runCli, tempHome } from '../helpers/cli.js';

const VA = '1179000899';
let home: ReturnType<typeof tempHome>;
beforeAll(() => (home = tempHome()));
afterAll(() => home.cleanup());

function event(id: string) {
  return {
    id,
    receivedAt: '2026-11-20T03:00:00.000Z',
    method: 'POST',
    path: '/',
    headers: {},
    body: 'trx_id=1',
    verdict: 'malformed' as const,
    variant: null,
    reason: 'test',
    duplicate: false,
    trx_id: null,
    status: null,
    answer: 400,
  };
}

/** A handler that counts what it is sent. */
async function handler() {
  let received = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"OK"}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/cb`,
    received: () => received,
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

describe('events show: an id prefix', () => {
  it('that starts several ids says so (exit 2), one that starts one finds it, none: no such event', async () => {
    const path = join(home.home, 'prefix.db');
    const store = new EventStore(path);
    for (const id of ['evt_aaaa0001', 'evt_aaaa0002', 'evt_bbbb0001']) await store.append(event(id));
    await store.close();
    const ambiguous = await runCli(['events', 'show', 'evt_aaaa', '--store', path], { home: home.home });
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toContain(`"evt_aaaa" is the start of more than one event id in ${path}`);
    const one = await runCli(['events', 'show', 'evt_bb', '--store', path, '--json'], { home: home.home });
    expect(JSON.parse(one.stdout).id).toBe('evt_bbbb0001');
    const none = await runCli(['events', 'show', 'evt_cc', '--store', path], { home: home.home });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('no event "evt_cc"');
    // verify-callback --event takes the same ids.
    const verify = await runCli(['verify-callback', '--event', 'evt_aaaa', '--store', path, '--va', VA], { home: home.home });
    expect(verify.code).toBe(2);
    expect(verify.stderr).toContain('more than one event id');
  });
});

describe('events export --since/--until', () => {
  it('refuses a WIB time that does not exist, and a duration too far back: exit 2, one line', async () => {
    const path = join(home.home, 'times.db');
    const store = new EventStore(path);
    await store.append(event('evt_time0001'));
    await store.close();
    for (const [flag, value] of [
      ['--since', '2026-13-45 99:99'],
      ['--until', '2026-11-24 47:30'],
      ['--since', '2026-02-30 10:00'],
      ['--since', '2026-11-20 24:00:00'],
      ['--since', '104000000d'],
      ['--until', '104000000d'],
    ]) {
      const r = await runCli(['events', 'export', flag!, value!, '--store', path], { home: home.home });
      expect(r.code, `${flag} ${value}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(new RegExp(`^error: invalid ${flag} "${value}"`));
      expect(r.stderr).not.toContain('internal error');
    }
    // The real ones still work: 2026-11-20 10:00 WIB is when the event came.
    const ok = await runCli(['events', 'export', '--since', '2026-11-20 10:00', '--until', '2026-11-20 10:01', '--store', path], { home: home.home });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout.trim().split('\n')).toHaveLength(1);
  });
});

describe('trigger and its event store', () => {
  it('a --store that is not an event store is refused before anything is sent', async () => {
    const h = await handler();
    try {
      const readme = join(home.home, 'README.md');
      writeFileSync(readme, '# not events\n');
      const refused = await runCli(['trigger', '--to', h.url, '--va', VA, '--store', readme], { home: home.home });
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('is not an event store');
      expect(h.received()).toBe(0);
    } finally {
      await h.close();
    }
  });

  it('a store locked after the delivery: the callback is shown as delivered, the error says it was not recorded (exit 2)', async () => {
    const h = await handler();
    const path = join(home.home, 'locked.db');
    await new EventStore(path).prepare();
    const holder = keepUntilExit(new Sqlite(path));
    try {
      holder.exec('BEGIN IMMEDIATE');
      // trigger opens the store, sends, then waits its 5 s for the lock before it says so.
      const r = await runCli(['trigger', '--to', h.url, '--va', VA, '--store', path], { home: home.home });
      expect(h.received()).toBe(1);
      expect(r.code).toBe(2);
      expect(r.stdout).toMatch(/→ POST .* 200 /);
      expect(r.stderr).toMatch(/^error: the callback was delivered \(HTTP 200\), but not recorded: the event store .* is busy/);
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
      await h.close();
    }
  }, 30_000);
});
