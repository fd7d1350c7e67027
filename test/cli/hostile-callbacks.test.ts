import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { startListener } from '../../src/core/listener/server.js';
import { EventStore } from '../../src/core/listener/event-store.js';
import { runCli, tempHome } from '../helpers/cli.js';

// Issue 13 item 8: JSON nested 3 000 levels is malformed input (400 "malformed" in the listener,
// stored like every request; exit 2 in the commands), never a 500 or exit 1.
const VA = '1179000899';
const DEEP = `{"trx_id":1,"status":"berhasil","a":${'['.repeat(3000)}${']'.repeat(3000)}}`;

let home: ReturnType<typeof tempHome>;
beforeAll(() => (home = tempHome()));
afterAll(() => home.cleanup());

describe('JSON nested 3 000 levels', () => {
  it('verify-callback and sign-callback exit 2 with one line', async () => {
    const file = join(home.home, 'deep.json');
    writeFileSync(file, DEEP);
    for (const argv of [
      ['verify-callback', file, '--va', VA, '--signature', 'ab'.repeat(32)],
      ['sign-callback', file, '--va', VA],
      ['verify-callback', '-', '--va', VA, '--signature', 'ab'.repeat(32)],
    ]) {
      const r = await runCli(argv, { home: home.home, stdin: DEEP });
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/nested 3001 levels deep \(at most 511\)/);
      expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    }
  });

  it('the listener answers 400 malformed and stores the request', async () => {
    const store = new EventStore(join(home.home, 'deep.jsonl'));
    const l = await startListener({ port: 0, va: VA, store });
    try {
      const res = await request(l.url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-signature': 'ab'.repeat(32) }, body: DEEP });
      const text = await res.body.text();
      expect(res.statusCode).toBe(400);
      expect(text).toMatch(/^malformed callback: the JSON body is nested 3001 levels deep/);
      const events = await store.list();
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ verdict: 'malformed', answer: 400 });
    } finally {
      await l.close();
      await store.close();
    }
  });
});
