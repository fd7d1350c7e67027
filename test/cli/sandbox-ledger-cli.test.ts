// `sandbox seed|export|import|reset|list` on a stopped data dir and through a running emulator:
// the PAYCLI_SANDBOX_* variables, the emulator's own clock and merchant, the ids an export carries,
// the status filter, the seeded share.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { EmulatorHandle } from '../../src/core/sandbox/server.js';
import { runCli, type RunResult } from '../helpers/cli.js';
import { sandbox } from '../helpers/sandbox.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'paycli-ledger-cli-'));
  cleanups.push(() => rmSync(d, { recursive: true, force: true }));
  return d;
}

async function started(options: Parameters<typeof sandbox>[0] = {}): Promise<EmulatorHandle> {
  const sb = await sandbox(options);
  cleanups.push(() => sb.close());
  return sb;
}

/** paycli in-process with HOME (hence the default data dir) in `home`. */
const cli = (home: string, argv: string[], env: Record<string, string> = {}): Promise<RunResult> => runCli(argv, { home, env: { HOME: home, ...env } });

/** The records of an export (one JSON object a line). */
const records = (r: RunResult) =>
  r.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { t: string; txn?: { id: number; status: string; merchantVa: string; createdAt: number } });
const payments = (r: RunResult) => records(r).filter((x) => x.t === 'payment');

describe('the PAYCLI_SANDBOX_* variables reach seed, export, import and reset', () => {
  it('PAYCLI_SANDBOX_DATA_DIR names the stopped data dir; the default one is left alone', async () => {
    const home = tempDir();
    const ci = join(home, 'ci-data');
    expect((await cli(home, ['sandbox', 'seed', '--payments', '3'])).code).toBe(0); // the default data dir
    const env = { PAYCLI_SANDBOX_DATA_DIR: ci };
    const seeded = await cli(home, ['sandbox', 'seed', '--payments', '5', '--json'], env);
    expect(seeded.code, seeded.stderr).toBe(0);
    expect(JSON.parse(seeded.stdout)).toMatchObject({ seeded: 5, where: ci });
    const exported = await cli(home, ['sandbox', 'export'], env);
    expect(payments(exported)).toHaveLength(5);
    const file = join(home, 'e.jsonl');
    writeFileSync(file, exported.stdout);
    const reset = await cli(home, ['sandbox', 'reset', '--yes', '--json'], env);
    expect(reset.code, reset.stderr).toBe(0);
    expect(JSON.parse(reset.stdout)).toMatchObject({ removed: 5, where: ci });
    // The default ledger still holds its 3.
    expect(payments(await cli(home, ['sandbox', 'export']))).toHaveLength(3);
    const imported = await cli(home, ['sandbox', 'import', file, '--json'], env);
    expect(imported.code, imported.stderr).toBe(0);
    expect(JSON.parse(imported.stdout)).toMatchObject({ payments: 5 });
    expect(payments(await cli(home, ['sandbox', 'export'], env))).toHaveLength(5);
    // A flag wins over the variable.
    expect(payments(await cli(home, ['sandbox', 'export', '--data-dir', join(home, '.local/share/paycli/sandbox')], env))).toHaveLength(3);
  });

  it('PAYCLI_SANDBOX_URL (as `eval "$(paycli sandbox env)"` sets it) sends them to the running emulator', async () => {
    const home = tempDir();
    const dir = join(home, 'running');
    const sb = await started({ dataDir: dir });
    const env = { PAYCLI_SANDBOX_URL: sb.url };
    const seeded = await cli(home, ['sandbox', 'seed', '--payments', '4', '--json'], env);
    expect(seeded.code, seeded.stderr).toBe(0);
    expect(JSON.parse(seeded.stdout)).toMatchObject({ seeded: 4, where: sb.url });
    expect(sb.state.count()).toBe(4);
    const exported = await cli(home, ['sandbox', 'export'], env);
    expect(exported.code, exported.stderr).toBe(0);
    expect(payments(exported)).toHaveLength(4);
    const reset = await cli(home, ['sandbox', 'reset', '--yes'], env);
    expect(reset.code, reset.stderr).toBe(0);
    expect(sb.state.count()).toBe(0);
  });

  it('refuses to guess between a running emulator and a data dir (exit 2, one line)', async () => {
    const home = tempDir();
    const both = { PAYCLI_SANDBOX_URL: 'http://127.0.0.1:9', PAYCLI_SANDBOX_DATA_DIR: join(home, 'd') };
    for (const argv of [
      ['sandbox', 'reset', '--yes'],
      ['sandbox', 'export'],
      ['sandbox', 'seed', '--payments', '1'],
    ]) {
      const r = await cli(home, argv, both);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/^error: both PAYCLI_SANDBOX_URL and PAYCLI_SANDBOX_DATA_DIR are set: say which ledger with --sandbox-url or --data-dir\n/);
    }
    // A flag says which.
    expect((await cli(home, ['sandbox', 'seed', '--payments', '1', '--data-dir', join(home, 'd')], both)).code).toBe(0);
    const flags = await cli(home, ['sandbox', 'export', '--data-dir', join(home, 'd'), '--sandbox-url', 'http://127.0.0.1:9']);
    expect(flags.code).toBe(2);
    expect(flags.stderr).toMatch(/--sandbox-url and --data-dir exclude each other/);
  });
});
