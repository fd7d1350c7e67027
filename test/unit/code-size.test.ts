import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
// oxc's parser, as rolldown (vitest's bundler) ships it: TypeScript syntax, positions of every node.
import { parseAst } from 'rolldown/parseAst';
import { describe, expect, it } from 'vitest';

// docs/architecture.md, "Size limits": no function over 100 lines and no file over 300 lines in
// src/, except those the document names, each with its reason. The list must not go stale either.
const ROOT = new URL('../..', import.meta.url).pathname;
const MAX_FUNCTION_LINES = 100;
const MAX_FILE_LINES = 300;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

type Node = { type?: string; start: number; end: number; [k: string]: unknown };

/** Every function (declaration, expression, arrow, method) with its name and length in lines. */
function functionsOf(text: string): { name: string; lines: number }[] {
  const lineStarts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) lineStarts.push(i + 1);
  const lineOf = (pos: number) => {
    let lo = 0;
    let hi = lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (lineStarts[mid]! <= pos) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
  const found: { name: string; lines: number }[] = [];
  const visit = (node: unknown, name: string | undefined): void => {
    if (node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (const n of node) visit(n, name);
      return;
    }
    const n = node as Node;
    let here = name;
    const id = (n.id as { name?: string } | null | undefined)?.name;
    const key = n.key as { name?: string; value?: unknown } | undefined;
    if (n.type === 'VariableDeclarator' && id) here = id;
    if ((n.type === 'MethodDefinition' || n.type === 'Property' || n.type === 'PropertyDefinition') && key) here = key.name ?? String(key.value ?? here);
    if (n.type === 'FunctionDeclaration' || n.type === 'FunctionExpression' || n.type === 'ArrowFunctionExpression') {
      here = id ?? here ?? '(anonymous)';
      found.push({ name: here, lines: lineOf(n.end) - lineOf(n.start) + 1 });
    }
    for (const [k, v] of Object.entries(n)) if (k !== 'type' && typeof v === 'object') visit(v, here);
  };
  visit(parseAst(text, { lang: 'ts' }).body, undefined);
  return found;
}

/** The allow-list: `| \`name\` in \`src/…\` |` for a function, `| \`src/…\` |` for a file. */
function allowList(): { functions: Set<string>; files: Set<string> } {
  const doc = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## Size limits'));
  const functions = new Set([...section.matchAll(/^\| `([\w$]+)` in `(src\/[\w/.-]+)` \|/gm)].map((m) => `${m[2]}#${m[1]}`));
  const files = new Set([...section.matchAll(/^\| `(src\/[\w/.-]+)` \|/gm)].map((m) => m[1]!));
  return { functions, files };
}

describe('size limits of src/ (docs/architecture.md, "Size limits")', () => {
  const allowed = allowList();
  const longFunctions: string[] = [];
  const longFiles: string[] = [];
  for (const file of sources(join(ROOT, 'src'))) {
    const path = relative(ROOT, file);
    const text = readFileSync(file, 'utf8');
    const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    if (lines > MAX_FILE_LINES) longFiles.push(path);
    for (const f of functionsOf(text)) if (f.lines > MAX_FUNCTION_LINES) longFunctions.push(`${path}#${f.name}`);
  }

  it(`no function over ${MAX_FUNCTION_LINES} lines but those the document names`, () => {
    expect(longFunctions.filter((f) => !allowed.functions.has(f))).toEqual([]);
  });

  it(`no file over ${MAX_FILE_LINES} lines but those the document names`, () => {
    expect(longFiles.filter((f) => !allowed.files.has(f))).toEqual([]);
  });

  it('names nothing that is within the limits (the list shrinks as code is split)', () => {
    expect([...allowed.functions].filter((f) => !longFunctions.includes(f))).toEqual([]);
    expect([...allowed.files].filter((f) => !longFiles.includes(f))).toEqual([]);
  });

  it('measures what it should: a function of 101 lines is over the limit, one of 100 is not', () => {
    const body = (n: number) => `function f() {\n${'  x();\n'.repeat(n - 2)}}\n`;
    expect(functionsOf(body(101))).toEqual([{ name: 'f', lines: 101 }]);
    expect(functionsOf(`const g = (a: number): number => {\n  return a;\n};\nclass C {\n  m(): void {\n  }\n}\n`)).toEqual([
      { name: 'g', lines: 3 },
      { name: 'm', lines: 2 },
    ]);
  });
});
