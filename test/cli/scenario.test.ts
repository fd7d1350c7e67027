import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempHome } from '../helpers/cli.js';
import { allTxns, sandbox } from '../helpers/sandbox.js';
import type { EmulatorHandle } from '../../src/core/sandbox/server.js';

const DIR = join(import.meta.dirname, '../../examples/scenarios');
let home: ReturnType<typeof tempHome>;
beforeAll(() => {
  home = tempHome();
});
afterAll(() => home.cleanup());

const write = (name: string, text: string) => {
  const p = join(home.home, name);
  writeFileSync(p, text);
  return p;
};

describe('paycli scenario run', () => {
  const files = readdirSync(DIR).filter((f) => f.endsWith('.yaml'));

  it('ships at least the five required examples', () => {
    expect(files).toEqual(
      expect.arrayContaining(['va-paid.yaml', 'paid-after-failed-delivery.yaml', 'qris-expired.yaml', 'deferred-settlement.yaml', 'refund-after-paid.yaml']),
    );
  });

  for (const f of files) {
    it(`examples/scenarios/${f} passes, one JUnit case per step`, async () => {
      const junit = join(home.home, `${f}.xml`);
      const r = await runCli(['scenario', 'run', join(DIR, f), '--junit', junit], { home: home.home });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      const steps = (readFileSync(join(DIR, f), 'utf8').match(/^  - /gm) ?? []).length;
      const xml = readFileSync(junit, 'utf8');
      expect((xml.match(/<testcase /g) ?? []).length).toBe(steps);
      expect(xml).toContain('failures="0"');
    }, 60_000);
  }

  it('a failing step exits 6, says why, and the rest are skipped (JUnit: failure and skipped)', async () => {
    const file = write(
      'fail.yaml',
      `name: wrong expectation
receivers:
  shop: {}
steps:
  - id: p
    create: { method: va, channel: bca, notifyUrl: "\${receivers.shop.url}" }
  - expect_status: { trx: "\${p.trx}", status: paid }
  - pay: "\${p.trx}"
`,
    );
    const junit = join(home.home, 'fail.xml');
    const r = await runCli(['scenario', 'run', file, '--junit', junit], { home: home.home });
    expect(r.code).toBe(6);
    expect(r.stderr).toContain('step 2 (expect_status) failed: trx 100001 is pending (0), expected berhasil (paid) (1)');
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toContain('<failure message="trx 100001 is pending (0), expected berhasil (paid) (1)"');
    expect(xml).toContain('<skipped');
  }, 60_000);

  it('unknown keys and undefined references are errors before anything runs (exit 2)', async () => {
    const file = write(
      'bad.yaml',
      `name: typos
steps:
  - id: p
    create: { method: va, channel: bca, notifyUrl: http://127.0.0.1:9/, amout: 5 }
  - pay: "\${p.trxid}"
  - refund: "\${q.trx}"
  - expect_callbak: { trx: 1 }
  - clock: { advance: 25 hours }
`,
    );
    const r = await runCli(['scenario', 'run', file], { home: home.home });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('nothing was run');
    expect(r.stderr).toContain('steps[0].create: unknown key "amout"');
    expect(r.stderr).toContain(`\${p.trxid}: "p" has p.trx`);
    expect(r.stderr).toContain(`\${q.trx} refers to "q", which no earlier step or receiver defines`);
    expect(r.stderr).toContain('steps[3]: unknown key "expect_callbak"');
    expect(r.stderr).toContain('steps[4].clock.advance: invalid duration');
    expect(r.stdout).toBe('');
  });

  describe('--sandbox-url: against a running emulator', () => {
    let sb: EmulatorHandle;
    beforeAll(async () => {
      sb = await sandbox();
    });
    afterAll(() => sb.close());
    it('runs the steps there (the transactions stay in that emulator)', async () => {
      const r = await runCli(['scenario', 'run', join(DIR, 'refund-after-paid.yaml'), '--sandbox-url', sb.url, '--json'], {
        home: home.home,
        env: { PAYCLI_VA: sb.accounts[0]!.va, PAYCLI_API_KEY: sb.accounts[0]!.apiKey! },
      });
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ ok: true });
      expect(allTxns(sb.state).map((t) => t.status)).toEqual(['refund']);
    }, 60_000);
  });
});
