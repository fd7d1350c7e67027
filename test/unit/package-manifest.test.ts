// The package as published: what `npm publish` needs for a clean, provenance-ready release, and a
// CHANGELOG that starts with the version being published.
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url);
const manifest = JSON.parse(readFileSync(new URL('package.json', ROOT), 'utf8')) as Record<string, unknown> & {
  name: string;
  version: string;
  repository: { type: string; url: string };
  homepage: string;
  bugs: { url: string };
  publishConfig: Record<string, unknown>;
  files: string[];
  bin: Record<string, string>;
  exports: Record<string, string | { types: string; default: string }>;
  engines: { node: string };
};

describe('package.json', () => {
  it('names its repository as provenance needs it, and publishes publicly with provenance', () => {
    expect(manifest.repository.type).toBe('git');
    const repo = manifest.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');
    expect(repo).toMatch(/^https:\/\/github\.com\/[\w.-]+\/[\w.-]+$/);
    expect(manifest.homepage.startsWith(repo)).toBe(true);
    expect(manifest.bugs.url).toBe(`${repo}/issues`);
    expect(manifest.publishConfig).toEqual({ access: 'public', provenance: true });
    for (const k of ['description', 'license', 'keywords', 'author']) expect(manifest[k], k).toBeTruthy();
    expect(manifest.engines.node).toBe('>=20.19');
  });

  it('ships the built code with its types, the completions and the docs a user reads', () => {
    for (const f of ['bin', 'dist', 'completions', 'README.md', 'CHANGELOG.md', 'LICENSE']) expect(manifest.files).toContain(f);
    for (const f of ['README.md', 'CHANGELOG.md', 'LICENSE', ...Object.values(manifest.bin)]) expect(existsSync(new URL(f, ROOT)), f).toBe(true);
    for (const [entry, target] of Object.entries(manifest.exports)) {
      if (typeof target === 'string') continue;
      expect(target.types, entry).toMatch(/^\.\/dist\/.*\.d\.ts$/);
      expect(target.default.replace(/\.js$/, '.d.ts')).toBe(target.types);
    }
  });
});

describe('CHANGELOG.md', () => {
  it('starts with the version in package.json', () => {
    const changelog = readFileSync(new URL('CHANGELOG.md', ROOT), 'utf8');
    const first = /^## (\S+)/m.exec(changelog);
    expect(first?.[1]).toBe(manifest.version);
  });
});
