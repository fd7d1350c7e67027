// The docs' examples and lists of default expiries say what the emulator gives (validate.ts).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEFAULT_EXPIRY_MS, defaultExpiryMs, FALLBACK_EXPIRY_MS } from '../../src/core/sandbox/validate.js';

const ROOT = new URL('../..', import.meta.url).pathname;
const prose = (name: string) => readFileSync(`${ROOT}docs/commands/prose/${name}.md`, 'utf8');
const HOUR = 3_600_000;
/** `YYYY-MM-DD HH:mm:ss` in WIB as epoch ms. */
const wib = (s: string) => Date.parse(`${s.replace(' ', 'T')}+07:00`);

describe('default expiries in the docs', () => {
  it("pay's BCA example expires when the emulator's BCA default says", () => {
    const text = prose('pay');
    const [, created] = /ref PAYCLI-(\d{14})-/.exec(text)!;
    const [, expires, h, m] = /expires {2}(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}) WIB \(in (\d+)h (\d+)m\)/.exec(text)!;
    expect(text).toMatch(/BCA virtual account/);
    const c = created!.replace(/^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/, '$1-$2-$3 $4:$5:$6');
    expect(wib(expires!) - wib(c)).toBe(defaultExpiryMs('va', 'bca'));
    expect(Number(h) * HOUR + Number(m) * 60_000).toBe(defaultExpiryMs('va', 'bca'));
  });

  it("transaction's BCA example: expires minus created is the BCA default", () => {
    const text = prose('transaction');
    expect(text).toMatch(/method {3}va \/ bca/);
    const [, created] = /created {2}(\S+ \S+) WIB/.exec(text)!;
    const [, expires] = /expires {2}(\S+ \S+) WIB/.exec(text)!;
    expect(wib(expires!) - wib(created!)).toBe(defaultExpiryMs('va', 'bca'));
  });

  it("pay's list of defaults is the emulator's table", () => {
    const text = prose('pay').replace(/\s+/g, ' ');
    const listed = /Without `--expired`.*?: (BCA VA .*?) \(\[docs\/gateway\.md\]/.exec(text)![1]!;
    const named: Record<string, string> = { 'va/bca': 'BCA VA', 'va/bri': 'BRI VA', 'va/bsi': 'BSI VA', 'cstore/alfamart': 'Alfamart', 'qris/mpm': 'QRIS' };
    const words = (ms: number) => (ms % HOUR === 0 ? `${ms / HOUR} hours` : `${ms / 60_000} minutes`);
    for (const [key, ms] of Object.entries(DEFAULT_EXPIRY_MS)) {
      if (key === 'qris/qris') continue; // the channel alias of qris/mpm
      expect(listed, key).toContain(`${named[key]} ${words(ms)}`);
    }
    expect(listed).toMatch(new RegExp(`every other channel .*${words(FALLBACK_EXPIRY_MS)}$`));
  });
});
