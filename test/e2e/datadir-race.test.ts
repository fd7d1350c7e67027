// Two paycli processes started together on a brand-new data dir: the one refused always exits 2
// naming the directory and the other's pid (never "cannot open … lock.db: database is locked", never
// without a pid), whichever wins and however far the winner got. test/integration/datadir-lock.test.ts
// sets each step of the race up deterministically; this runs the real thing.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/spawn.js';

const root = mkdtempSync(join(tmpdir(), 'paycli-datadir-race-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

interface Run {
  pid: number;
  kill: () => void;
  done: Promise<{ code: number | null; stderr: string }>;
}

function start(args: string[]): Run {
  const child = spawn(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH ?? '', HOME: root }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c));
  return { pid: child.pid!, kill: () => child.kill('SIGTERM'), done: new Promise((r) => child.on('close', (code) => r({ code, stderr }))) };
}

const refusal = (dir: string, pid: number) => `error: the emulator data dir ${dir} is in use by another paycli process (pid ${pid})`;

describe('two processes racing on a new data dir', () => {
  it('sandbox seed ×2: each ends 0 (one after the other) or 2 naming the other', async () => {
    for (let round = 0; round < 5; round++) {
      const dir = join(root, `seed-${round}`);
      const runs = [0, 1].map(() => start(['sandbox', 'seed', '--payments', '20', '--data-dir', dir]));
      const results = await Promise.all(runs.map((r) => r.done));
      results.forEach((r, i) => {
        if (r.code === 0) return;
        expect(r.code, r.stderr).toBe(2);
        expect(r.stderr.split('\n')[0]).toBe(refusal(dir, runs[1 - i]!.pid));
      });
    }
  }, 60_000);

  it('sandbox ×2: the one refused exits 2 naming the one that serves', async () => {
    for (let round = 0; round < 3; round++) {
      const dir = join(root, `serve-${round}`);
      const runs = [0, 1].map(() => start(['sandbox', '--port', '0', '--data-dir', dir]));
      const first = await Promise.race(runs.map((r, i) => r.done.then((res) => ({ ...res, i }))));
      const other = runs[1 - first.i]!;
      other.kill();
      await other.done;
      expect(first.code, first.stderr).toBe(2);
      expect(first.stderr.split('\n')[0]).toBe(refusal(dir, other.pid));
    }
  }, 60_000);
});
