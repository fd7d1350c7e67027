import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CommandEnv } from '../../src/cli/command-env.js';
import { type ListenFlags, ListenPrinter, listenJsonLine } from '../../src/cli/commands/listen-output.js';
import { EventStore } from '../../src/core/listener/event-store.js';
import type { ListenerEvent, StoredEvent } from '../../src/core/listener/server.js';

/** A printer whose stdout is an array of writes (`--json` lines). */
function printer() {
  const writes: string[] = [];
  const env = { out: { json: true }, ctx: { stdout: { write: (t: string) => writes.push(t) } } } as unknown as CommandEnv<ListenFlags>;
  return { print: new ListenPrinter(env, undefined), writes };
}

const stored = (n: number): StoredEvent => ({
  id: `evt_${n}`,
  receivedAt: '2026-11-28T03:00:00.000Z',
  method: 'POST',
  path: '/',
  headers: { 'x-signature': 'ab' },
  body: `trx_id=${n}&status=berhasil`,
  verdict: 'valid',
  variant: null,
  reason: null,
  duplicate: false,
  trx_id: String(n),
  status: 'berhasil',
  answer: 200,
  source: 'listen',
});

const request = (n: number): ListenerEvent => ({
  type: 'request',
  event: stored(n),
  summary: { trx_id: String(n), status: 'berhasil', via: 'qris', channel: 'mpm', amount: '1000' },
  forwards: [],
  stored: true,
  ms: 0.5,
});

describe('listen: when its lines are written', () => {
  afterEach(() => vi.useRealTimers());

  it('without a store: once per event-loop turn, in order', async () => {
    const { print, writes } = printer();
    print.request(request(1));
    print.forward('evt_1', { url: 'http://127.0.0.1:1/', status: 200, ms: 1 });
    print.request(request(2));
    expect(writes).toEqual([]);
    await new Promise((r) => setImmediate(r));
    expect(writes).toEqual([
      `${listenJsonLine(request(1))}\n${JSON.stringify({ forward: 'evt_1', url: 'http://127.0.0.1:1/', status: 200, ms: 1 })}\n${listenJsonLine(request(2))}\n`,
    ]);
  });

  it('with a store: when the store says the thread waits, or after 10 ms at the latest', () => {
    vi.useFakeTimers();
    const { print, writes } = printer();
    const source: { whenIdle?: () => void } = {};
    print.flushWhenIdle(source);
    print.request(request(1));
    print.request(request(2));
    vi.advanceTimersByTime(0);
    expect(writes).toEqual([]); // not at the end of the turn: the thread may still have requests to read
    source.whenIdle!();
    expect(writes).toEqual([`${listenJsonLine(request(1))}\n${listenJsonLine(request(2))}\n`]);
    source.whenIdle!(); // nothing pending: nothing written
    print.request(request(3));
    vi.advanceTimersByTime(9);
    expect(writes).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(writes).toEqual([`${listenJsonLine(request(1))}\n${listenJsonLine(request(2))}\n`, `${listenJsonLine(request(3))}\n`]);
  });

  it('the event store says so once the last group out has committed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'paycli-idle-'));
    const store = new EventStore(join(dir, 'events.db'));
    try {
      await store.prepare();
      const log: string[] = [];
      store.whenIdle = () => log.push('idle');
      const round = (from: number) =>
        Promise.all(
          [from, from + 1, from + 2].map(
            (n) => new Promise<void>((resolve, reject) => store.appendWith(stored(n), (err) => (err ? reject(err) : resolve(void log.push('answer'))))),
          ),
        );
      // The first group commits on this thread (the writer thread starts meanwhile), later ones on the
      // writer thread, where the polls for their outcome also say so while they are out.
      for (const from of [1, 10]) {
        if (from > 1) await (store as unknown as { writerStart: Promise<void> }).writerStart;
        log.length = 0;
        await round(from);
        expect(log.filter((e) => e === 'answer')).toHaveLength(3);
        await vi.waitFor(() => expect(log.at(-1)).toBe('idle')); // after the last answer
      }
      expect((store as unknown as { writer?: object }).writer).toBeDefined();
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
