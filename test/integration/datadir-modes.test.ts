// A data dir is 0700 and its files 0600 (docs/sandbox-ledger.md), also one that paycli 0.1 left
// 0755 with its journals 0644 (buyers' names, e-mails and phones), once it is opened.
import { chmodSync, cpSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDataDir } from '../../src/core/sandbox/datadir.js';
import { processLockOwner } from '../../src/sandbox.js';
import { afterEachTest } from '../helpers/cleanups.js';

const FIXTURE = new URL('../fixtures/sandbox-0.1/', import.meta.url).pathname;
const { tempDir } = afterEachTest('paycli-modes-');

/** A copy of the 0.1 fixture with the modes 0.1 left: the dir 0755, its journals 0644. */
function loose01(): string {
  const dir = join(tempDir(), 'data');
  cpSync(FIXTURE, dir, { recursive: true });
  chmodSync(dir, 0o755);
  for (const f of readdirSync(dir)) chmodSync(join(dir, f), 0o644);
  return dir;
}

const mode = (p: string) => statSync(p).mode & 0o777;

async function openAndClose(dir: string): Promise<void> {
  const opened = await openDataDir(dir, processLockOwner());
  await opened.close();
}

describe('modes of a data dir', () => {
  it('migrating a 0.1 data dir makes it 0700 and the journals it keeps 0600', async () => {
    const dir = loose01();
    await openAndClose(dir);
    expect(mode(dir)).toBe(0o700);
    const files = readdirSync(dir);
    expect(files).toEqual(expect.arrayContaining(['journal.jsonl.migrated', 'redirects.jsonl.migrated', 'ledger.db', 'lock.db']));
    for (const f of files) expect(mode(join(dir, f)), f).toBe(0o600);
  });

  it('a data dir migrated before (still 0755, journals 0644) is tightened when opened', async () => {
    const dir = loose01();
    await openAndClose(dir);
    chmodSync(dir, 0o755);
    for (const f of ['journal.jsonl.migrated', 'redirects.jsonl.migrated']) chmodSync(join(dir, f), 0o644);
    await openAndClose(dir);
    expect(mode(dir)).toBe(0o700);
    for (const f of ['journal.jsonl.migrated', 'redirects.jsonl.migrated']) expect(mode(join(dir, f)), f).toBe(0o600);
  });

  it('a link among the journals is not followed: its target keeps its mode', async () => {
    const dir = loose01();
    await openAndClose(dir);
    const outside = join(tempDir(), 'elsewhere.txt');
    writeFileSync(outside, 'not the data dir’s', { mode: 0o644 });
    chmodSync(outside, 0o644);
    rmSync(join(dir, 'redirects.jsonl.migrated'));
    symlinkSync(outside, join(dir, 'redirects.jsonl.migrated'));
    await openAndClose(dir);
    expect(mode(outside)).toBe(0o644);
  });
});
