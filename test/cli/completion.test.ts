import { execFile, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import { completionScript, SHELLS } from '../../src/cli/completion.js';
import { AreaCache } from '../../src/core/api/area-cache.js';
import { runCli, tempHome, testContext } from '../helpers/cli.js';
import { BIN } from '../helpers/spawn.js';

const exec = promisify(execFile);
const FILES = { bash: 'completions/paycli.bash', zsh: 'completions/_paycli', fish: 'completions/paycli.fish' } as const;
let home: ReturnType<typeof tempHome>;
let bin: string;

beforeAll(async () => {
  home = tempHome();
  bin = join(home.home, 'bin');
  mkdirSync(bin);
  // `paycli` on PATH for the scripts' run-time lookups: the built bin of this checkout.
  writeFileSync(join(bin, 'paycli'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  chmodSync(join(bin, 'paycli'), 0o755);
  await runCli(['config', 'init', '--profile', 'staging', '--va', '1179000899', '--api-key', 'KEY-123456789012'], { home: home.home });
  await runCli(['config', 'init', '--profile', 'prod', '--va', '2220002220', '--api-key', 'KEY-999999999999'], { home: home.home });
  await new AreaCache(join(home.home, '.cache', 'paycli', 'areas')).set(
    'local',
    'http://x/api',
    'areas/province',
    [
      { code: '51', name: 'BALI' },
      { code: '52', name: 'NUSA TENGGARA BARAT' },
    ],
    new Date(),
  );
});
afterAll(() => home.cleanup());

describe('completion scripts', () => {
  for (const shell of SHELLS) {
    it(`${FILES[shell]} is what \`paycli completion ${shell}\` prints (not stale)`, async () => {
      const generated = completionScript(shell, await buildProgram(testContext().ctx, { code: 0 }));
      expect(readFileSync(new URL(`../../${FILES[shell]}`, import.meta.url), 'utf8'), 'run `npm run completions`').toBe(generated);
      const printed = await runCli(['completion', shell]);
      expect(printed.stdout).toBe(generated);
    });
  }

  async function bashComplete(line: string): Promise<string[]> {
    const words = line.split(' ');
    const script = `source ${JSON.stringify(new URL('../../completions/paycli.bash', import.meta.url).pathname)}
COMP_WORDS=(${words.map((w) => JSON.stringify(w)).join(' ')}); COMP_CWORD=${words.length - 1}; _paycli; printf '%s\\n' "\${COMPREPLY[@]}"`;
    const { stdout } = await exec('bash', ['-c', script], { env: { PATH: `${bin}:${process.env.PATH}`, HOME: home.home } });
    return stdout.split('\n').filter(Boolean).sort();
  }

  it('completes commands, subcommands and flags in bash', async () => {
    expect(await bashComplete('paycli ar')).toEqual(['areas']);
    expect(await bashComplete('paycli areas ')).toEqual(['cache', 'city', 'district', 'pick', 'province', 'village']);
    expect(await bashComplete('paycli --json areas c')).toEqual(['cache', 'city']);
    expect(await bashComplete('paycli pay --me')).toEqual(['--method']);
    expect(await bashComplete('paycli sandbox ')).toEqual([
      'cancel',
      'clock',
      'deliver',
      'env',
      'expire',
      'export',
      'fail',
      'health',
      'import',
      'list',
      'logs',
      'pay',
      'refund',
      'release',
      'resend',
      'reset',
      'seed',
      'settle',
      'ship',
    ]);
    expect(await bashComplete('paycli listen --for')).toEqual(['--forward-to']);
  });

  it('completes values: methods, channels of the method on the line, env, format', async () => {
    expect(await bashComplete('paycli pay --method ')).toEqual(['cc', 'cod', 'cstore', 'ewallet', 'paylater', 'qris', 'va']);
    expect(await bashComplete('paycli --env local pay --method va --channel b')).toEqual(['bag', 'bca', 'bmi', 'bni', 'bpd_bali', 'bri', 'bsi', 'btn']);
    expect(await bashComplete('paycli pay --method ewallet --channel ')).toEqual(['dana', 'shopeepay']);
    expect(await bashComplete('paycli --env ')).toEqual(['local', 'production', 'sandbox']);
    expect(await bashComplete('paycli trigger --format ')).toEqual(['both', 'form', 'json']);
  });

  it('completes profile names from the user config and area codes from the cache', async () => {
    expect(await bashComplete('paycli --profile ')).toEqual(['prod', 'staging']);
    expect(await bashComplete('paycli areas city ')).toEqual(['51', '52']);
    expect(await bashComplete('paycli areas city 5')).toEqual(['51', '52']);
  });

  // zsh through its real completion system, driven in a pseudo-terminal (test/helpers/zsh-capture.zsh).
  const haveZsh = spawnSync('zsh', ['--version']).status === 0;
  const inCi = Boolean(process.env.CI);
  it.skipIf(!haveZsh && !inCi)(
    `works in zsh's completion system (bashcompinit), dynamic values included${haveZsh ? '' : ' (skipped: apt-get install zsh)'}`,
    async () => {
      expect(haveZsh, 'zsh is missing: .ci/run installs it').toBe(true);
      const file = new URL('../../completions/_paycli', import.meta.url).pathname;
      const capture = new URL('../helpers/zsh-capture.zsh', import.meta.url).pathname;
      let n = 0;
      const complete = async (line: string) => {
        const out = join(home.home, `zsh-offers-${n++}`);
        const { stdout } = await exec('zsh', ['-f', capture, file, line, out], {
          env: { PATH: `${bin}:${process.env.PATH}`, HOME: home.home },
          timeout: 20_000,
        });
        return stdout.split('\n').filter(Boolean);
      };
      expect(await complete('paycli ar')).toEqual(['areas']);
      expect(await complete('paycli areas ')).toEqual(['cache', 'city', 'district', 'pick', 'province', 'village']);
      expect(await complete('paycli pay --method ')).toEqual(['cc', 'cod', 'cstore', 'ewallet', 'paylater', 'qris', 'va']);
      // These run `paycli __complete`: they need PATH intact inside the completion function.
      expect(await complete('paycli pay --method ewallet --channel ')).toEqual(['dana', 'shopeepay']);
      expect(await complete('paycli --profile ')).toEqual(['prod', 'staging']);
      expect(await complete('paycli areas city ')).toEqual(['51', '52']);
    },
    60_000,
  );

  const haveFish = spawnSync('fish', ['--version']).status === 0;
  it.skipIf(!haveFish && !process.env.CI)(`works in fish${haveFish ? '' : ' (skipped: apt-get install fish)'}`, async () => {
    expect(haveFish, 'fish must be installed in CI (.ci/run installs it)').toBe(true);
    const file = new URL('../../completions/paycli.fish', import.meta.url).pathname;
    const complete = async (line: string) => {
      const { stdout } = await exec('fish', ['-c', `source ${file}; complete -C ${JSON.stringify(line)}`], {
        env: { PATH: `${bin}:${process.env.PATH}`, HOME: home.home },
      });
      return stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split('\t')[0])
        .sort();
    };
    expect(await complete('paycli ar')).toEqual(['areas']);
    expect(await complete('paycli pay --method va --channel b')).toContain('bca');
    expect(await complete('paycli areas city ')).toEqual(['51', '52']);
  });
});
