#!/usr/bin/env node
// Writes completions/ from the commander tree (run after `npm run build`): `npm run completions`.
import { writeFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { buildProgram } from '../dist/cli/program.js';
import { completionScript } from '../dist/cli/completion.js';

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
const files = { bash: 'completions/paycli.bash', zsh: 'completions/_paycli', fish: 'completions/paycli.fish' };
for (const [shell, file] of Object.entries(files)) {
  writeFileSync(new URL(`../${file}`, import.meta.url), completionScript(shell, program));
  console.log(`wrote ${file}`);
}
