// docs/commands/ is generated from the command definitions and docs/commands/prose/ (`npm run docs`):
// a page that differs from what the tree makes now is stale. README stays a short landing page that
// links every command's page.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { commandDocs } from '../../src/cli/command-docs.js';
import { buildProgram } from '../../src/cli/program.js';
import { testContext } from '../helpers/cli.js';

const DIR = new URL('../../docs/commands/', import.meta.url);
const prose = (name: string) => {
  const file = new URL(`prose/${name}.md`, DIR);
  return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
};

describe('docs/commands/', () => {
  it('holds exactly the pages the command tree makes, none stale (run `npm run docs`)', async () => {
    const pages = commandDocs(await buildProgram(testContext().ctx, { code: 0 }), prose);
    expect(pages.size).toBeGreaterThan(15);
    for (const [file, text] of pages) expect(readFileSync(new URL(file, DIR), 'utf8'), `docs/commands/${file} is stale: run \`npm run docs\``).toBe(text);
    const onDisk = readdirSync(DIR).filter((f) => f.endsWith('.md'));
    expect(onDisk.sort()).toEqual([...pages.keys()].sort());
    const proseFiles = readdirSync(new URL('prose/', DIR)).map((f) => f.replace(/\.md$/, ''));
    expect(proseFiles.sort(), 'a prose file without a command').toEqual(
      [...pages.keys()]
        .filter((f) => f !== 'README.md')
        .map((f) => f.replace(/\.md$/, ''))
        .sort(),
    );
  });

  it('documents every flag and example of a command (sandbox)', async () => {
    const page = commandDocs(await buildProgram(testContext().ctx, { code: 0 }), prose).get('sandbox.md')!;
    for (const flag of ['--port <port>', '--host <host>', '--in-memory', '--retry-schedule']) expect(page).toContain(flag);
    expect(page).toContain('#### `paycli sandbox list');
    expect(page).toMatch(/```sh\npaycli sandbox/);
  });

  it('a prose file that is missing is an error, not an empty page', async () => {
    expect(() => commandDocs(testProgram(), () => undefined)).toThrow(/prose\/x\.md is missing/);
  });
});

function testProgram() {
  // A one-command tree, built with commander directly.
  const p = new Command('paycli');
  p.command('x').description('an x');
  return p;
}

describe('README', () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  it('is a landing page of at most about 400 lines', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(400);
  });
  it('links the page of every command', async () => {
    const pages = commandDocs(await buildProgram(testContext().ctx, { code: 0 }), prose);
    for (const file of pages.keys()) expect(readme).toContain(`docs/commands/${file}`);
  });
  it('install leads with the package and the quick start is two commands', () => {
    const install = readme.slice(readme.indexOf('## Install'), readme.indexOf('## Quick start'));
    const pkg = 'npm install -g --allow-scripts=better-sqlite3 paycli';
    expect(install.indexOf(pkg)).toBeGreaterThan(0);
    expect(install.indexOf(pkg)).toBeLessThan(install.indexOf('git clone'));
    expect(install).toContain('npx paycli demo');
    const quick = readme.slice(readme.indexOf('## Quick start'), readme.indexOf('## A tour'));
    const firstBlock = /```sh\n([\s\S]*?)```/.exec(quick)![1]!.trim().split('\n');
    expect(firstBlock).toHaveLength(2);
    expect(firstBlock[0]).toMatch(/^npm install -g --allow-scripts=better-sqlite3 paycli && paycli demo\b/);
    expect(firstBlock[1]).toMatch(/^npm test\b/);
  });
});
