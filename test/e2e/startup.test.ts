import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  closeSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMULATOR_DEFAULT_API_KEY as KEY, EMULATOR_DEFAULT_VA as VA } from '../helpers/sandbox.js';

// The start-up machinery of bin/paycli.js (BENCHMARKS.md): the bundle compiled through V8's code
// cache, dynamic imports routed out of the cached code, and stdout written straight to descriptor 1.
// Cache tests run on a copy of the built package, so the repository's own cache is never touched.
const ROOT = new URL('../..', import.meta.url).pathname;
let pkg: string;
let bin: string;
let cache: string;
let shipped: string;

/** The code cache beside a bundle for a shape of run: named by the bundle's content id, the shape and V8's version. */
function cacheBeside(dir: string, shape = 'root'): string {
  const names = readdirSync(join(dir, 'dist/cli')).filter((n) => new RegExp(`^paycli\\.cjs\\.[0-9a-f]{16}\\.${shape}\\.v8-.+\\.cache$`).test(n));
  expect(names, dir).toHaveLength(1);
  return join(dir, 'dist/cli', names[0]!);
}

function run(args: string[], env: Record<string, string> = {}, stdout: 'pipe' | number = 'pipe') {
  const r = spawnSync(process.execPath, [bin, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: '/nonexistent', ...env },
    stdio: ['ignore', stdout, 'pipe'],
    encoding: 'utf8',
  });
  return { code: r.status, stdout: r.stdout ?? '', stderr: r.stderr };
}

beforeAll(() => {
  pkg = mkdtempSync(join(tmpdir(), 'paycli-pkg-'));
  for (const part of ['bin', 'dist', 'package.json']) cpSync(join(ROOT, part), join(pkg, part), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(pkg, 'node_modules'));
  bin = join(pkg, 'bin/paycli.js');
  shipped = cacheBeside(ROOT);
  cache = cacheBeside(pkg);
});
afterAll(() => rmSync(pkg, { recursive: true, force: true }));

