// The listener keeps only its most recent retry keys in memory (RECENT_KEYS in
// src/core/listener/verify-request.ts): memory stays flat however many callbacks a run takes, and a
// retry of an older callback is still marked a duplicate, found in the store.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { signCallbackRequest } from '../../src/core/callback/build.js';
import { sampleCallbackFields } from '../../src/core/callback/sample.js';
import { EventStore } from '../../src/core/listener/event-store.js';
import type { StoredEvent } from '../../src/core/listener/stored-event.js';
import { RequestVerifier } from '../../src/core/listener/verify-request.js';

const VA = '1179000899';
const AT = new Date('2026-11-22T07:07:01Z');
const dir = mkdtempSync(join(tmpdir(), 'paycli-recent-keys-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const made = new Map<number, { body: string; headers: Record<string, string> }>();

/** Callback `i`, as the listener sees it (header names in lower case); the same bytes each time (a retry). */
function callback(i: number): { body: string; headers: Record<string, string> } {
  const known = made.get(i);
  if (known) return known;
  const fields = sampleCallbackFields({ status: 'berhasil', method: 'qris', channel: 'mpm', now: AT, url: 'https://shop.example/cb', trxId: 300000 + i });
  const s = signCallbackRequest(fields, VA, 'form', AT, String(20261122070701000000 + i));
  const c = { body: s.body, headers: Object.fromEntries(Object.entries(s.headers).map(([k, v]) => [k.toLowerCase(), v])) };
  made.set(i, c);
  return c;
}

describe('the retry keys a listener keeps in memory', () => {
  it('keeps the most recent ones only, and finds an older retry in the store', async () => {
    const store = new EventStore(join(dir, 'events.db'), { uid: process.getuid?.() });
    await store.prepare();
    const verifier = new RequestVerifier({ va: VA, otherKeys: [], limit: 1 << 20, acceptPath: '/', store, recentKeys: 3 });
    const receive = async (i: number) => {
      const { body, headers } = callback(i);
      const o = verifier.verify('POST', '/', headers, body);
      expect(o.accepted).toBe(true);
      const event: StoredEvent = {
        ...{ id: `evt_${i}`, receivedAt: AT.toISOString(), method: 'POST', path: '/', headers, body, verdict: o.verdict },
        ...{ variant: null, reason: null, duplicate: o.duplicate, trx_id: o.summary.trx_id, status: o.summary.status, answer: 200 },
      };
      await store.append(event);
      return o.duplicate;
    };
    for (let i = 0; i < 10; i++) expect(await receive(i)).toBe(false);
    expect(verifier.recentKeys).toBe(3);
    // Callback 0's key left memory long ago: its retry is found in the store.
    expect(await receive(0)).toBe(true);
    // A recent one is found in memory.
    expect(await receive(9)).toBe(true);
    expect(verifier.recentKeys).toBe(3);
    await store.close();
  });

  it('without a store, remembers the most recent ones', () => {
    const verifier = new RequestVerifier({ va: VA, otherKeys: [], limit: 1 << 20, acceptPath: '/', store: null, recentKeys: 3 });
    const duplicate = (i: number) => {
      const { body, headers } = callback(i);
      return verifier.verify('POST', '/', headers, body).duplicate;
    };
    for (let i = 0; i < 5; i++) expect(duplicate(i)).toBe(false);
    expect(verifier.recentKeys).toBe(3);
    expect(duplicate(4)).toBe(true);
    expect(duplicate(0)).toBe(false); // forgotten: the limit a store lifts
  });
});
