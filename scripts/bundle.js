#!/usr/bin/env node
// Bundles the compiled CLI (dist/cli) into one CommonJS file, dist/cli/paycli.cjs, which bin/paycli.js
// prefers: one file instead of ~40 ES modules cuts start-up by about a third (BENCHMARKS.md). Heavy
// dependencies stay external and keep loading lazily through import(). The batch worker is bundled
// beside it, where the bundle looks for it.
import { build } from 'esbuild';

const external = ['undici', 'cosmiconfig', '@inquirer/prompts', 'ora', 'qrcode', 'idn-area-data'];
const common = { bundle: true, platform: 'node', target: 'node20', external, logLevel: 'warning' };

await build({
  ...common,
  entryPoints: ['dist/cli/main.js'],
  outfile: 'dist/cli/paycli.cjs',
  format: 'cjs',
  // The compiled code locates package.json, region data and the worker from import.meta.url.
  define: { 'import.meta.url': '__paycliModuleUrl' },
  banner: { js: "const __paycliModuleUrl = require('node:url').pathToFileURL(__filename).href;" },
});
await build({ ...common, entryPoints: ['dist/cli/commands/verify-batch-worker.js'], outfile: 'dist/cli/verify-batch-worker.js', format: 'esm' });
