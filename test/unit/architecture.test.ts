import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const CORE = new URL('../../src/core', import.meta.url).pathname;

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

describe('the pure core (docs/architecture.md)', () => {
  const sources = files(CORE).map((f) => ({ f: f.slice(CORE.length + 1), text: readFileSync(f, 'utf8') }));

  it('never imports the CLI shell or its libraries', () => {
    const offenders = sources.filter(({ text }) =>
      /from ['"](commander|chalk|ora|@inquirer\/prompts|cosmiconfig)['"]|import\(['"](commander|chalk|ora|@inquirer\/prompts|cosmiconfig)['"]\)|from ['"]\.\.\/(\.\.\/)?cli\//.test(
        text,
      ),
    );
    expect(offenders.map((o) => o.f)).toEqual([]);
  });

  it('never touches process (streams, env, clock and exit codes are passed in)', () => {
    const offenders = sources.filter(({ text }) =>
      /\bprocess\.(env|exit|stdout|stderr|stdin|argv|cwd|on|pid|exitCode)\b/.test(text.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '')),
    );
    expect(offenders.map((o) => o.f)).toEqual([]);
  });
});

describe('docs/architecture.md names the tree as it is', () => {
  it('every source file it names exists (by its path, or its name where the text gives only that)', async () => {
    const { readdirSync, readFileSync, statSync } = await import('node:fs');
    const { join, relative } = await import('node:path');
    const root = new URL('../..', import.meta.url).pathname;
    const all = (dir: string): string[] =>
      readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? all(join(dir, n)) : [relative(root, join(dir, n))]));
    const tree = [...all(join(root, 'src')), ...all(join(root, 'test')), ...all(join(root, 'bin'))];
    const doc = readFileSync(join(root, 'docs/architecture.md'), 'utf8');
    const named = new Set([...doc.matchAll(/`([\w./-]+\.(?:ts|js))`/g)].map((m) => m[1]!));
    named.delete('.config/config.js'); // cosmiconfig's meta config, not a file of paycli's
    expect(named.size).toBeGreaterThan(30);
    const missing = [...named].filter((n) => !tree.some((f) => f === n || f.endsWith(`/${n}`)));
    expect(missing).toEqual([]);
  });
});
