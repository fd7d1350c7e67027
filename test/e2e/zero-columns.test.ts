import { execFile } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { receiver } from '../helpers/receiver.js';
import { BIN } from '../helpers/spawn.js';
import { tempHome } from '../helpers/cli.js';

// A pty whose size was never set reports 0 columns (`script` without a terminal around it, some CI
// runners, `docker run -t` before a resize). paycli must take that as "unknown" (80): ora counted
// each spinner line as Infinity rows and test-handler redrew forever. Behaviour only: the command
// ends, with its usual output.

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** Runs paycli under `script` (a fresh pty of 0x0) and resolves with its exit code and output. */
function inZeroColumnPty(args: string[], env: Record<string, string>): Promise<{ code: number; output: string }> {
  // `timeout -s KILL` only so that a regression (a spinner redrawing forever, deaf to SIGTERM while
  // it loops) cannot outlive the test; the assertion is on what the command did, not on time.
  const command = ['timeout', '-s', 'KILL', '100', process.execPath, BIN, ...args].map(quote).join(' ');
  return new Promise((resolve) => {
    const child = execFile(
      'script',
      ['-qec', command, '/dev/null'],
      { env: { PATH: process.env.PATH, TERM: 'xterm', ...env }, maxBuffer: 64 * 1024 * 1024 },
      (err, stdout) => {
        resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, output: stdout });
      },
    );
    child.stdin?.end();
  });
}

let home: ReturnType<typeof tempHome>;
beforeAll(() => (home = tempHome()));
afterAll(() => home.cleanup());

describe('a terminal of 0 columns is 80 columns', () => {
  it('the pty really reports 0 columns (the premise of this test)', async () => {
    const r = await new Promise<string>((resolve) =>
      execFile('script', ['-qec', `${quote(process.execPath)} -e 'process.stdout.write(String(process.stdout.columns))'`, '/dev/null'], (_e, out) =>
        resolve(out),
      ),
    );
    expect(r.trim()).toBe('0');
  });

  it('test-handler ends, its spinner and report shown', async () => {
    // A handler that answers 200 to everything: the forged checks fail, so exit 6 (its verdict).
    const h = await receiver([200], 'OK');
    try {
      const r = await inZeroColumnPty(['test-handler', h.url], { HOME: home.home, PAYCLI_VA: '1179000899' });
      expect(r.code, r.output).toBe(6);
      expect(r.output).toContain('valid berhasil callback is accepted');
      expect(h.received.length).toBeGreaterThan(0);
    } finally {
      await h.close();
    }
  }, 120_000);

  it('help and errors wrap to 80 columns', async () => {
    const help = await inZeroColumnPty(['pay', '--help'], { HOME: home.home });
    expect(help.code).toBe(0);
    const lines = help.output.replace(/\x1b\[[0-9;]*m/g, '').split(/\r?\n/);
    expect(lines.some((l) => l.length > 60)).toBe(true);
    for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(80);
    // An error wraps to 80 columns too (it wrapped to 40 when 0 was taken for a width).
    const err = await inZeroColumnPty(['test-handler', 'http://127.0.0.1:9/cb'], { HOME: home.home });
    expect(err.code).toBe(4);
    const errLines = err.output
      .replace(/\x1b\[[0-9;]*m/g, '')
      .split(/\r?\n/)
      .filter(Boolean);
    expect(errLines[0]).toMatch(/^error: no merchant VA/);
    expect(Math.max(...errLines.map((l) => l.length))).toBeGreaterThan(40);
    for (const l of errLines) expect(l.length, l).toBeLessThanOrEqual(80);
  }, 120_000);
});
