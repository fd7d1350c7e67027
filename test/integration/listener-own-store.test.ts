import { describe, expect, it } from 'vitest';
import { request } from 'undici';
import { type CallbackEventStore, retryKey, startListener, type StoredEvent } from '../../src/index.js';
import { signCallbackRequest } from '../../src/core/callback/build.js';
import { sampleCallbackFields } from '../../src/core/callback/sample.js';

const VA = '1179000899';

function callback() {
  const fields = sampleCallbackFields({ status: 'berhasil', method: 'va', channel: 'bca', now: new Date(), url: 'http://127.0.0.1/cb' });
  return signCallbackRequest(fields, VA, 'form', new Date(), String(Math.random()).slice(2, 22));
}

/** A library user's own store (in memory): what `startListener` asks of one, and nothing more. */
class MemoryStore implements CallbackEventStore {
  calls: string[] = [];
  events: StoredEvent[] = [];
  /** Retry keys acknowledged "by an earlier run". */
  earlier = new Set<string>();
  /** Each appendWith's `done`, called by the test. */
  waiting: ((err?: unknown) => void)[] = [];
  waited?: () => void;

  async prepare(): Promise<void> {
    this.calls.push('prepare');
  }
  acknowledged(trxId: string | null, key: string): boolean {
    return this.earlier.has(`${trxId}:${key}`);
  }
  appendWith(event: StoredEvent, done: (err?: unknown) => void): void {
    this.events.push(event);
    this.waiting.push(done);
    this.waited?.();
  }
  async close(): Promise<void> {
    this.calls.push('close');
  }
  /** Resolves once a request is waiting for its write. */
  next(): Promise<(err?: unknown) => void> {
    if (this.waiting.length > 0) return Promise.resolve(this.waiting.shift()!);
    return new Promise((resolve) => (this.waited = () => ((this.waited = undefined), resolve(this.waiting.shift()!))));
  }
}

describe("startListener with a library user's own CallbackEventStore", () => {
  it('prepares it, answers only after it stored the event, answers 503 on its error, asks it for earlier acknowledgements, closes it', async () => {
    const store = new MemoryStore();
    const l = await startListener({ port: 0, va: VA, store });
    expect(store.calls).toEqual(['prepare']);
    try {
      const cb = callback();
      let answered = false;
      const first = request(l.url, { method: 'POST', headers: cb.headers, body: cb.body }).then(async (r) => {
        answered = true;
        return { status: r.statusCode, text: await r.body.text() };
      });
      const done = await store.next();
      // The request is stored, not yet acknowledged: no answer until the store says it committed.
      await new Promise((r) => setImmediate(r));
      expect(answered).toBe(false);
      done();
      expect(await first).toEqual({ status: 200, text: '{"status":"OK"}' });
      expect(store.events[0]).toMatchObject({ verdict: 'valid', duplicate: false, trx_id: cb.fields.trx_id, body: cb.body });

      // A store that cannot take the request: 503 with its code, so that the gateway retries.
      const other = callback();
      const refused = request(l.url, { method: 'POST', headers: other.headers, body: other.body });
      (await store.next())(Object.assign(new Error('disk full'), { code: 'ENOSPC' }));
      const r = await refused;
      expect(r.statusCode).toBe(503);
      expect(await r.body.text()).toContain('(ENOSPC)');

      // A callback an earlier run acknowledged (the store says so) is a duplicate.
      const retried = callback();
      store.earlier.add(`${retried.fields.trx_id}:${retryKey(retried.fields.trx_id, retried.fields.status, retried.signature)}`);
      const again = request(l.url, { method: 'POST', headers: retried.headers, body: retried.body });
      (await store.next())();
      expect((await again).statusCode).toBe(200);
      expect(store.events.at(-1)).toMatchObject({ verdict: 'valid', duplicate: true });
    } finally {
      await l.close();
    }
    expect(store.calls).toEqual(['prepare', 'close']);
  });
});
