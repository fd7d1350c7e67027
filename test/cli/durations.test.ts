import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDuration } from '../../src/core/duration.js';
import { parseTimeoutMs } from '../../src/core/config/profiles.js';
import { durationFlag } from '../../src/cli/duration-flag.js';
import { runCli, tempHome } from '../helpers/cli.js';

// Issue 19 item 6: every time flag takes durations (500ms, 30s, 5m, 2h, 7d; a bare number is ms)
// through one parser, core/duration.ts.

let home: ReturnType<typeof tempHome>;
beforeAll(() => (home = tempHome()));
afterAll(() => home.cleanup());

describe('one duration parser', () => {
  it('the timeout setting, the duration flags and core/duration agree', () => {
    for (const text of ['500ms', '30s', '5m', '2h', '7d', '1500', '1.5s']) {
      expect(parseTimeoutMs(text), text).toBe(parseDuration(text));
      expect(durationFlag(text, '--x', 1), text).toBe(parseDuration(text));
    }
    expect(durationFlag(undefined, '--x', 42)).toBe(42);
    expect(() => durationFlag('0', '--deadline', 1)).toThrow('invalid --deadline "0": it must be longer than 0');
    expect(() => durationFlag('soon', '--deadline', 1)).toThrow('invalid --deadline: invalid duration "soon"');
    expect(() => parseTimeoutMs('0')).toThrow(/invalid timeout "0"/);
    expect(() => parseTimeoutMs('30d')).toThrow(/at most 2147483647 ms/);
  });

  it('test-handler --deadline takes a duration, and refuses a bad one with exit 2', async () => {
    const server = createServer((_req, res) => void res.writeHead(200).end('OK'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/cb`;
    try {
      const ok = await runCli(['test-handler', url, '--deadline', '2s', '--format', 'form'], { env: { PAYCLI_VA: '1179000899' }, home: home.home });
      // The handler accepts everything (forgeries too), so the suite fails, but the deadline was read as 2000 ms.
      expect(ok.stdout).toContain('every answer within 2000 ms');
      const bad = await runCli(['test-handler', url, '--deadline', 'soon'], { env: { PAYCLI_VA: '1179000899' }, home: home.home });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toBe('error: invalid --deadline: invalid duration "soon" (examples: 500ms, 2s, 1m, 7d)\n');
    } finally {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
