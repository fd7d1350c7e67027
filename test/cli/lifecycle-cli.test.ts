import { afterAll, describe, expect, it } from 'vitest';
import { payVa } from '../helpers/argv.js';
import { runCli } from '../helpers/cli.js';
import { receiver } from '../helpers/receiver.js';
import { localEnv, sandboxAndHome } from '../helpers/sandbox.js';

const fx = sandboxAndHome({ expirySweepMs: 3_600_000 });
const rxs: Awaited<ReturnType<typeof receiver>>[] = [];
afterAll(async () => {
  for (const r of rxs) await r.close();
});

async function pay(extra: string[] = []): Promise<{ TransactionId: number; PaymentNo: string }> {
  const rx = await receiver([200]);
  rxs.push(rx);
  const r = await runCli([...payVa({ channel: 'bni' }), '--item', 'A:1:100000', '--notify-url', rx.url, '--json', ...extra], {
    env: localEnv(fx.sb),
    home: fx.home.home,
  });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}
const admin = (args: string[]) => runCli(['sandbox', ...args, '--sandbox-url', fx.sb.url], { home: fx.home.home });

describe('paycli sandbox cancel|refund|fail|settle|release|clock, pay --escrow, trigger --trx (issue 24)', () => {
  it('admin transitions print the one vocabulary; a forbidden one exits 3 with the reason', async () => {
    const a = await pay();
    const cancelled = await admin(['cancel', String(a.TransactionId)]);
    expect(cancelled.code).toBe(0);
    expect(cancelled.stdout).toContain(`batal (cancelled): trx ${a.TransactionId}`);
    const refused = await admin(['refund', String(a.TransactionId)]);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('is batal (cancelled) and cannot be refunded');
    const b = await pay();
    expect((await admin(['fail', String(b.TransactionId), '--error'])).stdout).toContain('error: trx');
    const list = await admin(['list']);
    expect(list.stdout).toMatch(new RegExp(`${a.TransactionId}\\s+batal \\(cancelled\\)`));
    // history and transaction speak the same words.
    const h = await runCli(['history', '--status', 'batal'], { env: localEnv(fx.sb), home: fx.home.home });
    expect(h.stdout).toContain('batal (cancelled)');
    const t = await runCli(['transaction', String(b.TransactionId)], { env: localEnv(fx.sb), home: fx.home.home });
    expect(t.stdout).toContain('error · code 4');
  });

  it('pay --escrow holds the payment as escrow (7) until release; refund after paid', async () => {
    const e = await pay(['--escrow']);
    expect(fx.sb.state.find(String(e.TransactionId))!.escrow).toBe(true);
    expect((await admin(['pay', String(e.TransactionId)])).stdout).toContain('escrow (paid, held in escrow)');
    const held = await runCli(['balance'], { env: localEnv(fx.sb), home: fx.home.home });
    expect(held.stdout).toMatch(/in escrow\s+Rp 96\.000/);
    expect((await admin(['release', String(e.TransactionId)])).stdout).toContain('berhasil (paid)');
    expect((await admin(['refund', String(e.TransactionId)])).stdout).toContain('refund (refunded)');
    expect((await admin(['settle', String(e.TransactionId)])).code).toBe(3);
    expect((await runCli(['balance'], { env: localEnv(fx.sb), home: fx.home.home })).stdout).not.toContain('in escrow');
  });

  it("clock shows and moves the emulator's time, forward only", async () => {
    const shown = await admin(['clock', '--json']);
    const before = JSON.parse(shown.stdout).clock.epochMs as number;
    const moved = await admin(['clock', 'advance', '25h']);
    expect(moved.code).toBe(0);
    expect(moved.stdout).toMatch(/WIB \(1d 1h ahead of real time\)/);
    const back = await admin(['clock', 'set', '2020-01-01T00:00+07:00']);
    expect(back.code).toBe(3);
    expect(back.stderr).toContain('never goes backwards');
    expect((await admin(['clock', 'advance', 'tomorrow'])).code).toBe(2);
    expect((await admin(['clock', 'rewind'])).code).toBe(2);
    expect(JSON.parse((await admin(['clock', '--json'])).stdout).clock.epochMs - before).toBeGreaterThanOrEqual(25 * 3_600_000);
  });

  it("trigger --trx sends the callback of a real transaction from the emulator's record; resend --to sends it elsewhere", async () => {
    const p = await pay();
    await admin(['pay', String(p.TransactionId)]);
    const rx = await receiver([200]);
    rxs.push(rx);
    const r = await runCli(
      ['trigger', '--trx', String(p.TransactionId), '--status', 'refund', '--to', rx.url, '--sandbox-url', fx.sb.url, '--json', '--no-persist'],
      { home: fx.home.home },
    );
    expect(r.code, r.stderr).toBe(0);
    await rx.waitFor(1);
    const body = new URLSearchParams(rx.received[0]!.body.toString());
    expect(body.get('trx_id')).toBe(String(p.TransactionId));
    expect(body.get('payment_no')).toBe(p.PaymentNo);
    expect([body.get('status'), body.get('status_code'), body.get('transaction_status_code')]).toEqual(['refund', '3', '3']);
    const other = await receiver([200]);
    rxs.push(other);
    const resent = await admin(['resend', String(p.TransactionId), '--to', other.url]);
    expect(resent.code).toBe(0);
    expect(resent.stdout).toContain(`→ ${other.url}`);
    await other.waitFor(1);
    expect(new URLSearchParams(other.received[0]!.body.toString()).get('status')).toBe('berhasil');
    expect((await runCli(['trigger', '--trx', '999999', '--sandbox-url', fx.sb.url], { home: fx.home.home })).code).toBe(2);
  });
});
