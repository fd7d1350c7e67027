#!/usr/bin/env node
// The only file that touches process.exitCode. `--version` is answered before anything is imported.
import { readFileSync } from 'node:fs';

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  process.stdout.write(JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version + '\n');
} else {
  const { main } = await import('../dist/cli/main.js');
  process.exitCode = await main(argv);
}
