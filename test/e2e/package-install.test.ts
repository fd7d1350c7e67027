import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Issue 14 item 4: the package a user installs. `npm pack` (with the real prepack/postpack hooks)
// on a copy of the built package, `npm install -g --prefix` of the tarball into a temporary prefix,
// then `paycli demo` from that prefix. The tarball carries a LICENSE and no V8 code cache (that
// one is built on the first run, in the user's cache directory), and installing it prints no
// warning. The install resolves dependencies from npm's cache first (--prefer-offline); without a
// registry or a cache it is skipped outside CI and says so. better-sqlite3's install script (the one
// the install runs) finds its binary as a user's finds the one it downloads, a prebuilt tarball,
// here made from this checkout's own build for this Node (prebuild-install's local prebuilds), so
// that SQLite is not compiled again for minutes; compiling is better-sqlite3's fallback, not paycli's.
const ROOT = new URL('../..', import.meta.url).pathname;
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
let work: string;
let tarball = '';
let installed: { status: number | null; stderr: string } = { status: null, stderr: '' };

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'paycli-pack-'));
  const src = join(work, 'src');
  mkdirSync(join(src, 'scripts'), { recursive: true });
  for (const part of ['bin', 'dist', 'completions', 'README.md', 'LICENSE', 'package.json']) cpSync(join(ROOT, part), join(src, part), { recursive: true });
  cpSync(join(ROOT, 'scripts/pack-manifest.js'), join(src, 'scripts/pack-manifest.js'));
  // `npm test` has just built dist/: the copy's build step (part of prepack) has nothing left to do.
  const manifest = JSON.parse(readFileSync(join(src, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  manifest.scripts.build = 'node -e 0';
  writeFileSync(join(src, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  const env = {
    ...process.env,
    npm_config_loglevel: 'warn',
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
    ...localPrebuild(join(work, 'prebuilds')),
  };
  execFileSync(NPM, ['pack', '--pack-destination', work], { cwd: src, env, stdio: 'pipe' });
  tarball = join(work, readdirSync(work).find((f) => f.endsWith('.tgz'))!);
  const r = spawnSync(NPM, ['install', '-g', '--allow-scripts=better-sqlite3', '--prefix', join(work, 'prefix'), '--prefer-offline', tarball], {
    cwd: work,
    env,
    encoding: 'utf8',
    timeout: 420_000,
  });
  installed = { status: r.status, stderr: r.stderr ?? '' };
}, 480_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

/**
 * better-sqlite3's binary for this Node, as the prebuilt tarball prebuild-install looks for
 * ({name}-v{version}-node-v{abi}-{platform}{libc}-{arch}.tar.gz) in `dir`, and the setting that
 * points its install script there; none where the name could not be told (not glibc Linux).
 */
function localPrebuild(dir: string): Record<string, string> {
  const pkg = join(ROOT, 'node_modules/better-sqlite3');
  const glibc = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header?.glibcVersionRuntime;
  if (process.platform !== 'linux' || !glibc || !existsSync(join(pkg, 'build/Release/better_sqlite3.node'))) return {};
  const { version } = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')) as { version: string };
  mkdirSync(dir, { recursive: true });
  execFileSync('tar', [
    '-C',
    pkg,
    '-czf',
    join(dir, `better-sqlite3-v${version}-node-v${process.versions.modules}-linux-${process.arch}.tar.gz`),
    'build/Release/better_sqlite3.node',
  ]);
  return { npm_config_better_sqlite3_local_prebuilds: dir };
}

const offline = () => installed.status !== 0 && /ENOTCACHED|ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT|network/i.test(installed.stderr);

describe('the packed package', () => {
  it('holds LICENSE and the package metadata, and no V8 code cache or build-only script', () => {
    const files = execFileSync('tar', ['tzf', tarball], { encoding: 'utf8' }).split('\n');
    expect(files).toContain('package/LICENSE');
    expect(files).toContain('package/bin/paycli.js');
    expect(files).toContain('package/dist/cli/paycli.cjs');
    expect(files.filter((f) => f.endsWith('.cache'))).toEqual([]);
    const manifest = JSON.parse(execFileSync('tar', ['xzOf', tarball, 'package/package.json'], { encoding: 'utf8' })) as Record<string, unknown> & {
      scripts: Record<string, string>;
    };
    expect(manifest.license).toBe('MIT');
    expect(manifest.repository).toMatchObject({ url: expect.stringContaining('github.com/paycli/paycli') });
    expect(manifest.homepage).toMatch(/^https:\/\//);
    expect(manifest.bugs).toMatchObject({ url: expect.stringMatching(/\/issues$/) });
    expect(manifest.scripts.prepare).toBeUndefined();
    expect(manifest.allowScripts).toBeUndefined();
    expect(readFileSync(join(ROOT, 'LICENSE'), 'utf8')).toContain('paycli contributors');
    // postpack put the clone's package.json back (with its prepare script for `npm install` in a clone)
    expect((JSON.parse(readFileSync(join(work, 'src/package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.prepare).toBe('npm run build');
    expect(existsSync(join(work, 'src/package.json.prepack'))).toBe(false);
  });

  it('installs with `npm install -g` without a warning, and `paycli demo` runs from the prefix, its code cache in the user cache', (ctx) => {
    if (offline() && !process.env.CI) {
      console.log(`skipped: npm could not reach a registry or its cache (${installed.stderr.split('\n').find((l) => /ERR|error/.test(l)) ?? ''})`);
      ctx.skip();
    }
    expect(installed.status, installed.stderr).toBe(0);
    // This machine's npmrc may carry settings npm 11 no longer knows; that is not paycli's warning.
    const warnings = installed.stderr.split('\n').filter((l) => /warn/i.test(l) && !/Unknown (user|global|project|env) config/.test(l));
    expect(warnings, installed.stderr).toEqual([]);
    const bin = join(work, 'prefix/bin/paycli');
    const xdg = join(work, 'xdg-cache');
    const env = {
      PATH: process.env.PATH ?? '',
      HOME: join(work, 'home'),
      XDG_CACHE_HOME: xdg,
      XDG_DATA_HOME: join(work, 'data'),
      XDG_CONFIG_HOME: join(work, 'config'),
    };
    const first = spawnSync(bin, ['demo'], { env, encoding: 'utf8', timeout: 60_000 });
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout).toContain('all 12 steps passed');
    const caches = readdirSync(join(xdg, 'paycli')).filter((f) => f.endsWith('.cache'));
    expect(caches).toHaveLength(1);
    const installedPkg = join(work, 'prefix/lib/node_modules/paycli/dist/cli');
    expect(readdirSync(installedPkg).filter((f) => f.endsWith('.cache'))).toEqual([]); // nothing written into the package
    const mtime = statSync(join(xdg, 'paycli', caches[0]!)).mtimeMs;
    const second = spawnSync(bin, ['demo', '--json'], { env, encoding: 'utf8', timeout: 60_000 });
    expect(second.status).toBe(0);
    expect((JSON.parse(second.stdout) as { ok: boolean }).ok).toBe(true);
    expect(statSync(join(xdg, 'paycli', caches[0]!)).mtimeMs).toBe(mtime); // found and used, not rewritten
  }, 120_000);
});
