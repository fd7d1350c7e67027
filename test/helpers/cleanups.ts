// What a test file undoes after each of its tests, last first: temporary directories removed,
// emulators closed, anything else handed to `later`.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import type { EmulatorHandle } from '../../src/core/sandbox/server.js';
import { sandbox } from './sandbox.js';

export function afterEachTest(prefix = 'paycli-test-') {
  const cleanups: (() => unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  return {
    /** Runs `undo` after this test. */
    later: (undo: () => unknown) => void cleanups.push(undo),
    /** A new temporary directory, removed after this test. */
    tempDir(name = prefix): string {
      const d = mkdtempSync(join(tmpdir(), name));
      cleanups.push(() => rmSync(d, { recursive: true, force: true }));
      return d;
    },
    /** An emulator on port 0, closed after this test. */
    async started(options: Parameters<typeof sandbox>[0] = {}): Promise<EmulatorHandle> {
      const sb = await sandbox(options);
      cleanups.push(() => sb.close());
      return sb;
    },
  };
}
