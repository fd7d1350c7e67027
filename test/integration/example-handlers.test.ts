import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxHandle } from '../../src/core/sandbox/server.js';
import { runCli, tempHome } from '../helpers/cli.js';
import { startExampleApp } from '../helpers/handlers.js';
import { EMULATOR_DEFAULT_API_KEY, EMULATOR_DEFAULT_VA, localEnv, sandbox } from '../helpers/sandbox.js';

/**
 * examples/handlers/ against the full `test-handler --order-url … --strict`: every check passes for
 * each handler as shipped, and each check fails for a variant with the one bug it is there to catch
 * (HANDLER_BUG), so no check passes whatever the handler does.
 */
interface Report {
  passed: boolean;
  effectsSeen: boolean;
  total: number;
  checks: { name: string; passed: boolean; observation: string; unobserved?: string }[];
}

let sb: SandboxHandle;
let home: ReturnType<typeof tempHome>;
beforeAll(async () => {
  sb = await sandbox();
  home = tempHome();
});
afterAll(async () => {
  await sb.close();
  home.cleanup();
});

async function suite(kind: 'php' | 'laravel' | 'express', bug: string, strict = true, extra: string[] = []): Promise<{ code: number; report: Report; stderr: string }> {
  const app = await startExampleApp(kind, { IPAYMU_VA: EMULATOR_DEFAULT_VA, IPAYMU_API_KEY: EMULATOR_DEFAULT_API_KEY, IPAYMU_BASE_URL: sb.apiUrl, HANDLER_BUG: bug });
  try {
    const argv = ['test-handler', `${app.base}/ipaymu/callback`, '--order-url', `${app.base}/orders/{reference_id}`, '--create-order-url', `${app.base}/test/orders`, '--format', 'form', '--deadline', '30s', '--json', ...(strict ? ['--strict'] : []), ...extra];
    const r = await runCli(argv, { env: localEnv(sb), home: home.home });
    return { code: r.code, report: JSON.parse(r.stdout) as Report, stderr: r.stderr };
  } finally {
    await app.stop();
  }
}

const failedNames = (r: Report) => r.checks.filter((c) => !c.passed).map((c) => c.name);

/** Each deliberate bug, the checks that must catch it, and whether the run is --strict. */
const BUGS: [bug: string, caughtBy: string[], strict: boolean][] = [
  // With --strict the gateway's record stops a forged callback even when the signature is not checked.
  ['no-confirm,no-signature-check', ['forged: tampered amount does not fulfil', 'forged: no signature does not fulfil', 'forged: signed with the API key does not fulfil', 'forged: unescaped "/" signature does not fulfil'], false],
  ['json-stringify', ['accents, emoji, / & + quotes: paid once'], true],
  // php -S hands copies to its workers unevenly: 16 copies make sure some run at once.
  ['no-lock', ['16 copies at once: all 200, paid once'], true],
  ['replay-after-refund', ['paid replayed after a refund: not fulfilled again'], true],
  ['no-idempotency', ['the same callback again: still paid once', '5 copies at once: all 200, paid once'], true],
  ['downgrade', ['out of order: expired after paid keeps it paid', 'out of order: pending after paid keeps it paid'], true],
  ['no-amount-check', ['signed, amount differs from the order: not paid'], true],
  ['six-is-refund', ['status 6 (paid, settled later) counts as paid'], true],
  ['seven-is-expired', ['status 7 (escrow) counts as paid'], true],
  ['any-status-paid', ['status 2 (cancelled) does not count as paid', 'status 3 (refund) does not count as paid', 'status 4 (error) does not count as paid', 'status 5 (failed) does not count as paid', 'pending callback does not mark it paid'], true],
  ['no-confirm', ['confirms through check transaction (strict)', 'signed, paid, but not paid at the gateway: not paid', 'confirms an unconfirmed paid callback (strict)'], true],
  // Without --strict a handler that skips the gateway must still refuse orders it never created.
  ['no-confirm,create-unknown', ['a trx the merchant never created: not paid'], false],
];

describe('README', () => {
  it('shows the PHP handler\'s routes verbatim (examples/handlers/php/index.php)', () => {
    const root = new URL('../../', import.meta.url);
    const php = readFileSync(new URL('examples/handlers/php/index.php', root), 'utf8');
    expect(readFileSync(new URL('README.md', root), 'utf8')).toContain('```php\n' + php + '```');
  });
});

for (const kind of ['php', 'laravel', 'express'] as const) {
  describe(`examples/handlers/${kind}`, () => {
    it('passes every check of test-handler --order-url --strict, each effect seen', async () => {
      const { code, report, stderr } = await suite(kind, '');
      expect(failedNames(report), stderr).toEqual([]);
      expect(code).toBe(0);
      expect(report.effectsSeen).toBe(true);
      expect(report.checks.map((c) => c.name)).toEqual(expect.arrayContaining(BUGS.flatMap(([, names]) => names).map((n) => n.replace(/^16 copies/, '5 copies'))));
      const unstrict = await suite(kind, 'no-confirm', false);
      expect(failedNames(unstrict.report), unstrict.stderr).toEqual([]);
    });

    for (const [bug, caughtBy, strict] of BUGS) {
      it(`a variant with the bug "${bug}" fails ${caughtBy.join('; ')}`, async () => {
        const { code, report } = await suite(kind, bug, strict, bug === 'no-lock' ? ['--copies', '16'] : []);
        const seen = JSON.stringify(report.checks.filter((c) => !c.passed || caughtBy.includes(c.name)).map((c) => [c.name, c.observation]));
        expect(code, seen).toBe(6);
        expect(failedNames(report), seen).toEqual(expect.arrayContaining(caughtBy));
      });
    }
  });
}
