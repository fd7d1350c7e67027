import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { unexportedClasses } from '../helpers/dts-classes.js';

// The check of test/e2e/package-exports.test.ts on declaration files as tsc writes them: it must
// name a class that leaks through an exported type, and only such a class.
const dir = mkdtempSync(join(tmpdir(), 'paycli-dts-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function entry(name: string, files: Record<string, string>): string {
  const root = join(dir, name);
  for (const [file, text] of Object.entries(files)) {
    const path = join(dir, `${name}-${file}`);
    writeFileSync(path, text.replaceAll("'./", `'./${name}-`));
  }
  return `${root}-entry.d.ts`;
}

const store = `export declare class Store {\n    private readonly db;\n    get(id: number): Row | undefined;\n}\nexport interface Row {\n    id: number;\n}\n`;
const base = `export declare class Core {\n    readonly path: string;\n}\nexport declare class Store extends Core {\n}\n`;

describe('unexportedClasses', () => {
  it('names a class an exported interface reaches, with the path that reaches it', () => {
    const path = entry('leak', {
      'entry.d.ts': `export type { Handle } from './handle.js';\n`,
      'handle.d.ts': `import type { Store } from './store.js';\nexport interface Handle {\n    state: Store;\n}\n`,
      'store.d.ts': store,
    });
    expect(unexportedClasses(path)).toEqual([expect.stringMatching(/^Store \(.*\), reached through Handle → Store$/)]);
  });

  it('names the base classes a leaked class extends', () => {
    const path = entry('bases', {
      'entry.d.ts': `import type { Store } from './store.js';\nexport declare function view(s: Store): string;\n`,
      'store.d.ts': base,
    });
    expect(unexportedClasses(path).map((p) => p.split(' ')[0])).toEqual(['Core', 'Store']);
  });

  it('accepts an interface in its place, and a class the entry exports', () => {
    const iface = entry('iface', {
      'entry.d.ts': `export type { Handle, Ledger } from './handle.js';\n`,
      'handle.d.ts': `import type { Row } from './store.js';\nexport interface Ledger {\n    get(id: number): Row | undefined;\n}\nexport interface Handle {\n    state: Ledger;\n}\n`,
      'store.d.ts': store,
    });
    expect(unexportedClasses(iface)).toEqual([]);
    const exported = entry('exported', {
      'entry.d.ts': `export type { Handle } from './handle.js';\nexport { Store } from './store.js';\n`,
      'handle.d.ts': `import type { Store } from './store.js';\nexport interface Handle {\n    state: Store;\n}\n`,
      'store.d.ts': store,
    });
    expect(unexportedClasses(exported)).toEqual([]);
  });
});
