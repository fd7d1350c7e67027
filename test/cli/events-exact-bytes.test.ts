// A request body that is not UTF-8 is kept as its bytes (a BLOB), so that `events replay` sends
// exactly what came and `events show --json` / `events export` carry it (`bodyBase64`); a UTF-8
// body stays text, as before.
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keepUntilExit } from '../../src/core/db.js';
import { EventStore } from '../../src/core/listener/event-store.js';
import { startListener } from '../../src/core/listener/server.js';
import { runCli, tempHome } from '../helpers/cli.js';
import { receiver } from '../helpers/receiver.js';

const VA = '1179000899';
let home: ReturnType<typeof tempHome>;
beforeAll(() => (home = tempHome()));
afterAll(() => home.cleanup());

function post(url: string, body: Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': body.length } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('a body that is not UTF-8', () => {
  it('is stored as its bytes and replayed, shown and exported exactly', async () => {
    const path = join(home.home, 'bytes.db');
    const l = await startListener({ port: 0, va: VA, store: new EventStore(path, { busyTimeoutMs: 0 }) });
    // Latin-1 and a lone continuation byte: no UTF-8 reading gives these bytes back.
    const raw = Buffer.concat([Buffer.from('trx_id=7&buyer_name=Andr'), Buffer.from([0xe9, 0x80, 0xff]), Buffer.from('&status=berhasil')]);
    const text = Buffer.from('trx_id=8&buyer_name=Andr\u00e9');
    expect(await post(l.url, text)).toBe(400); // unsigned: stored, answered 400
    // By then the listener's writer thread runs: the bytes go through its hand-off too.
    await new Promise((r) => setTimeout(r, 300));
    expect(await post(l.url, raw)).toBe(400);
    await l.close();

    const db = keepUntilExit(new Sqlite(path, { readonly: true }));
    expect(db.prepare('SELECT typeof(body) FROM events ORDER BY seq').pluck().all()).toEqual(['text', 'blob']);
    db.close();

    const list = await runCli(['events', 'list', '--store', path, '--json'], { home: home.home });
    expect(list.code, list.stderr).toBe(0);
    const [second, first] = JSON.parse(list.stdout) as { id: string; body: string; bodyBase64?: string }[];
    expect(Buffer.from(first!.bodyBase64!, 'base64').equals(raw)).toBe(true);
    expect(first!.body).toBe(raw.toString('utf8'));
    expect(second!.bodyBase64).toBeUndefined();

    const show = await runCli(['events', 'show', first!.id, '--store', path, '--json'], { home: home.home });
    expect(JSON.parse(show.stdout).bodyBase64).toBe(raw.toString('base64'));

    const exported = await runCli(['events', 'export', '--store', path], { home: home.home });
    const lines = exported.stdout
      .trimEnd()
      .split('\n')
      .map((x) => JSON.parse(x) as Record<string, unknown>);
    expect(lines.map((x) => Object.keys(x))).toEqual([
      ['headers', 'body'],
      ['headers', 'body', 'bodyBase64'],
    ]);

    const rx = await receiver([200, 200]);
    for (const e of [first!, second!]) {
      const r = await runCli(['events', 'replay', e.id, '--to', rx.url, '--store', path], { home: home.home });
      expect(r.code, r.stderr).toBe(0);
    }
    expect(rx.received[0]!.body.equals(raw)).toBe(true);
    expect(rx.received[1]!.body.equals(text)).toBe(true);
    await rx.close();
  });
});
