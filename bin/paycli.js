#!/usr/bin/env node
'use strict';
// The only file that touches process.exitCode. CommonJS (bin/package.json) because Node starts a
// CommonJS entry ~3 ms faster than an ES module one. `--version` is answered before anything is
// loaded; everything else runs from the single-file bundle dist/cli/paycli.cjs, compiled with V8's
// code cache (written by `npm run build`), or from the compiled modules (dist/cli/main.js) when the
// bundle is absent. BENCHMARKS.md has what each step buys.
const { readFileSync, writeFileSync, writeSync, renameSync, existsSync, unlinkSync, mkdirSync } = require('node:fs');
const { join, dirname } = require('node:path');

const BUNDLE = join(__dirname, '..', 'dist', 'cli', 'paycli.cjs');
const BUNDLE_ID = '// paycli-bundle ';

/**
 * The code cache's file name: the bundle's content id (its first line, written by scripts/bundle.js)
 * and V8's version. V8 itself checks a cache only against the source's length, so a rebuilt bundle of
 * the same length must never meet the old cache: the id keeps them apart.
 */
function cacheName(source) {
  const id = source.startsWith(BUNDLE_ID) ? source.slice(BUNDLE_ID.length, source.indexOf('\n')) : 'unversioned';
  return `paycli.cjs.${id}.v8-${process.versions.v8}.cache`;
}

/** The fallback place for the cache when the package directory is read-only (a system-wide install). */
function userCacheFile(name) {
  const base = process.env.XDG_CACHE_HOME || join(require('node:os').homedir(), '.cache');
  return join(base, 'paycli', name);
}

function readOrUndefined(file) {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

/**
 * Loads the bundle like `require` would, but through vm.Script with V8's code cache: functions that
 * earlier runs compiled are deserialized instead of parsed and compiled again. The cache is looked
 * for beside the bundle, then in the user's cache directory; when there is none (another Node, a new
 * build) or V8 rejects it, it is written after the run, beside the bundle or else in the user's cache
 * directory (best effort). Returns the bundle's exports, whether a cache was used, and a function that
 * writes the cache.
 */
function loadBundle() {
  const vm = require('node:vm');
  const source = readFileSync(BUNDLE, 'utf8');
  const name = cacheName(source);
  const beside = join(dirname(BUNDLE), name);
  let cacheFile = beside;
  let cachedData = readOrUndefined(beside);
  if (cachedData === undefined) {
    const user = userCacheFile(name);
    cachedData = readOrUndefined(user);
    if (cachedData !== undefined) cacheFile = user;
  }
  // The bundle's import() calls (undici, inquirer, ora, … stay external) are routed to this module's
  // own import(): code compiled by vm.Script cannot import, least of all when it comes from a cache.
  // Its require() calls are all for Node built-ins, so this module's own require serves them.
  const wrapped = `(function (exports, require, module, __filename, __dirname, __paycliImport) {${source}\n})`;
  const script = new vm.Script(wrapped, { filename: BUNDLE, cachedData });
  const mod = { exports: {} };
  script.runInThisContext().call(mod.exports, mod.exports, require, mod, BUNDLE, dirname(BUNDLE), (specifier) => import(specifier));
  const cacheUsed = cachedData !== undefined && !script.cachedDataRejected;
  return {
    exports: mod.exports,
    cacheUsed,
    writeCache() {
      const data = script.createCachedData();
      const write = (file) => {
        const tmp = `${file}.${process.pid}.tmp`;
        try {
          mkdirSync(dirname(file), { recursive: true });
          writeFileSync(tmp, data);
          renameSync(tmp, file);
          return true;
        } catch {
          try {
            unlinkSync(tmp);
          } catch {
            /* nothing was written */
          }
          return false;
        }
      };
      return write(cacheFile) || (cacheFile === beside && write(userCacheFile(name)));
    },
  };
}

async function start() {
  const argv = process.argv.slice(2);
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
    const line = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')).version + '\n';
    // One short line: written straight to the descriptor, without creating process.stdout.
    if (process.platform === 'win32') process.stdout.write(line);
    else {
      try {
        writeSync(1, line);
      } catch (err) {
        if (err.code === 'EAGAIN') process.stdout.write(line);
        else if (err.code !== 'EPIPE') {
          process.stderr.write(`error: cannot write the version to standard output: ${err.code}\n`);
          process.exitCode = 2;
        }
      }
    }
    return;
  }
  if (!existsSync(BUNDLE)) {
    const { main } = await import('../dist/cli/main.js');
    process.exitCode = await main(argv);
    return;
  }
  const bundle = loadBundle();
  process.exitCode = await bundle.exports.main(argv);
  // `npm run build` trains the cache by running typical commands with PAYCLI_CODE_CACHE=write, each
  // adding the functions it compiled; an ordinary run rewrites it only when it was missing or rejected.
  if (process.env.PAYCLI_CODE_CACHE === 'write' || (!bundle.cacheUsed && process.env.PAYCLI_CODE_CACHE !== 'off')) bundle.writeCache();
}

if (require.main === module) start();
else module.exports = { loadBundle, cacheName, BUNDLE };
