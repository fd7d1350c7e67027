import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN } from '../helpers/spawn.js';

// The repository stands on its own: nothing it holds may reach outside it for fixtures or docs,
// and the files README's examples name exist and behave as README shows.
const ROOT = new URL('../..', import.meta.url).pathname;
const OUTSIDE = ['..', 'shared'].join('/'); // spelled in two parts so this file does not match itself

/** Tracked files (git ls-files), or every file outside node_modules/dist/.git when not a checkout. */
function repositoryFiles(): string[] {
  const git = spawnSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' });
  if (git.status === 0 && git.stdout.length > 0) return git.stdout.split('\0').filter(Boolean);
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(join(ROOT, dir))) {
      if (['node_modules', 'dist', '.git'].includes(name)) continue;
      const rel = dir ? `${dir}/${name}` : name;
      if (statSync(join(ROOT, rel)).isDirectory()) walk(rel);
      else out.push(rel);
    }
  };
  walk('');
  return out;
}

const paycli = (...args: string[]) =>
  spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: 'utf8', env: { PATH: process.env.PATH ?? '', HOME: '/nonexistent' } });

describe('a self-contained repository', () => {
  it(`no file refers to ${OUTSIDE}`, () => {
    const files = repositoryFiles();
    expect(files.length).toBeGreaterThan(50);
    const offenders = files.filter((f) => {
      try {
        return readFileSync(join(ROOT, f), 'utf8').includes(OUTSIDE);
      } catch {
        return false; // deleted in the work tree
      }
    });
    expect(offenders).toEqual([]);
  });

  it('holds the gateway capture, and examples/payload.form is the same bytes', () => {
    const fixture = readFileSync(join(ROOT, 'test/fixtures/callback-qris-sandbox.form'));
    expect(readFileSync(join(ROOT, 'examples/payload.form')).equals(fixture)).toBe(true);
    expect(readFileSync(join(ROOT, 'examples/capture.http'), 'latin1').endsWith(`\r\n\r\n${fixture.toString('latin1')}`)).toBe(true);
    expect(readFileSync(join(ROOT, 'test/fixtures/README.md'), 'utf8')).toContain('c9594cc8c9f5811ecf22422eed1c8071f7837211f58956f616658a904d94f024');
  });

  it('runs the verification examples of docs/commands/verify-callback.md on the files under examples/', () => {
    const readme = readFileSync(join(ROOT, 'docs/commands/verify-callback.md'), 'utf8');
    for (const name of ['payload.form', 'capture.http', 'payload.json', 'captures.jsonl']) expect(readme).toContain(name);
    const good = 'c9594cc8c9f5811ecf22422eed1c8071f7837211f58956f616658a904d94f024';
    for (const f of ['examples/payload.form', 'examples/payload.json', 'examples/capture.http']) {
      const r = paycli('sign-callback', f, '--va', '1179000899');
      expect(r.stdout.trim(), f).toBe(good);
    }
    const capture = paycli('verify-callback', 'examples/capture.http', '--va', '1179000899');
    expect(capture.status).toBe(0);
    expect(capture.stdout).toContain('valid signature (the X-Signature header)');
    const slash = paycli(
      'verify-callback',
      'examples/payload.form',
      '--va',
      '1179000899',
      '--signature',
      '00721607209ced43b06cd8f24be4d8b172685bf10be9830fa4c75ddbd949de30',
    );
    expect(slash.status).toBe(6);
    expect(slash.stdout).toContain('"/" was not escaped as "\\/"');
    const batch = paycli('verify-callback', '--jsonl', 'examples/captures.jsonl', '--va', '1179000899');
    expect(batch.status).toBe(6);
    expect(batch.stdout).toContain('3 captures: 2 valid, 1 invalid, 0 malformed');
    expect(batch.stdout).toContain('line 3: invalid trx 184854: the signer made a mistake: "/" was not escaped');
    const show = paycli('sign-callback', 'examples/payload.form', '--va', '1179000899', '--show-canonical');
    expect(show.stdout).toContain('"url":"https:\\/\\/webhook.site\\/caef335b-');
  });

  it('docs/gateway.md has the sections code and README point at', () => {
    const doc = readFileSync(join(ROOT, 'docs/gateway.md'), 'utf8');
    const headings = doc
      .split('\n')
      .filter((l) => l.startsWith('## '))
      .map((l) => l.slice(3));
    for (const h of ['Base URLs', 'Request signing', 'Callbacks', 'Callback signatures', 'PHP semantics', 'Quirks and contradictions', 'Sources'])
      expect(headings).toContain(h);
  });
});
