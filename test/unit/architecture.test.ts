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
    const offenders = sources.filter(({ text }) => /from ['"](commander|chalk|ora|@inquirer\/prompts|cosmiconfig)['"]|import\(['"](commander|chalk|ora|@inquirer\/prompts|cosmiconfig)['"]\)|from ['"]\.\.\/(\.\.\/)?cli\//.test(text));
    expect(offenders.map((o) => o.f)).toEqual([]);
  });

  it('never touches process (streams, env, clock and exit codes are passed in)', () => {
    const offenders = sources.filter(({ text }) => /\bprocess\.(env|exit|stdout|stderr|stdin|argv|cwd|on|pid|exitCode)\b/.test(text.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '')));
    expect(offenders.map((o) => o.f)).toEqual([]);
  });
});
