import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Every relative link in the repository's Markdown (README, docs/, examples/) leads somewhere: the
 * file exists, and a `#fragment` names one of its headings as GitHub makes their anchors.
 */
const ROOT = resolve(new URL('../..', import.meta.url).pathname);

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    // docs/commands/prose/*.md are parts of docs/commands/*.md (gen-docs.js), whose links they are.
    if (name === 'node_modules' || name.startsWith('.') || name === 'prose') return [];
    if (statSync(path).isDirectory()) return markdownFiles(path);
    return name.endsWith('.md') ? [path] : [];
  });
}

/** GitHub's anchor of a heading: lower case, punctuation dropped (but `-` and `_`), spaces to `-`. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/`/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchors(file: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  let fenced = false;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const m = fenced ? null : /^#{1,6}\s+(.*?)\s*#*$/.exec(line);
    if (!m) continue;
    const base = slug(m[1]!.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1'));
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

const files = [
  join(ROOT, 'README.md'),
  ...markdownFiles(join(ROOT, 'docs')),
  ...(existsSync(join(ROOT, 'examples')) ? markdownFiles(join(ROOT, 'examples')) : []),
];

describe('links in the Markdown', () => {
  it('finds the headings as GitHub names them', () => {
    expect(slug('Looking inside the databases')).toBe('looking-inside-the-databases');
    expect(slug('`paycli listen`: a local receiver')).toBe('paycli-listen-a-local-receiver');
    expect(slug('Statuses in callbacks')).toBe('statuses-in-callbacks');
  });

  for (const file of files) {
    it(`${relative(ROOT, file)}: every relative link and anchor resolves`, () => {
      const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
      const broken: string[] = [];
      for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1]!;
        if (/^[a-z]+:/i.test(target)) continue; // https:, mailto:
        const [path, fragment] = target.split('#') as [string, string | undefined];
        const dest = path === '' ? file : resolve(dirname(file), decodeURIComponent(path));
        if (!existsSync(dest)) {
          broken.push(`${target} (no such file)`);
          continue;
        }
        if (fragment && dest.endsWith('.md') && !anchors(dest).has(fragment)) broken.push(`${target} (no such heading)`);
      }
      expect(broken).toEqual([]);
    });
  }
});
