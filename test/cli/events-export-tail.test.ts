// `paycli events export` (what `verify-callback --jsonl` reads) and `paycli events tail` (new events
// as NDJSON while a listener writes).
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { EventStore, type StoredEvent } from '../../src/core/listener/event-store.js';
import { startListener } from '../../src/core/listener/server.js';
import { signCallbackRequest } from '../../src/core/callback/build.js';
import { sampleCallbackFields } from '../../src/core/callback/sample.js';
import { runCli, tempHome } from '../helpers/cli.js';
import { BIN } from '../helpers/spawn.js';

const VA = '1179000899';
let home: ReturnType<typeof tempHome>;
beforeAll(() => (home = tempHome()));
afterAll(() => home.cleanup());

let trx = 810000;
function callback(format: 'form' | 'json' = 'form') {
  const trxId = trx++;
  return signCallbackRequest(
    sampleCallbackFields({ status: 'berhasil', method: 'va', channel: 'bca', now: new Date(), url: 'http://127.0.0.1/cb', trxId }),
    VA,
    format,
    new Date(),
    String(trxId),
  );
}

async function post(url: string, headers: Record<string, string>, body: string) {
  const res = await request(url, { method: 'POST', headers, body });
  await res.body.text();
  return res.statusCode;
}

describe('events export', () => {
  it('writes {headers, body} lines that verify-callback --jsonl checks to the same verdicts', async () => {
    const path = join(home.home, 'export.db');
    const l = await startListener({ port: 0, va: VA, store: new EventStore(path, { busyTimeoutMs: 0 }) });
    const form = callback('form');
    const json = callback('json');
    const forged = callback('form');
    expect(await post(l.url, form.headers, form.body)).toBe(200);
    expect(await post(l.url, json.headers, json.body)).toBe(200);
    expect(await post(l.url, { ...forged.headers, 'X-Signature': 'ab'.repeat(32) }, forged.body)).toBe(400);
    await l.close();
    const r = await runCli(['events', 'export', '--store', path], { home: home.home });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe(`exported 3 events from ${path}\n`);
    const lines = r.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { headers: Record<string, string>; body: string });
    expect(lines.map((x) => Object.keys(x))).toEqual([
      ['headers', 'body'],
      ['headers', 'body'],
      ['headers', 'body'],
    ]);
    expect(lines.map((x) => x.body)).toEqual([form.body, json.body, forged.body]);
    const file = join(home.home, 'export.jsonl');
    writeFileSync(file, r.stdout);
    const verify = await runCli(['verify-callback', '--jsonl', file, '--va', VA, '--json'], { home: home.home });
    expect(verify.code).toBe(6); // one forged
    expect(JSON.parse(verify.stdout)).toMatchObject({ total: 3, valid: 2, invalid: 1, malformed: 0 });
  });

  it('--since and --until select by the time received: a duration ago, a WIB day (until: to its end), ISO times', async () => {
    const path = join(home.home, 'range.db');
    const store = new EventStore(path);
    const at = (id: string, receivedAt: string): StoredEvent => ({
      id,
      receivedAt,
      method: 'POST',
      path: '/',
      headers: {},
      body: id,
      verdict: 'malformed',
      variant: null,
      reason: 'x',
      duplicate: false,
      trx_id: null,
      status: null,
      answer: 400,
    });
    // Stored out of time order (a trigger with its own clock): export orders by the time received.
    for (const e of [
      at('e3', '2026-11-21T00:30:00.000Z'),
      at('e1', '2026-11-19T16:59:59.000Z'),
      at('e2', '2026-11-19T17:00:00.000Z'),
      at('e4', '2026-11-22T11:00:00.000Z'),
    ])
      await store.append(e);
    await store.close();
    const now = () => new Date('2026-11-22T12:00:00Z');
    const bodies = async (...args: string[]) => {
      const r = await runCli(['events', 'export', '--store', path, ...args], { home: home.home, now });
      expect(r.code, r.stderr).toBe(0);
      return r.stdout
        .trimEnd()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l).body);
    };
    expect(await bodies()).toEqual(['e3', 'e1', 'e2', 'e4']); // no range: in the order stored
    expect(await bodies('--since', '2026-11-20')).toEqual(['e2', 'e3', 'e4']); // 2026-11-20 00:00 WIB = 11-19 17:00 UTC
    expect(await bodies('--until', '2026-11-20')).toEqual(['e1', 'e2']); // up to the end of 11-20 WIB
    expect(await bodies('--since', '2026-11-21 07:30', '--until', '2026-11-22T11:00:00Z')).toEqual(['e3']);
    expect(await bodies('--since', '2h')).toEqual(['e4']);
    for (const bad of [
      ['--since', 'yesterday'],
      ['--until', '2026-13-01'],
      ['--since', '1d', '--until', '2d'],
    ]) {
      const r = await runCli(['events', 'export', '--store', path, ...bad], { home: home.home, now });
      expect(r.code, bad.join(' ')).toBe(2);
    }
  });
});

