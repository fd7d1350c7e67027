import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseBindHost } from '../../src/core/http/serve.js';
import { runCli, tempHome } from '../helpers/cli.js';

// Issue 13: `listen --host 8.8.8.8` and `sandbox --host 256.1.1.1` were "internal error … report
// it", exit 1. An invalid address is a usage error; an address that is not this machine's says so.

describe('--host of listen and sandbox', () => {
  it('parses addresses and host names, and refuses the rest', () => {
    expect(parseBindHost('127.0.0.1')).toBe('127.0.0.1');
    expect(parseBindHost('[::1]')).toBe('::1');
    expect(parseBindHost('::')).toBe('::');
    expect(parseBindHost('localhost')).toBe('localhost');
    for (const bad of ['256.1.1.1', '1.2.3', 'a b', '', 'http://127.0.0.1', '-x']) expect(() => parseBindHost(bad), bad).toThrow(/^invalid --host/);
  });

  const cases: [string[], number, RegExp][] = [
    [['listen', '--host', '256.1.1.1', '--port', '0'], 2, /^error: invalid --host "256\.1\.1\.1": not an IP address or a host name$/],
    [['sandbox', '--host', '256.1.1.1', '--port', '0'], 2, /^error: invalid --host "256\.1\.1\.1": not an IP address or a host name$/],
    [
      ['listen', '--host', '8.8.8.8', '--port', '0'],
      2,
      /^error: cannot listen on 8\.8\.8\.8:0: address not available \(it is not an address of this machine\)$/,
    ],
    [
      ['sandbox', '--host', '8.8.8.8', '--port', '0'],
      2,
      /^error: cannot listen on 8\.8\.8\.8:0: address not available \(it is not an address of this machine\)$/,
    ],
  ];
  for (const [argv, code, line] of cases) {
    it(`${argv.join(' ')}: one line, exit ${code}`, async () => {
      const h = tempHome();
      try {
        const r = await runCli(argv, { home: h.home, env: { PAYCLI_VA: '1179000899' } });
        expect(r.code, r.stderr).toBe(code);
        const lines = r.stderr.trimEnd().split('\n');
        expect(lines[0]).toMatch(line);
        expect(lines.slice(1).every((l) => l.startsWith('hint: '))).toBe(true);
        expect(r.stderr).not.toMatch(/internal error|report it|\n\s+at /);
        // An invalid address is refused before anything is opened: no state directory, no store.
        if (line.source.includes('invalid --host')) expect(existsSync(join(h.home, '.local', 'share', 'paycli'))).toBe(false);
      } finally {
        h.cleanup();
      }
    });
  }
});

describe('sandbox banner', () => {
  it("shows a merchant's own --va masked (the documented default stays whole)", async () => {
    const h = tempHome();
    try {
      const keyFile = join(h.home, 'key.txt');
      writeFileSync(keyFile, 'MY-OWN-SECRET-KEY-0123456789\n');
      const stop = new AbortController();
      stop.abort('test');
      const own = await runCli(['sandbox', '--port', '0', '--in-memory', '--va', '1234567890', '--api-key-file', keyFile], {
        home: h.home,
        signal: stop.signal,
      });
      expect(own.code, own.stderr).toBe(0);
      expect(own.stderr).toMatch(/^ {2}VA {9}…7890$/m);
      expect(own.stderr).not.toContain('1234567890');
      const byDefault = await runCli(['sandbox', '--port', '0', '--in-memory'], { home: h.home, signal: stop.signal });
      expect(byDefault.stderr).toMatch(/^ {2}VA {9}1179000899$/m);
    } finally {
      h.cleanup();
    }
  });
});
