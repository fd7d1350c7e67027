import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { request } from 'undici';
import type { SandboxEvent, EmulatorHandle } from '../../src/core/sandbox/server.js';
import { sandbox, allTxns, allDeliveries, signedPost } from '../helpers/sandbox.js';

const isRoot = process.getuid?.() === 0;

async function create(
  sb: EmulatorHandle,
  n: number,
): Promise<{ status: number; retryAfter: unknown; json: { Status: number; Message: string; Data: { TransactionId: number; PaymentNo: string } | null } }> {
  const body = JSON.stringify({
    name: `Buyer ${n} ${'x'.repeat(200)}`,
    phone: '08123456789',
    email: 'a@b.co',
    amount: 10_000 + n,
    notifyUrl: 'http://127.0.0.1:9/cb',
    referenceId: `REF-${n}-${'r'.repeat(100)}`,
    paymentMethod: 'va',
    paymentChannel: 'bca',
  });
  const req = signedPost(sb.apiUrl, 'v2/payment/direct', body);
  const res = await request(req.url, { method: 'POST', headers: req.headers, body });
  return { status: res.statusCode, retryAfter: res.headers['retry-after'], json: (await res.body.json()) as never };
}

describe.skipIf(!isRoot)(`the emulator on a full disk${isRoot ? '' : ' (skipped: needs root to mount a small tmpfs)'}`, () => {
  it('answers 503 in the gateway shape, changes nothing, and never loses or reissues an acknowledged payment', async () => {
    const mnt = mkdtempSync(join(tmpdir(), 'paycli-tmpfs-'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m,mode=0700', 'tmpfs', mnt]);
    const dataDir = join(mnt, 'sandbox');
    let sb: EmulatorHandle | undefined;
    try {
      const events: SandboxEvent[] = [];
      sb = await sandbox({ dataDir, onEvent: (e) => events.push(e) });
      const acknowledged = new Map<number, string>();
      let refused = 0;
      for (let n = 0; n < 400 && refused < 5; n++) {
        const r = await create(sb, n);
        if (r.status === 200) acknowledged.set(r.json.Data!.TransactionId, r.json.Data!.PaymentNo);
        else {
          expect(r.status).toBe(503);
          expect(r.json).toMatchObject({ Status: 503, Success: false, Data: null });
          expect(r.json.Message).toMatch(/cannot store/);
          expect(r.retryAfter).toBe('5');
          refused++;
        }
      }
      expect(refused).toBe(5); // the disk did fill up
      expect(acknowledged.size).toBeGreaterThan(10);
      expect(events.some((e) => e.type === 'store-error' && /no space left/.test(e.message))).toBe(true);
      // In the ledger, only what was acknowledged exists.
      expect(
        allTxns(sb.state)
          .map((t) => t.id)
          .sort(),
      ).toEqual([...acknowledged.keys()].sort());
      // Transitions on a full disk: those that fit are kept with their callback, the first that does not is
      // answered 503 and leaves its payment pending with no callback queued.
      const paidIds: number[] = [];
      let refusedId: number | undefined;
      for (const id of acknowledged.keys()) {
        const r = await sb.pay(String(id));
        if (r.ok) paidIds.push(id);
        else {
          expect(r).toMatchObject({ ok: false, status: 503 });
          refusedId = id;
          break;
        }
      }
      expect(refusedId).toBeDefined();
      expect(sb.state.get(refusedId!)!.status).toBe('pending');
      expect(allDeliveries(sb.state).some((d) => d.trxId === refusedId)).toBe(false);
      await sb.close();

      // Space comes back; after a restart every acknowledged payment is there, and new ones never reuse an id or number.
      execFileSync('mount', ['-o', 'remount,size=16m', mnt]);
      sb = await sandbox({ dataDir });
      expect(sb.startup.skippedLines).toBe(0);
      for (const [id, no] of acknowledged) expect(sb.state.get(id)?.paymentNo).toBe(no);
      expect(sb.state.count()).toBe(acknowledged.size);
      for (const id of paidIds) {
        expect(sb.state.get(id)!.status).toBe('berhasil');
        expect(allDeliveries(sb.state).some((d) => d.trxId === id && d.status === 'berhasil')).toBe(true);
      }
      expect(sb.state.get(refusedId!)!.status).toBe('pending');
      const more = await create(sb, 1000);
      expect(more.status).toBe(200);
      expect(more.json.Data!.TransactionId).toBeGreaterThan(Math.max(...acknowledged.keys()));
      expect([...acknowledged.values()]).not.toContain(more.json.Data!.PaymentNo);
      expect((await sb.pay(String(refusedId))).ok).toBe(true);
      await sb.close();
    } finally {
      await sb?.close().catch(() => undefined);
      execFileSync('umount', ['-l', mnt]);
      rmSync(mnt, { recursive: true, force: true });
    }
  }, 60_000);
});