describe('events tail', () => {
  it('prints each event a listener stores as one JSON line, as it arrives, until interrupted (130)', async () => {
    const path = join(home.home, 'tail.db');
    const l = await startListener({ port: 0, va: VA, store: new EventStore(path, { busyTimeoutMs: 0 }) });
    const before = callback();
    expect(await post(l.url, before.headers, before.body)).toBe(200); // stored before tail starts: not printed
    const child = spawn(process.execPath, [BIN, 'events', 'tail', '--store', path], {
      env: { PATH: process.env.PATH ?? '', HOME: home.home },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    // Following starts once tail says so (however long a loaded machine takes to start it).
    const following = new Promise<void>((resolve) => {
      child.stderr.on('data', (c: Buffer) => {
        err += c.toString();
        if (err.includes('following')) resolve();
      });
      child.on('exit', () => resolve());
    });
    const lines: string[] = [];
    const waiting: (() => void)[] = [];
    createInterface({ input: child.stdout }).on('line', (line) => {
      lines.push(line);
      for (const w of waiting.splice(0)) w();
    });
    await following;
    expect(err).toBe(`following ${path}; Ctrl-C to stop\n`);
    const sent: string[] = [];
    for (let i = 0; i < 3; i++) {
      const cb = callback(i === 1 ? 'json' : 'form');
      expect(await post(l.url, cb.headers, cb.body)).toBe(200);
      sent.push(cb.fields.trx_id!);
      while (lines.length < i + 1) await new Promise<void>((r) => waiting.push(r)); // each line follows its event
    }
    const events = lines.map((line) => JSON.parse(line) as StoredEvent);
    expect(events.map((e) => e.trx_id)).toEqual(sent);
    expect(events.every((e) => e.verdict === 'valid' && e.answer === 200 && e.source === 'listen')).toBe(true);
    const stored = await new EventStore(path).list();
    expect(events).toEqual(stored.slice(1)); // the shape of `events list --json`
    // After a clear, the next event is still new to tail (row numbers are never reused).
    expect((await runCli(['events', 'clear', '--store', path], { home: home.home })).code).toBe(0);
    const after = callback();
    expect(await post(l.url, after.headers, after.body)).toBe(200);
    while (lines.length < 4) await new Promise<void>((r) => waiting.push(r));
    expect(JSON.parse(lines[3]!).trx_id).toBe(after.fields.trx_id);
    // Each 100 ms wait leaves no abort listener behind (11 of them made Node warn of a leak).
    await new Promise((r) => setTimeout(r, 1500));
    expect(err).not.toContain('MaxListenersExceededWarning');
    child.kill('SIGINT');
    expect(await new Promise((r) => child.on('exit', (code) => r(code)))).toBe(130);
    await l.close();
  }, 90_000);

  it('--limit N prints the newest N stored first', async () => {
    const path = join(home.home, 'tail-limit.db');
    const store = new EventStore(path);
    for (const id of ['evt_1', 'evt_2', 'evt_3'])
      await store.append({
        id,
        receivedAt: '2026-11-22T00:00:00.000Z',
        method: 'POST',
        path: '/',
        headers: {},
        body: '',
        verdict: 'malformed',
        variant: null,
        reason: null,
        duplicate: false,
        trx_id: null,
        status: null,
        answer: 400,
      });
    await store.close();
    const child = spawn(process.execPath, [BIN, 'events', 'tail', '--store', path, '--limit', '2'], {
      env: { PATH: process.env.PATH ?? '', HOME: home.home },
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const lines: string[] = [];
    const rl = createInterface({ input: child.stdout });
    await new Promise<void>((resolve) => rl.on('line', (line) => lines.push(line) === 2 && resolve()));
    expect(lines.map((l) => JSON.parse(l).id)).toEqual(['evt_2', 'evt_3']);
    child.kill('SIGTERM');
    await new Promise((r) => child.on('exit', r));
  });
});
