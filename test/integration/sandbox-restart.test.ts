import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseFormBody } from '../../src/core/callback/parse.js';
import type { Transaction } from '../../src/core/sandbox/state.js';
import { receiver } from '../helpers/receiver.js';
import { sandbox, allDeliveries, signedPost } from '../helpers/sandbox.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('restarting on a journal written by an older version', () => {
  it('queues the callback of a transition journalled without one, and delivers it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'paycli-upgrade-'));
    dirs.push(dir);
    const rx = await receiver([200]);
    const txn: Transaction = {
      id: 100_001,
      sid: 'sid',
      merchantVa: '1179000899',
      referenceId: 'REF',
      via: 'va',
      channel: 'bca',
      paymentNo: '8868000000100001',
      paymentName: 'BCA',
      amount: 10_000,
      fee: 4000,
      status: 'pending',
      createdAt: Date.now() - 60_000,
      expiresAt: Date.now() + 3_600_000,
      notifyUrl: rx.url,
      buyer: { name: 'A', phone: '0812345678', email: 'a@b.co' },
      items: [],
    };
    // Before this version, a status change and its callback were two records; a crash between them left this.
    writeFileSync(
      join(dir, 'journal.jsonl'),
      `${JSON.stringify({ t: 'txn', txn })}\n${JSON.stringify({ t: 'status', id: 100_001, status: 'berhasil', at: Date.now() - 30_000 })}\n`,
    );
    const sb = await sandbox({ dataDir: dir });
    expect(sb.startup).toMatchObject({ skippedLines: 0, reconciled: 1 });
    await rx.waitFor(1);
    expect(parseFormBody(rx.received[0]!.body.toString())).toMatchObject({ trx_id: '100001', status: 'berhasil' });
    expect(await sb.idle(5000)).toBe(true);
    await sb.close();
    // Queued once: the next start finds nothing to reconcile.
    const again = await sandbox({ dataDir: dir });
    expect(again.startup.reconciled).toBe(0);
    await again.close();
    await rx.close();
  });
});

describe('one emulator per data dir', () => {
  it('refuses a second one naming the dir and the holder, and lets the next one in after a clean stop', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'paycli-lock-'));
    dirs.push(dir);
    const sb = await sandbox({ dataDir: dir });
    const err = await sandbox({ dataDir: dir }).then(
      () => undefined,
      (e: unknown) => e as Error & { exitCode?: number },
    );
    expect(err?.constructor.name).toBe('UsageError');
    expect(err?.message).toContain(dir);
    expect(err?.message).toContain(`pid ${process.pid}`);
    await sb.close();
    const next = await sandbox({ dataDir: dir });
    await next.close();
  });
});

describe('concurrent transitions of one payment', () => {
  it('exactly one wins and queues exactly one callback, also with the store between check and change', async () => {
    const { request } = await import('undici');
    const dir = mkdtempSync(join(tmpdir(), 'paycli-race-'));
    dirs.push(dir);
    const rx = await receiver([200]);
    const sb = await sandbox({ dataDir: dir });
    for (let round = 0; round < 20; round++) {
      const body = JSON.stringify({
        name: 'A',
        phone: '08123456789',
        email: 'a@b.co',
        amount: 1000 + round,
        notifyUrl: rx.url,
        paymentMethod: 'va',
        paymentChannel: 'bca',
      });
      const req = signedPost(sb.apiUrl, 'v2/payment/direct', body);
      const res = await request(req.url, { method: 'POST', headers: req.headers, body });
      const id = String(((await res.body.json()) as { Data: { TransactionId: number } }).Data.TransactionId);
      const results = await Promise.all([sb.pay(id), sb.expire(id), sb.pay(id), sb.expire(id)]);
      expect(results.filter((r) => r.ok && r.changed)).toHaveLength(1);
      expect(allDeliveries(sb.state).filter((d) => d.trxId === Number(id))).toHaveLength(1);
    }
    expect(await sb.idle(10_000)).toBe(true);
    expect(rx.received).toHaveLength(20);
    await sb.close();
    await rx.close();
  });
});
