#!/usr/bin/env node
// The only file that touches process.exitCode. `--version` is answered before anything is loaded;
// everything else runs from the single-file bundle (dist/cli/paycli.cjs), or from the compiled
// modules (dist/cli/main.js) when the bundle is absent.
import { existsSync, readFileSync } from 'node:fs';

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  process.stdout.write(JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version + '\n');
} else {
  const bundle = new URL('../dist/cli/paycli.cjs', import.meta.url);
  const { main } = existsSync(bundle) ? (await import('node:module')).createRequire(import.meta.url)(bundle.pathname) : await import('../dist/cli/main.js');
  process.exitCode = await main(argv);
}
