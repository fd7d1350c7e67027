import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { sandbox } from '../helpers/sandbox.js';

const home = mkdtempSync(join(tmpdir(), 'paycli-clock-export-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));
const env = { HOME: home };
const DAY = 86_400_000;

describe('sandbox export/import carry the clock; reset sets it back to real time (issue 28)', () => {
  it('export → reset → import restores the clock the times are on; reset --keep-clock keeps it', async () => {
    const data = join(home, 'data');
    const sb = await sandbox({ dataDir: data });
    const url = ['--sandbox-url', sb.url];
    expect((await runCli(['sandbox', 'clock', 'advance', '2d', ...url], { env })).code).toBe(0);
    const exported = await runCli(['sandbox', 'export', ...url], { env });
    expect(exported.code, exported.stderr).toBe(0);
    const last = JSON.parse(exported.stdout.trim().split('\n').at(-1)!) as { t: string; offsetMs: number };
    expect(last.t).toBe('clock');
    expect(last.offsetMs).toBeGreaterThanOrEqual(2 * DAY);
    const file = join(home, 'ledger.jsonl');
    writeFileSync(file, exported.stdout);

    const kept = await runCli(['sandbox', 'reset', '--yes', '--keep-clock', ...url], { env });
    expect(kept.code, kept.stderr).toBe(0);
    expect(kept.stdout).toMatch(/the clock stays 2d ahead of real time/);
    expect(sb.clock.offsetMs).toBe(last.offsetMs);
    const reset = await runCli(['sandbox', 'reset', '--yes', '--json', ...url], { env });
    expect(JSON.parse(reset.stdout)).toMatchObject({ removed: 0, offsetMs: 0 });
    expect(sb.clock.offsetMs).toBe(0);
    expect(JSON.parse((await runCli(['sandbox', 'clock', '--json', ...url], { env })).stdout).clock.offsetMs).toBe(0);
    await sb.close();

    const imported = await runCli(['sandbox', 'import', file, '--data-dir', data], { env });
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toContain('the clock is 2d ahead of real time');
    const again = await sandbox({ dataDir: data });
    expect(again.clock.offsetMs).toBe(last.offsetMs);
    await again.close();

    // On a stopped data dir, too.
    const stopped = await runCli(['sandbox', 'reset', '--yes', '--data-dir', data, '--json'], { env });
    expect(JSON.parse(stopped.stdout)).toMatchObject({ offsetMs: 0 });
    const third = await sandbox({ dataDir: data });
    expect(third.clock.offsetMs).toBe(0);
    await third.close();
  });
});
