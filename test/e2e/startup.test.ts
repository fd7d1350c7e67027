import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, openSync, closeSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
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

function run(args: string[], env: Record<string, string> = {}, stdout: 'pipe' | number = 'pipe') {
  const r = spawnSync(process.execPath, [bin, ...args], { env: { PATH: process.env.PATH ?? '', HOME: '/nonexistent', ...env }, stdio: ['ignore', stdout, 'pipe'], encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout ?? '', stderr: r.stderr };
}

beforeAll(() => {
  pkg = mkdtempSync(join(tmpdir(), 'paycli-pkg-'));
  for (const part of ['bin', 'dist', 'package.json']) cpSync(join(ROOT, part), join(pkg, part), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(pkg, 'node_modules'));
  bin = join(pkg, 'bin/paycli.js');
  cache = join(pkg, 'dist/cli/paycli.cjs.cache');
});
afterAll(() => rmSync(pkg, { recursive: true, force: true }));

describe('start-up', () => {
  it('ships a trained code cache, and a rejected one is harmless and rewritten; a valid one is left alone', () => {
    expect(statSync(join(ROOT, 'dist/cli/paycli.cjs.cache')).size).toBeGreaterThan(50_000);
    const expected = spawnSync(process.execPath, [join(ROOT, 'bin/paycli.js'), '--help'], { encoding: 'utf8' }).stdout;
    writeFileSync(cache, 'not a V8 code cache');
    const first = run(['--help']);
    expect(first.code).toBe(0);
    expect(first.stdout).toBe(expected);
    expect(first.stderr).toBe('');
    const rewritten = readFileSync(cache);
    expect(rewritten.length).toBeGreaterThan(50_000);
    const mtime = statSync(cache).mtimeMs;
    expect(run(['--help']).stdout).toBe(expected);
    expect(statSync(cache).mtimeMs).toBe(mtime);
    rmSync(cache);
    expect(run(['--help'], { PAYCLI_CODE_CACHE: 'off' }).code).toBe(0);
    expect(existsSync(cache)).toBe(false);
  });

  it('loads the external packages from cached code (dynamic imports are routed through the bin)', () => {
    cpSync(join(ROOT, 'dist/cli/paycli.cjs.cache'), cache);
    // With a proxy, the request goes through the undici package, imported lazily. (Port 9 is closed.)
    for (let i = 0; i < 2; i++) {
      const r = run(['--env', 'local', '--base-url', 'http://127.0.0.1:9/api', '--va', VA, 'areas', 'province', '--no-cache'], { PAYCLI_API_KEY: KEY, HTTP_PROXY: 'http://127.0.0.1:9' });
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

  it('keeps heavy Node built-ins off the start-up of the common commands (no timing, just what loads)', () => {
    // A preload prints, at exit, the built-in modules loaded after it: a guard against an eager import
    // undoing the start-up work (BENCHMARKS.md). stdout is a pipe, as in `paycli … | jq`.
    const preload = join(pkg, 'loaded.cjs');
    writeFileSync(preload, "const before = new Set(process.moduleLoadList); process.on('exit', () => require('fs').writeSync(2, '\\nLOADED ' + process.moduleLoadList.filter((m) => !before.has(m)).join(',') + '\\n'));");
    const form = 'trx_id=184854&status=berhasil&status_code=1&amount=102000';
    const signature = run(['sign-callback', '--data', form, '--va', VA]).stdout.trim().split(/\s+/).pop()!;
    const cases: [string[], string[]][] = [
      [['--help'], ['crypto', 'child_process', 'net', 'fs/promises', 'worker_threads', 'readline', 'http', 'tty']],
      [['verify-callback', '--data', form, '--va', VA, '--signature', signature], ['crypto', 'child_process', 'net', 'fs/promises', 'worker_threads', 'readline', 'http', 'tty']],
    ];
    for (const [args, banned] of cases) {
      const r = spawnSync(process.execPath, ['-r', preload, join(ROOT, 'bin/paycli.js'), ...args], { env: { PATH: process.env.PATH ?? '', HOME: '/nonexistent' }, encoding: 'utf8' });
      expect(r.status, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      const loaded = (/LOADED (.*)/.exec(r.stderr)?.[1] ?? '').split(',').map((m) => m.replace(/^NativeModule /, ''));
      expect(loaded.length, args.join(' ')).toBeGreaterThan(0);
      for (const name of banned) expect(loaded, `${args.join(' ')} loads ${name}`).not.toContain(name);
    }
  });
});
