#!/usr/bin/env node
'use strict';
// The only file that touches process.exitCode. CommonJS (bin/package.json) because Node starts a
// CommonJS entry ~3 ms faster than an ES module one. `--version` is answered before anything is
// loaded; everything else runs from the single-file bundle dist/cli/paycli.cjs, compiled with V8's
// code cache (written by `npm run build`), or from the compiled modules (dist/cli/main.js) when the
// bundle is absent. BENCHMARKS.md has what each step buys.
const {
  readFileSync,
  writeFileSync,
  writeSync,
  renameSync,
  existsSync,
  unlinkSync,
  mkdirSync,
  readdirSync,
  openSync,
  closeSync,
  fstatSync,
  lstatSync,
  statSync,
  chmodSync,
  constants: fsConstants,
} = require('node:fs');
const { join, dirname } = require('node:path');

const BUNDLE = join(__dirname, '..', 'dist', 'cli', 'paycli.cjs');
const BUNDLE_ID = '// paycli-bundle ';

/**
 * Node options that change nothing in the code V8 compiles (module loading, debugging, warnings);
 * every other option given to Node, on its command line or in NODE_OPTIONS, may change V8's flags,
 * and V8 rejects a code cache made under other flags.
 */
const NEUTRAL_OPTIONS =
  /^--(require|import|loader|experimental-loader|env-file|title|inspect[\w-]*|debug-port|enable-source-maps|no-warnings|trace-warnings|pending-deprecation|no-deprecation|unhandled-rejections|use-openssl-ca|use-bundled-ca|openssl-[\w-]+|tls-[\w-]+|dns-result-order)\b|^-r$/;
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
 * Code caches are code: V8 checks one only against its source's length, so a cache compiled from a
 * modified bundle of the same length runs the modified code inside the genuine paycli. A cache is
 * therefore executed only when nobody but its owner could have written it: a regular file (not a
 * symbolic link), owned by `owners`, in a directory owned by them, neither writable by group or
 * others (`private`: no access at all for them, 0700 and 0600, as paycli writes the user's
 * cache). On Windows, without POSIX owners and modes, the user's profile directory protects it.
 */
const UID = typeof process.getuid === 'function' ? process.getuid() : undefined;

function mayExecute(stats, owners, isPrivate) {
  if (UID === undefined) return true;
  return owners.includes(stats.uid) && (stats.mode & (isPrivate ? 0o077 : 0o022)) === 0;
}

/**
 * The cache file's bytes when it may be executed (mayExecute, for it and its directory), or
 * undefined when it is missing, cannot be read or may not be trusted. A missing file is checked for
 * first without an exception: a thrown ENOENT costs ~0.2 ms (Node builds the error and its stack),
 * and the user's cache is usually missing where the build trained one beside the bundle. The file is
 * opened without following a link and checked through its descriptor: what is checked is what is read.
 */
function readTrusted(file, owners, isPrivate) {
  if (!existsSync(file)) return undefined;
  let fd;
  try {
    const dir = lstatSync(dirname(file));
    if (!dir.isDirectory() || !mayExecute(dir, owners, isPrivate)) return undefined;
    fd = openSync(file, fsConstants.O_RDONLY | (fsConstants.O_NOFOLLOW ?? 0));
    const stats = fstatSync(fd);
    if (!stats.isFile() || !mayExecute(stats, owners, isPrivate)) return undefined;
    return readFileSync(fd);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** The user's cache (0600 in 0700, the user's own), or undefined. */
function readUserCache(file) {
  return readTrusted(file, [UID], true);
}

/** A cache beside the bundle (written by the build): trusted as far as the bundle itself, owned by its owner or the user. */
function readPackagedCache(file, bundleOwner) {
  return readTrusted(file, [UID, bundleOwner], false);
}

/**
 * The user's cache directory, made private: created 0700, or an existing one of the user's own
 * (not a link) set to 0700; undefined when it is not the user's, so nothing is written there.
 */
function privateCacheDir(dir) {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const stats = lstatSync(dir);
    if (!stats.isDirectory() || (UID !== undefined && stats.uid !== UID)) return undefined;
    if (UID !== undefined && (stats.mode & 0o077) !== 0) chmodSync(dir, 0o700);
    return dir;
  } catch {
    return undefined;
  }
}

/** Writes a file atomically (a new temporary file of `mode`, then rename); false when it cannot. */
function writeAtomically(file, data, mode = 0o644) {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, data, { mode, flag: 'wx' });
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

/** The bundle's source as the function vm.Script compiles (and its code cache holds). */
function wrapBundle(source) {
  return `(function (exports, require, module, __filename, __dirname, __paycliImport) {${source}\n})`;
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
  // The bundle is ASCII (scripts/bundle.js escapes every other character), so latin1 reads it
  // exactly, without UTF-8's validation pass: ~0.13 ms of every start for its 0.8 MB.
  const source = readFileSync(BUNDLE, 'latin1');
  const header = bundleHeader(source);
  const shape = process.env.PAYCLI_CODE_CACHE === 'write-common' ? 'common' : shapeOf(argv, header.commands);
  const name = cacheName(source, shape);
  const beside = join(dirname(BUNDLE), name);
  const user = userCacheFile(name);
  const bundleOwner = UID === undefined ? undefined : statSync(BUNDLE).uid;
  const cachedData =
    readUserCache(user) ??
    readPackagedCache(beside, bundleOwner) ??
    (shape === 'common' ? undefined : readPackagedCache(join(dirname(BUNDLE), cacheName(source, 'common')), bundleOwner));
  // The bundle's import() calls (undici, inquirer, ora, … stay external) are routed to this module's
  // own import(): code compiled by vm.Script cannot import, least of all when it comes from a cache.
  // Its require() calls are all for Node built-ins, so this module's own require serves them.
  const script = new vm.Script(wrapBundle(source), { filename: BUNDLE, cachedData });
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
      if (!privateCacheDir(dirname(user))) return false;
      // Never replace a trained cache with a narrower one (a run that compiled one command); one
      // that may not be trusted is replaced whatever its size.
      const existing = readUserCache(user)?.length ?? 0;
      if (existing > data.length) return false;
      if (!writeAtomically(user, data, 0o600)) return false;
      // Caches of other builds of paycli are dead weight.
      try {
        for (const other of readdirSync(dirname(user)))
          if (/^paycli\.cjs\.[^.]+\..*cache$/.test(other) && other.split('.')[2] !== header.id) unlinkSync(join(dirname(user), other));
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
else module.exports = { loadBundle, cacheName, flagsKey, shapeOf, wrapBundle, BUNDLE };