describe('start-up', () => {
  it('builds a trained code cache beside the bundle; a rejected one is harmless and replaced in the user cache, a valid one left alone', () => {
    expect(statSync(shipped).size).toBeGreaterThan(50_000);
    expect(shipped).toContain(`.v8-${process.versions.v8}.cache`);
    const expected = spawnSync(process.execPath, [join(ROOT, 'bin/paycli.js'), '--help'], { encoding: 'utf8' }).stdout;
    writeFileSync(cache, 'not a V8 code cache');
    const userCache = join(pkg, 'user-cache');
    const env = { XDG_CACHE_HOME: userCache };
    const first = run(['--help'], env);
    expect(first.code).toBe(0);
    expect(first.stdout).toBe(expected);
    expect(first.stderr).toBe('');
    const written = join(userCache, 'paycli', cache.split('/').pop()!);
    expect(statSync(written).size).toBeGreaterThan(50_000);
    expect(readFileSync(cache, 'utf8')).toBe('not a V8 code cache'); // an ordinary run never writes into the package
    const mtime = statSync(written).mtimeMs;
    expect(run(['--help'], env).stdout).toBe(expected);
    expect(statSync(written).mtimeMs).toBe(mtime); // found and used, not rewritten
    rmSync(userCache, { recursive: true });
    rmSync(cache);
    expect(run(['--help'], { PAYCLI_CODE_CACHE: 'off', XDG_CACHE_HOME: userCache }).code).toBe(0);
    expect(existsSync(cache)).toBe(false);
    expect(existsSync(userCache)).toBe(false);
  });

  it('keys the cache by the V8 options of the run, and never replaces a trained cache with a narrower one', () => {
    cpSync(shipped, cache);
    const trained = readFileSync(cache);
    const userCache = join(pkg, 'user-cache');
    // Other V8 flags (NODE_OPTIONS or the node command line) get a cache of their own; the trained
    // one is neither rewritten nor rejected by them.
    for (const variant of [
      { env: { NODE_OPTIONS: '--max-old-space-size=4096' }, argv: [] as string[] },
      { env: {}, argv: ['--max-semi-space-size=32'] },
    ]) {
      for (let i = 0; i < 2; i++) {
        const r = spawnSync(process.execPath, [...variant.argv, bin, '--help'], {
          env: { PATH: process.env.PATH ?? '', HOME: '/nonexistent', XDG_CACHE_HOME: userCache, ...variant.env },
          encoding: 'utf8',
        });
        expect(r.status, r.stderr).toBe(0);
      }
    }
    const keyed = readdirSync(join(userCache, 'paycli'));
    expect(keyed).toHaveLength(2);
    for (const name of keyed) expect(name).toMatch(/^paycli\.cjs\.[0-9a-f]{16}\.root\.v8-.+\.flags-[0-9a-f]{8}\.cache$/);
    expect(readFileSync(cache).equals(trained)).toBe(true);
    // Neutral options (a preload, source maps) share the default cache: nothing new is written.
    const preload = join(pkg, 'noop.cjs');
    writeFileSync(preload, '');
    rmSync(userCache, { recursive: true });
    const r = spawnSync(process.execPath, ['-r', preload, '--enable-source-maps', bin, '--help'], {
      env: { PATH: process.env.PATH ?? '', HOME: '/nonexistent', XDG_CACHE_HOME: userCache },
      encoding: 'utf8',
    });
    expect(r.status).toBe(0);
    expect(existsSync(userCache)).toBe(false);
    // A trained cache that V8 rejects (here: its source hash changed) is not replaced by the one a
    // narrower run of its command would write (verify-callback's was trained by three verifications;
    // the narrow run stops at a missing file); a smaller rejected one is.
    const name = cache.split('/').pop()!;
    const verifyName = cacheBeside(pkg, 'verify-callback').split('/').pop()!;
    const narrow = ['verify-callback', join(pkg, 'missing.form'), '--va', VA, '--signature', '0'.repeat(64)];
    mkdirSync(join(userCache, 'paycli'), { recursive: true, mode: 0o700 });
    const rejected = readFileSync(cacheBeside(pkg, 'verify-callback'));
    rejected[8] = rejected[8]! ^ 0xff;
    writeFileSync(join(userCache, 'paycli', verifyName), rejected, { mode: 0o600 });
    expect(run(['--version'], { XDG_CACHE_HOME: userCache }).code).toBe(0);
    expect(run(narrow, { XDG_CACHE_HOME: userCache }).code).toBe(2);
    expect(readFileSync(join(userCache, 'paycli', verifyName)).equals(rejected)).toBe(true);
    writeFileSync(join(userCache, 'paycli', verifyName), 'small and broken', { mode: 0o600 });
    expect(run(narrow, { XDG_CACHE_HOME: userCache }).code).toBe(2);
    expect(statSync(join(userCache, 'paycli', verifyName)).size).toBeGreaterThan(50_000);
    // Caches of other builds are removed when a new one is written.
    writeFileSync(join(userCache, 'paycli', 'paycli.cjs.0123456789abcdef.v8-1.2.3.cache'), 'old build');
    rmSync(join(userCache, 'paycli', verifyName));
    const common = cacheBeside(pkg, 'common');
    rmSync(cache); // no cache anywhere (not even the common one): this run writes one
    rmSync(common);
    expect(run(['--help'], { XDG_CACHE_HOME: userCache }).code).toBe(0);
    expect(readdirSync(join(userCache, 'paycli'))).toEqual([name]);
    cpSync(cacheBeside(ROOT, 'common'), common);
    rmSync(userCache, { recursive: true });
  });

  it('never executes a code cache that someone else could have planted', () => {
    // V8 checks a code cache only against its source's length: a cache compiled from a modified
    // bundle of the same length runs the modified code inside the genuine paycli. Here the
    // modification throws "PLANT" as the bundle starts; the cache is made by a plain node (the
    // same V8 flags as the runs below).
    cpSync(shipped, cache);
    const userDir = join(pkg, 'planted-cache', 'paycli');
    const { cacheName } = createRequire(import.meta.url)(bin) as { cacheName: (source: string, shape: string, flags: string) => string };
    const planted = join(userDir, cacheName(readFileSync(join(pkg, 'dist/cli/paycli.cjs'), 'utf8'), 'root', ''));
    const make = `
      const { readFileSync, writeFileSync } = require('node:fs');
      const vm = require('node:vm');
      const { wrapBundle, BUNDLE } = require(${JSON.stringify(bin)});
      const source = readFileSync(BUNDLE, 'utf8');
      const evil = source.replace('"use strict";', 'throw"PLANT";');
      if (evil.length !== source.length || evil === source) throw new Error('no same-length modification');
      const script = new vm.Script(wrapBundle(evil), { filename: BUNDLE });
      try { script.runInThisContext().call({}); } catch (e) { if (e !== 'PLANT') throw e; }
      writeFileSync(process.argv[1], script.createCachedData());`;
    mkdirSync(userDir, { recursive: true, mode: 0o700 });
    const made = spawnSync(process.execPath, ['-e', make, planted], { encoding: 'utf8' });
    expect(made.status, made.stderr).toBe(0);
    chmodSync(userDir, 0o700);
    chmodSync(planted, 0o600);
    const env = { XDG_CACHE_HOME: join(pkg, 'planted-cache') };
    // The premise: as the user's own private cache (0600 in a 0700 directory), it runs.
    expect(run(['--help'], env).stderr).toContain('PLANT');
    const expected = run(['--help'], { PAYCLI_CODE_CACHE: 'off' }).stdout;
    const planting: [string, () => void][] = [
      ['a file others may write (0666)', () => chmodSync(planted, 0o666)],
      ['a file the group may write (0620)', () => chmodSync(planted, 0o620)],
      ['a directory others may write (0777)', () => chmodSync(userDir, 0o777)],
      ['a directory the group may enter and write (0770)', () => chmodSync(userDir, 0o770)],
      ['a file owned by another user', () => chownSync(planted, 65534, 65534)],
      [
        'a symbolic link to the cache',
        () => {
          renameSync(planted, `${planted}.elsewhere`);
          symlinkSync(`${planted}.elsewhere`, planted);
        },
      ],
    ];
    for (const [what, plant] of planting) {
      rmSync(userDir, { recursive: true, force: true });
      mkdirSync(userDir, { recursive: true, mode: 0o700 });
      expect(spawnSync(process.execPath, ['-e', make, planted]).status).toBe(0);
      chmodSync(planted, 0o600);
      plant();
      const r = run(['--help'], env);
      expect(r.stderr, what).not.toContain('PLANT');
      expect(r.code, what).toBe(0);
      expect(r.stdout, what).toBe(expected);
    }
    rmSync(join(pkg, 'planted-cache'), { recursive: true, force: true });
  });

  it('writes its cache privately: the directory 0700, the files 0600', () => {
    const userCache = join(pkg, 'private-cache');
    const dist = join(pkg, 'dist/cli');
    const saved = join(pkg, 'saved-private');
    mkdirSync(saved);
    for (const n of readdirSync(dist).filter((f) => f.endsWith('.cache'))) renameSync(join(dist, n), join(saved, n));
    try {
      // A directory left loose (by an older paycli, or a umask) is made private before anything is written in it.
      mkdirSync(join(userCache, 'paycli'), { recursive: true, mode: 0o755 });
      chmodSync(join(userCache, 'paycli'), 0o755);
      expect(run(['--help'], { XDG_CACHE_HOME: userCache }).code).toBe(0);
      const dir = join(userCache, 'paycli');
      expect(statSync(dir).mode & 0o777).toBe(0o700);
      const files = readdirSync(dir);
      expect(files).toHaveLength(1);
      expect(statSync(join(dir, files[0]!)).mode & 0o777).toBe(0o600);
      // A fresh one likewise.
      rmSync(userCache, { recursive: true });
      expect(run(['--help'], { XDG_CACHE_HOME: userCache }).code).toBe(0);
      expect(statSync(dir).mode & 0o777).toBe(0o700);
      expect(statSync(join(dir, readdirSync(dir)[0]!)).mode & 0o777).toBe(0o600);
    } finally {
      for (const n of readdirSync(saved)) renameSync(join(saved, n), join(dist, n));
      rmSync(saved, { recursive: true, force: true });
      rmSync(userCache, { recursive: true, force: true });
    }
  });

  it('gives each common command a cache of its own, and the others the common one', () => {
    cpSync(shipped, cache);
    const root = statSync(cache).size;
    const common = statSync(cacheBeside(pkg, 'common')).size;
    for (const shape of ['verify-callback', 'sign-callback', 'areas', 'pay', 'whoami'])
      expect(statSync(cacheBeside(pkg, shape)).size, shape).toBeLessThan(common);
    expect(root).toBeLessThan(common);
    const { shapeOf } = createRequire(import.meta.url)(bin) as { shapeOf: (argv: string[], commands: string[]) => string };
    const commands = ['areas', 'verify-callback', 'pay'];
    expect(shapeOf(['--help'], commands)).toBe('root');
    expect(shapeOf([], commands)).toBe('root');
    expect(shapeOf(['verfy-callback'], commands)).toBe('root');
    expect(shapeOf(['--json', 'verify-callback', 'x.json'], commands)).toBe('verify-callback');
    expect(shapeOf(['--help', 'areas'], commands)).toBe('root');
    expect(shapeOf(['--env', 'local', 'areas', 'pay'], commands)).toBe('areas');
    // With the trained caches beside the bundle, no run writes one: a trained command finds its own, another the common one.
    const userCache = join(pkg, 'user-cache');
    for (const args of [
      ['--help'],
      ['verify-callback', '--data', 'a=1', '--va', VA, '--signature', '0'.repeat(64)],
      ['config', 'path'],
      ['events', '--help'],
    ]) {
      expect(run(args, { XDG_CACHE_HOME: userCache, XDG_CONFIG_HOME: join(pkg, 'cfg'), XDG_DATA_HOME: join(pkg, 'data') }).code, args.join(' ')).not.toBe(1);
      expect(existsSync(userCache), args.join(' ')).toBe(false);
    }
    // Without them, each shape of run writes its own in the user's cache directory.
    const dist = join(pkg, 'dist/cli');
    const saved = join(pkg, 'saved-caches');
    mkdirSync(saved);
    for (const n of readdirSync(dist).filter((f) => f.endsWith('.cache'))) cpSync(join(dist, n), join(saved, n));
    try {
      for (const n of readdirSync(saved)) rmSync(join(dist, n));
      expect(run(['--help'], { XDG_CACHE_HOME: userCache }).code).toBe(0);
      expect(run(['verify-callback', '--data', 'a=1', '--va', VA, '--signature', '0'.repeat(64)], { XDG_CACHE_HOME: userCache }).code).toBe(6);
      expect(run(['--json', 'verify-callback', '--data', 'a=1', '--va', VA, '--signature', '0'.repeat(64)], { XDG_CACHE_HOME: userCache }).code).toBe(6);
      const written = readdirSync(join(userCache, 'paycli'))
        .map((n) => n.split('.')[3])
        .sort();
      expect(written).toEqual(['root', 'verify-callback']);
    } finally {
      for (const n of readdirSync(saved)) cpSync(join(saved, n), join(dist, n));
      rmSync(saved, { recursive: true });
      rmSync(userCache, { recursive: true, force: true });
    }
  });

  it('never runs a cache made for another build, even of the same length', () => {
    // V8 checks a cache only against the source's length: a one-word change of the same length, with
    // the new content id scripts/bundle.js would write, must not meet the old cache.
    cpSync(shipped, cache);
    const bundlePath = join(pkg, 'dist/cli/paycli.cjs');
    const original = readFileSync(bundlePath, 'utf8');
    const changed = original.replace('"show help"', '"SHOW HELP"').replace(/^\/\/ paycli-bundle [0-9a-f]{16}/, '// paycli-bundle 0123456789abcdef');
    expect(changed.length).toBe(original.length);
    expect(changed).toContain('"SHOW HELP"');
    writeFileSync(bundlePath, changed);
    try {
      const r = run(['--help'], { PAYCLI_CODE_CACHE: 'off' });
      expect(r.stdout).toContain('SHOW HELP');
    } finally {
      writeFileSync(bundlePath, original);
    }
  });

  it('loads the external packages from cached code (dynamic imports are routed through the bin)', () => {
    cpSync(shipped, cache);
    // With a proxy, the request goes through the undici package, imported lazily. (Port 9 is closed.)
    for (let i = 0; i < 2; i++) {
      const r = run(['--env', 'local', '--base-url', 'http://127.0.0.1:9/api', '--va', VA, 'areas', 'province', '--no-cache'], {
        PAYCLI_API_KEY: KEY,
        HTTP_PROXY: 'http://127.0.0.1:9',
      });
      expect(r.code).toBe(5);
      expect(r.stderr).toContain('connection refused');
    }
    const bundle = readFileSync(join(ROOT, 'dist/cli/paycli.cjs'), 'utf8');
    expect(bundle.match(/\bimport\(/g)).toHaveLength(1); // the fallback for a plain require() of the bundle
    expect(bundle.match(/__paycliImport\("/g)!.length).toBeGreaterThanOrEqual(5);
  });

  it('writes results straight to stdout: a full device is one line and exit 2, a closed pipe ends quietly', async () => {
    for (const args of [['--help'], ['--version'], ['sign-callback', '--data', 'trx_id=1&status=berhasil', '--va', VA]]) {
      const full = openSync('/dev/full', 'w');
      const r = run(args, {}, full);
      closeSync(full);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(r.stderr).toMatch(/standard output/);
    }
    const child = spawn(process.execPath, [bin, '--help'], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy(); // the reader is gone before paycli writes
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c));
    const code = await new Promise((r) => child.on('exit', r));
    expect(code).toBe(0);
    expect(stderr).toBe('');
  });

  it('ends as soon as a command is done without losing output, exit code or exit listeners, and never while work is left', () => {
    // bin/paycli.js ends the process when nothing is left to run (rather than letting V8 run a
    // garbage collection first). A preload adds what a run could have pending: `exit` listeners must
    // run, a timer must still fire, a `beforeExit` listener must still be called.
    const preload = join(pkg, 'pending.cjs');
    writeFileSync(
      preload,
      "const { writeSync } = require('fs'); process.on('exit', (code) => writeSync(2, 'EXIT ' + code + '\\n'));" +
        "if (process.env.PENDING === 'timer') setTimeout(() => writeSync(2, 'TIMER\\n'), 30);" +
        "if (process.env.PENDING === 'beforeExit') process.once('beforeExit', () => writeSync(2, 'BEFORE-EXIT\\n'));",
    );
    const spawnWith = (args: string[], pending = '') =>
      spawnSync(process.execPath, ['-r', preload, bin, ...args], {
        env: { PATH: process.env.PATH ?? '', HOME: '/nonexistent', PENDING: pending },
        encoding: 'utf8',
      });
    const form = 'trx_id=184854&status=berhasil&status_code=1&amount=102000';
    const invalid = spawnWith(['verify-callback', '--data', form, '--va', VA, '--signature', '0'.repeat(64)]);
    expect(invalid.status).toBe(6);
    expect(invalid.stdout).toContain('invalid signature');
    expect(invalid.stderr).toBe('EXIT 6\n');
    // Several kilobytes through a pipe arrive whole.
    const completion = spawnWith(['completion', 'bash']);
    expect(completion.status).toBe(0);
    expect(completion.stdout).toBe(readFileSync(join(ROOT, 'completions/paycli.bash'), 'utf8'));
    expect(spawnWith(['nosuch']).stderr).toMatch(/unknown command 'nosuch'[\s\S]*EXIT 2\n$/);
    const timer = spawnWith(['--help'], 'timer');
    expect([timer.status, timer.stderr]).toEqual([0, 'TIMER\nEXIT 0\n']);
    const beforeExit = spawnWith(['--help'], 'beforeExit');
    expect([beforeExit.status, beforeExit.stderr]).toEqual([0, 'BEFORE-EXIT\nEXIT 0\n']);
  });

  it('builds an ASCII bundle, which the bin reads as latin1', () => {
    const bytes = readFileSync(join(ROOT, 'dist/cli/paycli.cjs'));
    expect(bytes.findIndex((b) => b > 0x7f)).toBe(-1);
    expect(readFileSync(join(ROOT, 'bin/paycli.js'), 'utf8')).toContain("readFileSync(BUNDLE, 'latin1')");
  });

  it('keeps heavy Node built-ins off the start-up of the common commands (no timing, just what loads)', () => {
    // A preload prints, at exit, the built-in modules loaded after it: a guard against an eager import
    // undoing the start-up work (BENCHMARKS.md). stdout is a pipe, as in `paycli … | jq`.
    const preload = join(pkg, 'loaded.cjs');
    writeFileSync(
      preload,
      "const before = new Set(process.moduleLoadList); process.on('exit', () => require('fs').writeSync(2, '\\nLOADED ' + process.moduleLoadList.filter((m) => !before.has(m)).join(',') + '\\n'));",
    );
    const form = 'trx_id=184854&status=berhasil&status_code=1&amount=102000';
    const signature = run(['sign-callback', '--data', form, '--va', VA]).stdout.trim().split(/\s+/).pop()!;
    const cases: [string[], string[]][] = [
      [['--help'], ['crypto', 'child_process', 'net', 'fs/promises', 'worker_threads', 'readline', 'http', 'tty']],
      // verify-callback computes its HMAC with node:crypto (no hand-written cryptography), and nothing else
      // heavy: not the event store's modules either (node:module comes with them; store-access.ts).
      [
        ['verify-callback', '--data', form, '--va', VA, '--signature', signature],
        ['child_process', 'net', 'fs/promises', 'worker_threads', 'readline', 'http', 'tty', 'module'],
      ],
    ];
    for (const [args, banned] of cases) {
      const r = spawnSync(process.execPath, ['-r', preload, join(ROOT, 'bin/paycli.js'), ...args], {
        env: { PATH: process.env.PATH ?? '', HOME: '/nonexistent' },
        encoding: 'utf8',
      });
      expect(r.status, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      const loaded = (/LOADED (.*)/.exec(r.stderr)?.[1] ?? '').split(',').map((m) => m.replace(/^NativeModule /, ''));
      expect(loaded.length, args.join(' ')).toBeGreaterThan(0);
      for (const name of banned) expect(loaded, `${args.join(' ')} loads ${name}`).not.toContain(name);
    }
  });
});
