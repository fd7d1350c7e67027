import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { childEnv } from '../../src/cli/child-env.js';
import { REDIRECT_KAOS } from '../helpers/argv.js';
import { runCli, tempHome } from '../helpers/cli.js';
import { EMULATOR_DEFAULT_API_KEY, EMULATOR_DEFAULT_VA, localEnv, sandbox } from '../helpers/sandbox.js';

// Issue 13 items 13/17, the same class as doctor's git: a program paycli starts that is not
// paycli (the URL opener of `pay --redirect --open`) gets no PAYCLI_* variable and no secret.

describe('childEnv', () => {
  it('drops PAYCLI_* and any value holding a secret', () => {
    const env = { PATH: '/bin', HOME: '/h', PAYCLI_API_KEY: 'k3y-0123456789', paycli_va: '1179000899', APP_SECRET: 'x-k3y-0123456789-x', DISPLAY: ':0' };
    expect(childEnv(env, ['k3y-0123456789', '1179000899'])).toEqual({ PATH: '/bin', HOME: '/h', DISPLAY: ':0' });
  });
});

describe.skipIf(process.platform !== 'linux')('pay --redirect --open', () => {
  it("starts the opener without the API key or VA in its environment, and only with the gateway's http(s) page", async () => {
    const sb = await sandbox();
    const h = tempHome();
    try {
      const bin = join(h.home, 'bin');
      mkdirSync(bin);
      const seen = join(h.home, 'opener.txt');
      writeFileSync(join(bin, 'xdg-open'), `#!/bin/sh\n{ printf 'ARG=%s\\n' "$@"; env; } > '${seen}'\n`);
      chmodSync(join(bin, 'xdg-open'), 0o755);
      const env = localEnv(sb, {
        PATH: `${bin}:${process.env.PATH}`,
        DISPLAY: ':0',
        PAYCLI_VA: EMULATOR_DEFAULT_VA,
        PAYCLI_API_KEY: EMULATOR_DEFAULT_API_KEY,
        SHOP_KEY: EMULATOR_DEFAULT_API_KEY,
      });
      const r = await runCli(['pay', '--redirect', '--open', ...REDIRECT_KAOS], { home: h.home, env });
      expect(r.code, r.stderr).toBe(0);
      const until = Date.now() + 5000;
      while (!existsSync(seen) && Date.now() < until) await new Promise((res) => setTimeout(res, 20));
      await new Promise((res) => setTimeout(res, 100)); // the script finishes writing
      const text = readFileSync(seen, 'utf8');
      expect(text).toMatch(/^ARG=http:\/\/127\.0\.0\.1:\d+\//m);
      expect(text).toContain('DISPLAY=:0');
      expect(text).not.toContain(EMULATOR_DEFAULT_API_KEY);
      expect(text).not.toContain(EMULATOR_DEFAULT_VA);
      expect(text).not.toMatch(/^PAYCLI_/m);
    } finally {
      h.cleanup();
      await sb.close();
    }
  });
});
