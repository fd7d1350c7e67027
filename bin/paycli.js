#!/usr/bin/env node
'use strict';
// The only file that touches process.exitCode. CommonJS (bin/package.json) because Node starts a
// CommonJS entry ~3 ms faster than an ES module one. `--version` is answered before anything is
// loaded; everything else runs from the single-file bundle dist/cli/paycli.cjs, compiled with V8's
// code cache (written by `npm run build`), or from the compiled modules (dist/cli/main.js) when the
// bundle is absent. BENCHMARKS.md has what each step buys.
const { readFileSync, writeFileSync, writeSync, renameSync, existsSync, unlinkSync, mkdirSync, statSync, readdirSync } = require('node:fs');
const { join, dirname } = require('node:path');

const BUNDLE = join(__dirname, '..', 'dist', 'cli', 'paycli.cjs');
const BUNDLE_ID = '// paycli-bundle ';

/**
 * Node options that change nothing in the code V8 compiles (module loading, debugging, warnings);
 * every other option given to Node, on its command line or in NODE_OPTIONS, may change V8's flags,
 * and V8 rejects a code cache made under other flags.
 */
const NEUTRAL_OPTIONS = /^--(require|import|loader|experimental-loader|env-file|title|inspect[\w-]*|debug-port|enable-source-maps|no-warnings|trace-warnings|pending-deprecation|no-deprecation|unhandled-rejections|use-openssl-ca|use-bundled-ca|openssl-[\w-]+|tls-[\w-]+|dns-result-order)\b|^-r$/;
const TAKES_VALUE = /^(--require|--import|--loader|--experimental-loader|--env-file|--title|-r)$/;

/**
 * A short key for the V8-relevant options of this process (empty without any): a run with
 * `NODE_OPTIONS=--max-old-space-size=4096` must not overwrite, or be served, the cache of a run
 * without it. Computed from process.execArgv and NODE_OPTIONS with string operations only.
 */
function flagsKey(execArgv = process.execArgv, nodeOptions = process.env.NODE_OPTIONS || '') {
  const options = [...execArgv, ...nodeOptions.split(/\s+/)].filter(Boolean);
  const kept = [];
  for (let i = 0; i < options.length; i++) {
    const o = options[i];
    if (NEUTRAL_OPTIONS.test(o)) {
      if (TAKES_VALUE.test(o)) i++; // its value is the next word
      continue;
    }
    kept.push(o.replace(/_/g, '-'));
  }
  if (kept.length === 0) return '';
  kept.sort();
  // FNV-1a, 32 bits, in hex: enough to keep a handful of flag sets apart.
  let h = 0x811c9dc5;
  for (const ch of kept.join(' ')) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193) >>> 0;
  return h.toString(16).padStart(8, '0');
}

/**
 * The bundle's first line (written by scripts/bundle.js): its content id and its top-level command
 * names, `// paycli-bundle <id> <name>,<name>,…`.
 */
function bundleHeader(source) {
  const [id = 'unversioned', names = ''] = source.startsWith(BUNDLE_ID) ? source.slice(BUNDLE_ID.length, source.indexOf('\n')).split(' ') : [];
  return { id, commands: names ? names.split(',') : [] };
}

/**
 * The shape of a run, for its own code cache (deserialising costs with the cache's size, and a run
 * of one command needs only what that command compiled): the first top-level command named on the
 * command line, or `root` (the root help, a bare `paycli`, a typo). An approximation (`--va areas`
 * counts as areas) costs only speed: every cache serves every run, V8 compiles what one lacks.
 */
function shapeOf(argv, commands) {
  for (const arg of argv) {
    if (arg === '-h' || arg === '--help' || arg === '--') return 'root';
    if (commands.includes(arg)) return arg;
  }
  return 'root';
}

/**
 * The code cache's file name: the bundle's content id, the shape of the run, V8's version, and the
 * key of V8-relevant options when there are any. V8 itself checks a cache only against the source's
 * length, so a rebuilt bundle of the same length must never meet the old cache: the id keeps them
 * apart.
 */
function cacheName(source, shape = 'root', flags = flagsKey()) {
  return `paycli.cjs.${bundleHeader(source).id}.${shape}.v8-${process.versions.v8}${flags ? `.flags-${flags}` : ''}.cache`;
}

