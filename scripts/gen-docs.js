#!/usr/bin/env node
// Writes docs/commands/ from the commander tree and docs/commands/prose/ (run after `npm run build`):
// `npm run docs`. The pages are made by src/cli/command-docs.ts; test/unit/command-docs.test.ts
// fails when a page on disk is stale.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { buildProgram } from '../dist/cli/program.js';
import { commandDocs } from '../dist/cli/command-docs.js';

const dir = new URL('../docs/commands/', import.meta.url);
const ctx = {
  stdin: new PassThrough(),
  stdout: process.stdout,
  stderr: process.stderr,
  stdinIsTTY: false,
  stdoutIsTTY: false,
  stderrIsTTY: false,
  env: {},
  cwd: process.cwd(),
  homedir: '/',
  now: () => new Date(),
  interrupts: () => new AbortController().signal,
};
const program = await buildProgram(ctx, { code: 0 });
const prose = (name) => {
  const file = new URL(`prose/${name}.md`, dir);
  return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
};
for (const [file, text] of commandDocs(program, prose)) {
  const url = new URL(file, dir);
  if (existsSync(url) && readFileSync(url, 'utf8') === text) continue;
  writeFileSync(url, text);
  console.log(`wrote docs/commands/${file}`);
}
