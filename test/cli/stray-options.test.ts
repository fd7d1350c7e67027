import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { sandboxAndHome } from '../helpers/sandbox.js';

// Issue 26 item 16: `paycli sandbox list --port 4020` was accepted and listed the emulator on 4010.
// An option of `paycli sandbox` (the server) does nothing for its subcommands: a usage error, and for
// --port a hint to aim at the running emulator with --sandbox-url.

const fx = sandboxAndHome();

describe('options of a parent command given to a subcommand', () => {
  it('--port on sandbox list/pay/expire/resend/env/health is exit 2 with a --sandbox-url hint, before or after the subcommand', async () => {
    for (const argv of [
      ['sandbox', 'list', '--port', '4020'],
      ['sandbox', '--port', '4020', 'list'],
      ['sandbox', 'pay', '100001', '--port', '4020'],
      ['sandbox', 'expire', '100001', '--port=4020'],
      ['sandbox', 'resend', '100001', '--port', '4020'],
      ['sandbox', 'env', '--port', '4020'],
      ['sandbox', 'health', '--port', '4020'],
    ]) {
      const r = await runCli(argv, { home: fx.home.home, env: { PAYCLI_SANDBOX_URL: fx.sb.url } });
      expect(r.code, argv.join(' ')).toBe(2);
      const [error, hint] = r.stderr.trim().split('\n');
      expect(error).toBe(`error: --port does nothing for \`paycli sandbox ${argv[1] === '--port' ? 'list' : argv[1]}\`: it is an option of \`paycli sandbox\``);
      expect(hint).toBe('hint: to reach the emulator listening on port 4020, pass --sandbox-url http://127.0.0.1:4020 (or set PAYCLI_SANDBOX_URL)');
      expect(r.stdout).toBe('');
    }
    const json = await runCli(['sandbox', 'list', '--port', '4020', '--json'], { home: fx.home.home });
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stderr).error).toMatchObject({ code: 'ERR_USAGE', kind: 'usage', exitCode: 2 });
  });

  it("the server's other options are refused the same way", async () => {
    for (const [flag, ...value] of [
      ['--in-memory'],
      ['--no-dashboard'],
      ['--host', '0.0.0.0'],
      ['--data-dir', '/tmp/x'],
      ['--faults', 'duplicate'],
      ['--settlement', 'deferred'],
    ] as const) {
      const r = await runCli(['sandbox', 'list', flag, ...value], { home: fx.home.home, env: { PAYCLI_SANDBOX_URL: fx.sb.url } });
      expect(r.code, flag).toBe(2);
      expect(r.stderr).toContain(`error: ${flag} does nothing for \`paycli sandbox list\`: it is an option of \`paycli sandbox\``);
      expect(r.stderr).toContain('hint: ');
    }
  });

  it('the subcommands still work with their own options and the global ones', async () => {
    const r = await runCli(['sandbox', 'list', '--sandbox-url', fx.sb.url, '--json'], { home: fx.home.home });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(expect.any(Array));
  });
});
