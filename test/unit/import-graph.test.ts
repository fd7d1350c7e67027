import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// The module map of docs/architecture.md, checked on the sources: no import cycle anywhere in src/
// (static, type-only and dynamic imports all count), and the layering rules between folders.
const SRC = new URL('../../src', import.meta.url).pathname;

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** Relative imports of a source file, as paths under src/ (`import … from`, `export … from`, `import()`). */
function importsOf(file: string, text: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const specifiers = [...code.matchAll(/\b(?:from|import)\s*\(?\s*['"](\.[^'"]+)['"]/g)].map((m) => m[1]!);
  return specifiers.map((s) => relative(SRC, resolve(dirname(file), s.replace(/\.js$/, '.ts'))));
}

/** Every cycle of the graph, each as the path of modules that closes it (Tarjan's components). */
function cyclesOf(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const stack: string[] = [];
  const on = new Set<string>();
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const cycles: string[][] = [];
  const visit = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) cycles.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return cycles;
}

const graph = new Map(files(SRC).map((f) => [relative(SRC, f), importsOf(f, readFileSync(f, 'utf8'))]));
const edges = [...graph].flatMap(([from, tos]) => tos.map((to) => ({ from, to })));

describe('the module graph of src/', () => {
  it('has no import cycle (a test of the detector: it finds a planted one)', () => {
    expect(
      cyclesOf(
        new Map([
          ['a', ['b']],
          ['b', ['c']],
          ['c', ['a']],
          ['d', ['a']],
        ]),
      ),
    ).toEqual([['a', 'b', 'c']]);
    expect(cyclesOf(graph)).toEqual([]);
  });

  it('reads every kind of relative import', () => {
    const text =
      "import { a } from './a.js';\nimport type { B } from '../b.js';\nexport { c } from './c.js';\nconst d = () => import('./d.js');\n// import { e } from './e.js';\n";
    expect(importsOf(join(SRC, 'cli/x.ts'), text)).toEqual(['cli/a.ts', 'b.ts', 'cli/c.ts', 'cli/d.ts']);
  });

  it('has no cycle between folders either (core/signing ⇄ core/callback and core/config ⇄ core/http were two)', () => {
    // A folder of the core (core/signing, …), the core's own files (core), the shell (cli) and the entries (src).
    const folderOf = (f: string) => {
      const parts = f.split('/');
      if (parts.length === 1) return 'src';
      return parts[0] === 'core' && parts.length > 2 ? `core/${parts[1]}` : parts[0]!;
    };
    const folders = new Map<string, string[]>();
    for (const { from, to } of edges) {
      const a = folderOf(from);
      const b = folderOf(to);
      if (a === b) continue;
      folders.set(a, [...new Set([...(folders.get(a) ?? []), b])]);
      if (!folders.has(b)) folders.set(b, []);
    }
    expect(folders.size).toBeGreaterThan(8);
    expect(cyclesOf(folders)).toEqual([]);
  });

  it('the core never imports the CLI shell', () => {
    expect(edges.filter((e) => e.from.startsWith('core/') && e.to.startsWith('cli/'))).toEqual([]);
  });

  it('callback/ never imports sandbox/ (the emulator builds on callbacks, not the other way)', () => {
    expect(edges.filter((e) => e.from.startsWith('core/callback/') && e.to.startsWith('core/sandbox/'))).toEqual([]);
  });

  it('a command module imports no other command module; its private parts in commands/ belong to it alone', () => {
    // The registry names the command modules; any other file in commands/ is a part of one command
    // (pay --redirect, the batch verifier): helpers shared by several commands live in src/cli/ proper.
    // heads.ts is the registry's other half (what the root help shows of each command), used by all.
    const registry = readFileSync(join(SRC, 'cli/commands/index.ts'), 'utf8');
    const commands = new Set([...registry.matchAll(/import\('\.\/([\w-]+)\.js'\)/g)].map((m) => `cli/commands/${m[1]}.ts`));
    expect(commands.size).toBeGreaterThan(10);
    expect(edges.filter((e) => commands.has(e.from) && commands.has(e.to) && e.from !== e.to)).toEqual([]);
    const inCommands = (f: string) => f.startsWith('cli/commands/') && f !== 'cli/commands/index.ts' && f !== 'cli/commands/heads.ts';
    const owners = new Map<string, Set<string>>();
    for (const command of commands) {
      const seen = new Set([command]);
      const todo = [command];
      while (todo.length > 0) {
        for (const to of graph.get(todo.pop()!) ?? []) {
          if (!inCommands(to) || commands.has(to) || seen.has(to)) continue;
          seen.add(to);
          todo.push(to);
          owners.set(to, new Set([...(owners.get(to) ?? []), command]));
        }
      }
    }
    // A worker is an entry point of its own (started by URL, not imported).
    const parts = [...graph.keys()].filter((f) => inCommands(f) && !commands.has(f) && !f.endsWith('-worker.ts'));
    expect(parts.filter((f) => owners.get(f)?.size !== 1).map((f) => `${f}: ${[...(owners.get(f) ?? [])].join(', ') || 'no command'}`)).toEqual([]);
  });
});
