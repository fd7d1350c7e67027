import { describe, expect, it } from 'vitest';
import { ACTIONS, ALLOWED_FROM, labelOfCode, parseStatus, refusal, STATUS_KEYS, STATUSES, statusInfo, targetOf } from '../../src/core/statuses.js';
import { formatDuration } from '../../src/core/duration.js';
import { defaultExpiryMs } from '../../src/core/sandbox/validate.js';

describe('the status table', () => {
  it("has every documented code once, with the docs' glosses", () => {
    expect(STATUSES.map((s) => s.code).sort((a, b) => a - b)).toEqual([-2, 0, 1, 2, 3, 4, 5, 6, 7]);
    expect(new Set(STATUS_KEYS).size).toBe(9);
    expect(labelOfCode(1)).toBe('berhasil (paid)');
    expect(labelOfCode(2)).toBe('batal (cancelled)');
    expect(labelOfCode(6)).toBe('berhasil (paid, settles later)');
    expect(labelOfCode(-2)).toBe('expired');
    expect(labelOfCode(9)).toBe('status 9');
  });

  it("reads a status as the gateway's word, the gloss, older paycli words or the code", () => {
    for (const [text, key] of [
      ['berhasil', 'berhasil'],
      ['paid', 'berhasil'],
      ['PAID', 'berhasil'],
      ['paid-unsettled', 'unsettled'],
      ['6', 'unsettled'],
      ['cancelled', 'batal'],
      ['gagal', 'gagal'],
      ['failed', 'gagal'],
      ['-2', 'expired'],
      ['7', 'escrow'],
    ] as const) {
      expect(parseStatus(text)?.key, text).toBe(key);
    }
    expect(parseStatus('settled-ish')).toBeUndefined();
    expect(parseStatus('8')).toBeUndefined();
  });

  it('writes the allowed transitions down: refund only from paid, cancel only from pending, settle 6 → 1, release 7 → paid', () => {
    expect(ALLOWED_FROM.refund).toEqual(['berhasil', 'unsettled', 'escrow']);
    expect(ALLOWED_FROM.cancel).toEqual(['pending']);
    expect(targetOf('settle', {})).toBe('berhasil');
    expect(targetOf('release', { settlement: 'deferred' })).toBe('unsettled');
    expect(targetOf('pay', { escrow: true, settlement: 'deferred' })).toBe('escrow');
    expect(targetOf('pay', { settlement: 'deferred' })).toBe('unsettled');
    for (const a of ACTIONS) {
      for (const k of STATUS_KEYS) {
        const why = refusal(a, k, 42);
        expect(why === undefined, `${a} from ${k}`).toBe(ALLOWED_FROM[a].includes(k));
        if (why) expect(why).toMatch(/^transaction 42 (is|has) /);
      }
    }
    expect(refusal('refund', 'pending', 1)).toBe(
      'transaction 1 is pending and cannot be refunded (status 0; only a berhasil (paid) or berhasil (paid, settles later) or escrow (paid, held in escrow) payment can)',
    );
  });

  it("keeps each status's callback values consistent with its meaning", () => {
    for (const s of STATUSES) {
      expect(s.settlementStatus === 'settled', s.key).toBe(s.key === 'berhasil');
      expect(s.isEscrow, s.key).toBe(s.key === 'escrow');
      expect(s.paid, s.key).toBe(['berhasil', 'unsettled', 'escrow'].includes(s.key));
      expect(s.transactionStatusCode, s.key).toBe(s.code);
    }
    expect(statusInfo('unsettled').statusCode).toBe(1);
  });

  it('gives a default expiry per channel where the sources state one, else 24 hours', () => {
    expect(defaultExpiryMs('va', 'bca')).toBe(12 * 3_600_000);
    expect(defaultExpiryMs('qris', 'mpm')).toBe(5 * 60_000);
    expect(defaultExpiryMs('va', 'bni')).toBe(24 * 3_600_000);
    expect(formatDuration(25 * 3_600_000)).toBe('1d 1h');
    expect(formatDuration(90_000)).toBe('1m 30s');
  });
});
