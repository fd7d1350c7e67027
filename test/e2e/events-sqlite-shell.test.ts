// README's `sqlite3` lines (section "Looking inside with the sqlite3 shell") run as shown against the
// store a listener wrote at the default place, and answer what they say. Needs the sqlite3 shell
// (`apt-get install sqlite3`).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { signCallbackRequest } from '../../src/core/callback/build.js';
import { sampleCallbackFields } from '../../src/core/callback/sample.js';
import { EventStore } from '../../src/core/listener/event-store.js';
import { startListener } from '../../src/core/listener/server.js';
import { tempHome } from '../helpers/cli.js';

const VA = '1179000899';
const ROOT = new URL('../..', import.meta.url).pathname;
const haveSqlite3 = spawnSync('sqlite3', ['-version']).status === 0;
let home: ReturnType<typeof tempHome>;
beforeAll(() => (home = tempHome()));
afterAll(() => home.cleanup());

describe('README: inspecting the events database with sqlite3', () => {
  it.skipIf(!haveSqlite3)(
    `each sqlite3 line of README runs read-only beside a running listener${haveSqlite3 ? '' : ' (skipped: no sqlite3 shell)'}`,
    async () => {
      const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
      const lines = readme.split('\n').filter((l) => l.startsWith('sqlite3 -readonly ~/.local/share/paycli/events.db '));
      expect(lines).toHaveLength(4);
      const store = new EventStore(join(home.home, '.local', 'share', 'paycli', 'events.db'), { busyTimeoutMs: 0 });
      const l = await startListener({ port: 0, va: VA, store });
      const now = new Date();
      const valid = signCallbackRequest(
        sampleCallbackFields({ status: 'berhasil', method: 'va', channel: 'bca', now, url: 'http://127.0.0.1/cb', trxId: 100001 }),
        VA,
        'form',
        now,
        '1',
      );
      for (const [headers, body] of [
        [valid.headers, valid.body],
        [valid.headers, valid.body],
        [{ 'content-type': 'application/json' }, '{'],
      ] as const) {
        const res = await request(l.url, { method: 'POST', headers, body });
        await res.body.text();
      }
      const run = (line: string) => {
        const r = spawnSync('sh', ['-c', line], { env: { PATH: process.env.PATH ?? '', HOME: home.home }, encoding: 'utf8' });
        expect(r.status, `${line}\n${r.stderr}`).toBe(0);
        return r.stdout;
      };
      try {
        expect(run(lines[0]!)).toContain('CREATE TABLE events');
        expect(run(lines[1]!).trim().split('\n').sort()).toEqual(['malformed|1', 'valid|2']);
        const recent = run(lines[2]!.replace('2026-11-22', now.toISOString().slice(0, 10)))
          .trim()
          .split('\n');
        expect(recent).toHaveLength(3);
        expect(recent[2]).toMatch(/^evt_\w+\|100001\|berhasil\|200$/);
        expect(run(lines[3]!).trim().split('\n')).toEqual([valid.signature, valid.signature]);
      } finally {
        await l.close();
      }
    },
  );
});
