#!/usr/bin/env node
// Bundles the compiled CLI (dist/cli) into one CommonJS file, dist/cli/paycli.cjs, which bin/paycli.js
// prefers: one file instead of ~40 ES modules cuts start-up by about a third (BENCHMARKS.md). Heavy
// dependencies stay external and keep loading lazily through import(). The batch worker is bundled
// beside it, where the bundle looks for it. Then V8's code cache for the bundle is trained by running
// typical commands (scripts/train-code-cache.js).
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { build, transform } from 'esbuild';

const external = ['undici', 'yaml', '@inquirer/prompts', 'ora', 'qrcode', 'idn-area-data', 'better-sqlite3'];
const common = { bundle: true, platform: 'node', target: 'node20', external, logLevel: 'warning' };
const OUT = 'dist/cli/paycli.cjs';

// Node built-ins that no common command needs at start-up but that some module imports at its top:
// loading them costs up to ~2.5 ms each (node:child_process pulls in net and streams; fs/promises
// pulls in readline, watchers and dir; commander requires child_process for executable subcommands,
// which paycli never uses). The plugin replaces each with a stand-in whose exports are getters that
// load the real module on first use. The export names are read from this Node at build time.
const LAZY_BUILTINS = ['os', 'crypto', 'child_process', 'fs/promises', 'worker_threads', 'readline', 'http', 'https', 'net', 'dns', 'zlib'];
const lazyBuiltins = {
  name: 'lazy-builtins',
  setup(b) {
    const filter = new RegExp(`^(node:)?(${LAZY_BUILTINS.join('|').replace('/', '\\/')})$`);
    b.onResolve({ filter }, (args) =>
      // The stand-in's own require() is the real built-in.
      args.namespace === 'paycli-lazy-builtin'
        ? { path: args.path, external: true }
        : { path: args.path.replace(/^node:/, ''), namespace: 'paycli-lazy-builtin' },
    );
    b.onLoad({ filter: /.*/, namespace: 'paycli-lazy-builtin' }, async (args) => {
      const names = Object.keys(await import(`node:${args.path}`)).filter((k) => k !== 'default' && /^[A-Za-z_$][\w$]*$/.test(k));
      const getters = names.map((k) => `  get ${k}() { return load().${k}; },`).join('\n');
      return {
        // Marked as its own ES namespace (with the real module as default): __paycliToESM hands it out as it is.
        contents: `let real;\nconst load = () => (real ??= require('node:${args.path}'));\nmodule.exports = {\n${getters}\n  get default() { return load(); },\n};\nObject.defineProperty(module.exports, Symbol.for('paycli.lazyBuiltin'), { value: true });\n`,
        loader: 'js',
      };
    });
  },
};

await build({
  ...common,
  entryPoints: ['dist/cli/main.js'],
  outfile: OUT,
  format: 'cjs',
  plugins: [lazyBuiltins],
  // The compiled code locates region data and the worker from import.meta.url (computed on first use);
  // the version is built in.
  define: { 'import.meta.url': '__paycliMeta.url', __PAYCLI_VERSION__: JSON.stringify(JSON.parse(readFileSync('package.json', 'utf8')).version) },
  // bin/paycli.js compiles the bundle with vm.Script (for the code cache) and passes its own import()
  // as __paycliImport; a plain require() of the bundle falls back to the bundle's import().
  banner: {
    js: [
      "const __paycliMeta = { get url() { return require('node:url').pathToFileURL(__filename).href; } };",
      "var __paycliImport = typeof __paycliImport === 'function' ? __paycliImport : (specifier) => import(specifier);",
      // esbuild gives every module that imports a CommonJS one (the lazy built-ins above, commander) its
      // own namespace copy, a getter per export (~100 for node:crypto, 13 importers): made once here.
      'const __paycliNamespaces = new Map();',
      // A lazy built-in's stand-in already is such a namespace (a getter per export, and default).
      "var __paycliToESM = (req) => { let ns = __paycliNamespaces.get(req); if (ns === undefined) { const m = req(); __paycliNamespaces.set(req, (ns = m[Symbol.for('paycli.lazyBuiltin')] ? m : __toESM(m, 1))); } return ns; };",
    ].join('\n'),
  },
});
// Route every dynamic import of an external package through __paycliImport, and keep the bundle strict
// ("use strict" must come before the banner to count).
const bundled = readFileSync(OUT, 'utf8');
const strict = bundled.includes('"use strict";\n') ? '"use strict";\n' : '"use strict";';
const bodyAt = bundled.indexOf(strict);
if (bodyAt < 0) throw new Error(`${OUT}: expected esbuild's "use strict" directive`);
const routed = bundled
  .slice(bodyAt + strict.length)
  .replace(/\bimport\((?=["'])/g, '__paycliImport(')
  .replace(/\b__toESM\((require_[\w$]+)\(\),\s*1\)/g, '__paycliToESM($1)');
if (/\bimport\(/.test(routed)) throw new Error(`${OUT}: a dynamic import() with a computed specifier cannot be routed through __paycliImport`);
// bin/paycli.js hands the bundle its own require(), which is right only for Node built-ins.
const packages = [...routed.matchAll(/\brequire\((["'])([^"']+)\1\)/g)].map((m) => m[2]).filter((id) => !id.startsWith('node:'));
if (packages.length > 0)
  throw new Error(`${OUT}: require() of ${packages.join(', ')}; only node: built-ins may be required (keep packages external behind import())`);
// Pure ASCII: one non-ASCII character (in a comment) makes Node decode the whole file into a
// two-byte string, which is slower to read, hash and scan. \uXXXX means the same character in a
// string, template, regular expression or identifier (esbuild escapes the rest itself); in a comment
// it is only text.
// Then without indentation and comments (esbuild's minifyWhitespace; names and code unchanged): every
// byte of the bundle is read on every run, and it is ~28% smaller. esbuild's `// dist/…` line before
// each module becomes a comment that survives (`/*! paycli-module dist/… */`): bench/profile-listener.js
// maps profile frames to modules by them.
const marked = (strict + bundled.slice(0, bodyAt) + routed).replace(/^\/\/ ((?:dist|node_modules)\/\S+)$/gm, '/*! paycli-module $1 */');
const minified = (await transform(marked, { minifyWhitespace: true, legalComments: 'inline', charset: 'ascii', logLevel: 'warning' })).code;
// The first line names the content: bin/paycli.js keys the code cache by it (V8 alone would accept a
// cache made for another bundle of the same length).
const content = minified.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
// Then the top-level command names (from the registry), by which bin/paycli.js picks the code cache of a run.
const { TOP_LEVEL_COMMANDS } = await import('../dist/cli/commands/index.js');
writeFileSync(OUT, `// paycli-bundle ${createHash('sha256').update(content).digest('hex').slice(0, 16)} ${TOP_LEVEL_COMMANDS.join(',')}\n${content}`);

await build({ ...common, entryPoints: ['dist/cli/commands/verify-batch-worker.js'], outfile: 'dist/cli/verify-batch-worker.js', format: 'esm' });
// `paycli/callback`: one ES module in place of tsc's, importing nothing but node:crypto, so that a
// merchant can deploy it alone (test/e2e/package-exports.test.ts checks its imports).
await build({
  bundle: true,
  platform: 'node',
  target: 'node20',
  logLevel: 'warning',
  entryPoints: ['dist/callback.js'],
  outfile: 'dist/callback.js',
  allowOverwrite: true,
  format: 'esm',
});
await import('./train-code-cache.js');
