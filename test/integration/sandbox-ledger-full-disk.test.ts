// `sandbox seed` and `sandbox import` on a stopped data dir whose disk fills up: one line and exit 2
// (never an internal error), and nothing of the load half-applied.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { sandbox } from '../helpers/sandbox.js';

const isRoot = process.getuid?.() === 0;

describe.skipIf(!isRoot)(`sandbox seed and import on a full disk${isRoot ? '' : ' (skipped: needs root to mount a small tmpfs)'}`, () => {
  const home = mkdtempSync(join(tmpdir(), 'paycli-ledger-full-'));
  const mnt = join(home, 'full');
  const env = { HOME: home };
  beforeAll(() => {
    execFileSync('mkdir', [mnt]);
    // 50 000 seeded payments take ~33 MB of log; 20 000, ~14 MB.
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=20m,mode=0700', 'tmpfs', mnt]);
  });
  // Each test on an empty disk of 20 MB, whatever the one before left.
  afterEach(() => {
    for (const entry of readdirSync(mnt)) rmSync(join(mnt, entry), { recursive: true, force: true });
    execFileSync('mount', ['-o', 'remount,size=20m', mnt]);
  });
  afterAll(() => {
    execFileSync('umount', ['-l', mnt]);
    rmSync(home, { recursive: true, force: true });
  });

  /** The transactions of a data dir, counted with the disk made roomy again (then made small again). */
  async function countWithRoom(dir: string): Promise<number> {
    execFileSync('mount', ['-o', 'remount,size=128m', mnt]);
    try {
      const sb = await sandbox({ dataDir: dir });
      const n = sb.state.count();
      await sb.close();
      return n;
    } finally {
      execFileSync('mount', ['-o', 'remount,size=20m', mnt]);
    }
  }

  it('seed: a load that does not fit is one line, exit 2, and stores nothing', async () => {
    const dir = join(mnt, 'dd');
    const r = await runCli(['sandbox', 'seed', '--payments', '50000', '--data-dir', dir], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `error: cannot write the emulator ledger ${join(dir, 'ledger.db')}: no space left on the device; nothing of it was stored\nhint: free some space on that disk, then run it again\n`,
    );
    expect(await countWithRoom(dir)).toBe(0);
  }, 60_000);

  it('seed: a load whose log fits but not its copy into the database is stored, with a warning (exit 0)', async () => {
    const dir = join(mnt, 'log-only');
    const r = await runCli(['sandbox', 'seed', '--payments', '20000', '--data-dir', dir], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^seeded 20000 payments \(14000 paid, over 90 days\)/);
    expect(r.stderr).toBe(
      `warning: the seed is stored, in ${dir}/ledger.db-wal only: no space left on the device; SQLite copies it into ledger.db once there is room\n`,
    );
    expect(await countWithRoom(dir)).toBe(20_000);
  }, 60_000);

  it('import: a file that does not fit is one line, exit 2, and stores nothing', async () => {
    const source = join(home, 'source');
    expect((await runCli(['sandbox', 'seed', '--payments', '50000', '--data-dir', source], { env })).code).toBe(0);
    const exported = await runCli(['sandbox', 'export', '--data-dir', source], { env });
    const file = join(home, 'big.jsonl');
    writeFileSync(file, exported.stdout);
    const dir = join(mnt, 'imp');
    const r = await runCli(['sandbox', 'import', file, '--data-dir', dir], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `error: cannot write the emulator ledger ${join(dir, 'ledger.db')}: no space left on the device; nothing of it was stored\nhint: free some space on that disk, then run it again\n`,
    );
    expect(await countWithRoom(dir)).toBe(0);
    // With room, the same file goes in whole.
    execFileSync('mount', ['-o', 'remount,size=128m', mnt]);
    const again = await runCli(['sandbox', 'import', file, '--data-dir', dir, '--json'], { env });
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ payments: 50_000 });
  }, 60_000);
});
