import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { gitEnv } from '../../src/cli/commands/doctor.js';
import { runCli, tempHome } from '../helpers/cli.js';
import { EMULATOR_DEFAULT_API_KEY } from '../helpers/sandbox.js';

// Issue 13 item 17: doctor looks for the API key in git-tracked files without putting it on a
// command line (argv is readable by every local user).

const KEY = 'sk-live-DOCTOR-ABCDEFGH12345678-wxyz';
let h: ReturnType<typeof tempHome>;
beforeEach(() => (h = tempHome()));
afterEach(() => h.cleanup());

type Check = { check: string; status: string; detail: string };
const gitCheck = (stdout: string) => (JSON.parse(stdout) as { checks: Check[] }).checks.find((c) => c.check === 'API key in git')!;

const haveGit = (() => {
  try {
    execFileSync('git', ['--version']);
    return true;
  } catch {
    return false;
  }
})();

describe('doctor: API key in git', () => {
  it('gives git the key on stdin, never in argv (a stand-in git records both)', async () => {
    const bin = join(h.home, 'bin');
    mkdirSync(bin);
    const argvFile = join(h.home, 'argv.txt');
    const stdinFile = join(h.home, 'stdin.txt');
    writeFileSync(
      join(bin, 'git'),
      `#!/bin/sh\nprintf '%s\\n' "$@" > '${argvFile}'\ncat /proc/$$/cmdline | tr '\\0' ' ' >> '${argvFile}'\ncat > '${stdinFile}'\nexit 1\n`,
    );
    chmodSync(join(bin, 'git'), 0o755);
    const r = await runCli(['doctor', '--json', '--offline'], {
      home: h.home,
      env: { PATH: `${bin}:${process.env.PATH}`, PAYCLI_VA: '1179000899', PAYCLI_API_KEY: KEY },
    });
    expect(gitCheck(r.stdout)).toEqual({ check: 'API key in git', status: 'ok', detail: 'not in any tracked file' });
    const argv = readFileSync(argvFile, 'utf8');
    expect(argv.split('\n').slice(0, 13)).toEqual([
      '--no-pager',
      '-c',
      'core.fsmonitor=false',
      '-c',
      'core.pager=cat',
      '-c',
      'diff.external=',
      'grep',
      '--no-textconv',
      '-l',
      '-F',
      '-f',
      '-',
    ]);
    expect(argv).not.toContain(KEY);
    expect(argv).not.toContain('DOCTOR');
    expect(readFileSync(stdinFile, 'utf8')).toBe(KEY + '\n');
  });

  it.skipIf(!haveGit)('finds the key in a tracked file of a real repository', async () => {
    const repo = join(h.home, 'shop');
    mkdirSync(repo);
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], { cwd: repo, stdio: 'ignore' });
    git('init', '-q');
    writeFileSync(join(repo, 'clean.txt'), 'nothing here\n');
    writeFileSync(join(repo, 'settings.php'), `<?php $key = '${KEY}';\n`);
    git('add', '.');
    const env = { PATH: process.env.PATH ?? '', PAYCLI_VA: '1179000899', PAYCLI_API_KEY: KEY };
    const found = await runCli(['doctor', '--json', '--offline'], { home: h.home, cwd: repo, env });
    expect(found.code).toBe(4);
    expect(gitCheck(found.stdout)).toMatchObject({ status: 'fail', detail: 'found in tracked files: settings.php — remove it and rotate the key' });
    expect(found.stdout).not.toContain(KEY);
    git('rm', '-q', '--cached', 'settings.php');
    const clean = await runCli(['doctor', '--json', '--offline'], { home: h.home, cwd: repo, env });
    expect(gitCheck(clean.stdout).status).toBe('ok');
    const outside = await runCli(['doctor', '--json', '--offline'], { home: h.home, cwd: h.home, env });
    expect(gitCheck(outside.stdout)).toMatchObject({ status: 'skip', detail: 'not a git repository' });
  });

  it.skipIf(!haveGit)("does not call the emulator's published default key a leak", async () => {
    // README's library example puts it in code; it opens nothing but a local emulator.
    const repo = join(h.home, 'shop');
    mkdirSync(repo);
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], { cwd: repo, stdio: 'ignore' });
    git('init', '-q');
    writeFileSync(join(repo, 'pay.test.js'), `const apiKey = '${EMULATOR_DEFAULT_API_KEY}';\n`);
    git('add', '.');
    for (const env of [{ PAYCLI_ENV: 'local' }, { PAYCLI_VA: '1179000899', PAYCLI_API_KEY: EMULATOR_DEFAULT_API_KEY }]) {
      const r = await runCli(['doctor', '--json', '--offline'], { home: h.home, cwd: repo, env: { PATH: process.env.PATH ?? '', ...env } });
      expect(gitCheck(r.stdout), JSON.stringify(env)).toEqual({
        check: 'API key in git',
        status: 'ok',
        detail: "the emulator's published default key: not a secret, not looked for",
      });
      expect(r.code, r.stdout).not.toBe(4);
    }
    // A real key in the same place still is one.
    writeFileSync(join(repo, 'pay.test.js'), `const apiKey = '${KEY}';\n`);
    git('add', '.');
    const real = await runCli(['doctor', '--json', '--offline'], {
      home: h.home,
      cwd: repo,
      env: { PATH: process.env.PATH ?? '', PAYCLI_VA: '1179000899', PAYCLI_API_KEY: KEY },
    });
    expect(real.code).toBe(4);
    expect(gitCheck(real.stdout).status).toBe('fail');
  });

  it.skipIf(!haveGit)('runs no program the repository configures (core.fsmonitor), and git sees neither the key nor PAYCLI_*', async () => {
    // Issue 13 items 13/17: git runs core.fsmonitor on an index refresh, with its own environment.
    const repo = join(h.home, 'shop');
    mkdirSync(repo);
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], { cwd: repo, stdio: 'ignore' });
    git('init', '-q');
    writeFileSync(join(repo, 'clean.txt'), 'nothing here\n');
    git('add', '.');
    const leak = join(h.home, 'fsmonitor-env.txt');
    const hook = join(h.home, 'fsmonitor.sh');
    writeFileSync(hook, `#!/bin/sh\nenv > '${leak}'\nexit 1\n`);
    chmodSync(hook, 0o755);
    git('config', 'core.fsmonitor', hook);
    // The hook does run for a plain git grep here: the test can fail.
    execFileSync('git', ['grep', '-l', 'nothing'], { cwd: repo, stdio: 'ignore' });
    expect(existsSync(leak)).toBe(true);
    rmSync(leak);
    const env = { PATH: process.env.PATH ?? '', PAYCLI_VA: '1179000899', PAYCLI_API_KEY: KEY, SHOP_SECRET: `x${KEY}x` };
    const r = await runCli(['doctor', '--json', '--offline'], { home: h.home, cwd: repo, env });
    expect(gitCheck(r.stdout)).toMatchObject({ status: 'ok' });
    expect(existsSync(leak)).toBe(false);
    // And the environment git gets: no PAYCLI_*, nothing holding the key.
    const seen = gitEnv({ ...env, HOME: '/h', GIT_PAGER: 'less', GIT_EXTERNAL_DIFF: '/x' }, KEY);
    expect(seen).toEqual({ PATH: env.PATH, HOME: '/h' });
  });
});