/** Where ordinary runs keep the cache they write: the user's cache directory, never the package. */
function userCacheFile(name) {
  // On POSIX os.homedir() is HOME when it is set (libuv reads it first): node:os is not loaded for it.
  const home = process.platform !== 'win32' && process.env.HOME ? process.env.HOME : require('node:os').homedir();
  const base = process.env.XDG_CACHE_HOME || join(home, '.cache');
  return join(base, 'paycli', name);
}

/**
 * The file's bytes, or undefined when it cannot be read. A missing file is checked for first: a
 * thrown ENOENT costs ~0.2 ms (Node builds the error and its stack), and the user's cache is usually
 * missing where the build trained one beside the bundle.
 */
function readOrUndefined(file) {
  try {
    return existsSync(file) ? readFileSync(file) : undefined;
  } catch {
    return undefined;
  }
}

/** Writes a file atomically (temporary file, then rename); false when it cannot. */
function writeAtomically(file, data) {
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
}

/**
 * Loads the bundle like `require` would, but through vm.Script with V8's code cache: functions that
 * earlier runs compiled are deserialized instead of parsed and compiled again. Each shape of run
 * (`shapeOf`) has a cache of its own, looked for in the user's cache directory, then beside the
 * bundle (where `npm run build` trains one per common command, and a `common` one made by all of
 * them for the commands without one; a packed tarball ships none). When there is none or V8 rejects
 * it, the run writes its shape's cache in the user's cache directory afterwards (best effort),
 * unless a larger (trained) cache is already there. Returns the bundle's exports, whether a cache
 * was used, and a function that writes the cache. `PAYCLI_CODE_CACHE=write-common` (training) runs
 * every command as the `common` shape.
 */
function loadBundle(argv = []) {
  const vm = require('node:vm');
  const source = readFileSync(BUNDLE, 'utf8');
  const header = bundleHeader(source);
  const shape = process.env.PAYCLI_CODE_CACHE === 'write-common' ? 'common' : shapeOf(argv, header.commands);
  const name = cacheName(source, shape);
  const beside = join(dirname(BUNDLE), name);
  const user = userCacheFile(name);
  const cachedData = readOrUndefined(user) ?? readOrUndefined(beside) ?? (shape === 'common' ? undefined : readOrUndefined(join(dirname(BUNDLE), cacheName(source, 'common'))));
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
    /** Training (`npm run build`) writes beside the bundle; ordinary runs in the user's cache directory. */
    writeCache(training = false) {
      const data = script.createCachedData();
      if (training) return writeAtomically(beside, data);
      // Never replace a trained cache with a narrower one (a run that compiled one command).
      let existing = 0;
      try {
        existing = statSync(user).size;
      } catch {
        /* none yet */
      }
      if (existing > data.length) return false;
      if (!writeAtomically(user, data)) return false;
      // Caches of other builds of paycli are dead weight.
      try {
        for (const other of readdirSync(dirname(user))) if (/^paycli\.cjs\.[^.]+\..*cache$/.test(other) && other.split('.')[2] !== header.id) unlinkSync(join(dirname(user), other));
      } catch {
        /* best effort */
      }
      return true;
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
  const bundle = loadBundle(argv);
  process.exitCode = await bundle.exports.main(argv);
  // `npm run build` trains the caches beside the bundle by running typical commands with
  // PAYCLI_CODE_CACHE=write (then =write-common), each adding the functions it compiled; an ordinary
  // run writes one (in the user's cache directory) only when it found none or V8 rejected it.
  if (process.env.PAYCLI_CODE_CACHE === 'write' || process.env.PAYCLI_CODE_CACHE === 'write-common') bundle.writeCache(true);
  else if (!bundle.cacheUsed && process.env.PAYCLI_CODE_CACHE !== 'off') bundle.writeCache();
  exitWhenIdle();
}

/**
 * Ends the process once the promise jobs and ticks queued behind the command have run, when nothing
 * else is left (no handle, request or timer, no `beforeExit` listener): Node would exit next anyway,
 * but first it runs the tasks V8 posted, usually a scavenge of the young heap the run filled
 * (~0.8 ms, useless at exit). Linux only, where standard output and error are written
 * synchronously (files, pipes and terminals alike), so nothing written can be left behind.
 */
function exitWhenIdle() {
  if (process.platform !== 'linux') return;
  process.nextTick(() => {
    if (process.getActiveResourcesInfo().length === 0 && process.listenerCount('beforeExit') === 0) process.exit();
  });
}

if (require.main === module) start();
else module.exports = { loadBundle, cacheName, flagsKey, shapeOf, BUNDLE };
