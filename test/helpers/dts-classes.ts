import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/**
 * Reads tsc's declaration files from an entry (`dist/index.d.ts`) and finds the classes its
 * exported types reach that the entry does not export itself: a user can then meet a value
 * whose class they cannot import (no `instanceof`, no type name). Follows exported names, then
 * every interface, type and class they mention, through `import` / `export … from` of the
 * declaration files, to any depth. Declarations are read with brace matching, not a full
 * TypeScript parser: enough for what tsc writes.
 */

interface Declaration {
  kind: 'class' | 'interface' | 'type' | 'function' | 'const' | 'enum';
  text: string;
}

interface Module {
  locals: Map<string, Declaration>;
  /** Local name → [module path, name there]. */
  imports: Map<string, [string, string]>;
  /** Exported name → [module path, name there] (re-exports) or [this path, local name]. */
  exports: Map<string, [string, string]>;
}

const cache = new Map<string, Module>();

function resolveDts(from: string, spec: string): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  const base = resolve(dirname(from), spec.replace(/\.js$/, ''));
  for (const candidate of [`${base}.d.ts`, join(base, 'index.d.ts')]) if (existsSync(candidate)) return candidate;
  return undefined;
}

/** The text of a declaration starting at `at`: up to its matching closing brace, or its `;`. */
function declarationText(src: string, at: number): string {
  let depth = 0;
  for (let i = at; i < src.length; i++) {
    const c = src[i];
    if (c === '{' || c === '(' || c === '<' || c === '[') depth++;
    else if (c === '}' || c === ')' || c === '>' || c === ']') {
      if (c === '>' && src[i - 1] === '=') continue; // an arrow, not a closing angle bracket
      depth--;
      if (depth === 0 && c === '}' && !/^\s*[|&[]/.test(src.slice(i + 1, i + 3))) {
        // The end of a class or interface body (a type alias goes on to its `;`).
        if (/^(export )?(declare )?(abstract )?(class|interface)\b/.test(src.slice(at, at + 40))) return src.slice(at, i + 1);
      }
    } else if (c === ';' && depth === 0) return src.slice(at, i + 1);
  }
  return src.slice(at);
}

function load(path: string): Module {
  const known = cache.get(path);
  if (known) return known;
  const src = readFileSync(path, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '');
  const mod: Module = { locals: new Map(), imports: new Map(), exports: new Map() };
  cache.set(path, mod);
  for (const m of src.matchAll(/^import\s+(?:type\s+)?\{([^}]*)\}\s+from\s+'([^']+)'/gm)) {
    const target = resolveDts(path, m[2]!);
    if (!target) continue;
    for (const part of m[1]!.split(',')) {
      const [name, alias] = part
        .replace(/\btype\s+/, '')
        .trim()
        .split(/\s+as\s+/);
      if (name) mod.imports.set((alias ?? name).trim(), [target, name.trim()]);
    }
  }
  for (const m of src.matchAll(/^export\s+(?:type\s+)?\{([^}]*)\}\s+from\s+'([^']+)'/gm)) {
    const target = resolveDts(path, m[2]!);
    if (!target) continue;
    for (const part of m[1]!.split(',')) {
      const [name, alias] = part
        .replace(/\btype\s+/, '')
        .trim()
        .split(/\s+as\s+/);
      if (name) mod.exports.set((alias ?? name).trim(), [target, name.trim()]);
    }
  }
  for (const m of src.matchAll(/^(export\s+)?(?:declare\s+)?(?:abstract\s+)?(class|interface|type|function|const|enum)\s+([A-Za-z_$][\w$]*)/gm)) {
    const name = m[3]!;
    const decl: Declaration = { kind: m[2] as Declaration['kind'], text: declarationText(src, m.index!) };
    const prior = mod.locals.get(name);
    mod.locals.set(name, prior ? { kind: prior.kind, text: prior.text + decl.text } : decl); // overloads
    if (m[1]) mod.exports.set(name, [path, name]);
  }
  for (const m of src.matchAll(/^export\s+(?:type\s+)?\{([^}]*)\};?\s*$/gm)) {
    for (const part of m[1]!.split(',')) {
      const [name, alias] = part
        .replace(/\btype\s+/, '')
        .trim()
        .split(/\s+as\s+/);
      if (name) mod.exports.set((alias ?? name).trim(), [path, name.trim()]);
    }
  }
  return mod;
}

/** Where a name used in `path` is declared: [module path, declaration name, declaration]. */
function lookup(path: string, name: string, seen = new Set<string>()): [string, string, Declaration] | undefined {
  const key = `${path}#${name}`;
  if (seen.has(key)) return undefined;
  seen.add(key);
  const mod = load(path);
  const local = mod.locals.get(name);
  if (local) return [path, name, local];
  const imported = mod.imports.get(name) ?? mod.exports.get(name);
  if (imported) return lookup(imported[0], imported[1], seen);
  return undefined;
}

/** The classes reachable from an entry's exports, each with the path of exported names that reaches it. */
export function unexportedClasses(entry: string): string[] {
  const root = load(entry);
  const exportedClasses = new Set<string>();
  const queue: [string, string, string][] = [];
  for (const [name, [path, orig]] of root.exports) {
    const found = lookup(path, orig);
    if (!found) continue;
    if (found[2].kind === 'class') exportedClasses.add(`${found[0]}#${found[1]}`);
    queue.push([found[0], found[1], name]);
  }
  const visited = new Set<string>();
  const problems: string[] = [];
  while (queue.length > 0) {
    const [path, name, via] = queue.shift()!;
    const key = `${path}#${name}`;
    if (visited.has(key)) continue;
    visited.add(key);
    const decl = lookup(path, name)?.[2];
    if (!decl) continue;
    if (decl.kind === 'class' && !exportedClasses.has(key)) problems.push(`${name} (${path.replace(/^.*\/dist\//, 'dist/')}), reached through ${via}`);
    // The identifiers the declaration mentions (after its own name).
    const body = decl.text.replace(/^[\s\S]*?\b(?:class|interface|type|function|const|enum)\s+[\w$]+/, '');
    for (const m of body.matchAll(/\b([A-Z][\w$]*)\b/g)) {
      const found = lookup(path, m[1]!);
      if (found) queue.push([found[0], found[1], `${via} → ${m[1]}`]);
    }
  }
  return [...new Set(problems)].sort();
}
