import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatorHandle } from '../../src/core/sandbox/server.js';
import { receiver } from '../helpers/receiver.js';
import { payVa } from '../helpers/argv.js';
import { runCli, tempHome } from '../helpers/cli.js';
import { sandbox } from '../helpers/sandbox.js';

// Issue 13 item 18: the VA (the callback signing secret) never appears whole in human output,
// the same masking style (maskSecret) everywhere; `--json` results keep it only where it is the
// data asked for (balance --json).

const VA = '7770007771';
const SECRET = 'MERCHANT-OWN-KEY-0123456789abcdef';
let sb: EmulatorHandle;
const home = tempHome();
beforeAll(async () => {
  sb = await sandbox({ va: VA, apiKey: SECRET });
});
afterAll(async () => {
  await sb.close();
  home.cleanup();
});

describe('the VA in human output', () => {
  it('is masked across the API commands, their --dry-run and --curl, and the config commands', async () => {
    const env = { PAYCLI_ENV: 'local', PAYCLI_BASE_URL: sb.apiUrl, PAYCLI_VA: VA, PAYCLI_API_KEY: SECRET };
    const rx = await receiver([200]);
    try {
      const pay = [...payVa(), '--item', 'A:1:1000', '--notify-url', rx.url];
      const made = await runCli([...pay, '--json'], { env, home: home.home });
      expect(made.code, made.stderr).toBe(0);
      const id = String(JSON.parse(made.stdout).TransactionId);
      const runs: string[][] = [
        pay,
        [...pay, '--dry-run'],
        [...pay, '--curl'],
        ['balance'],
        ['balance', '--dry-run'],
        ['balance', '--curl'],
        ['balance', '--dry-run', '--json'],
        ['history'],
        ['history', '--dry-run'],
        ['transaction', id],
        ['transaction', id, '--dry-run'],
        ['channels'],
        ['areas', 'province', '--dry-run'],
        ['whoami'],
        ['config', 'list', '--show-origin'],
        ['doctor', '--offline'],
      ];
      for (const argv of runs) {
        const r = await runCli(argv, { env, home: home.home });
        expect(r.stdout + r.stderr, argv.join(' ')).not.toContain(VA);
        expect(r.stdout + r.stderr, argv.join(' ')).not.toContain(SECRET);
      }
      // The answer itself carries the VA: --json keeps it, so the sweep above could have seen it.
      expect(JSON.parse((await runCli(['balance', '--json'], { env, home: home.home })).stdout).va).toBe(VA);
    } finally {
      await rx.close();
    }
  });
});
