// `sandbox seed|export|import|reset|list` on a stopped data dir and through a running emulator:
// the PAYCLI_SANDBOX_* variables, the emulator's own clock and merchant, the ids an export carries,
// the status filter, the seeded share.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { request } from 'undici';
import { buildSignedRequest } from '../../src/core/api/signed-request.js';
import type { EmulatorHandle } from '../../src/core/sandbox/server.js';
import { runCli, type RunResult } from '../helpers/cli.js';
import { allTxns, EMULATOR_DEFAULT_VA, sandbox } from '../helpers/sandbox.js';
import { afterEachTest } from '../helpers/cleanups.js';

const DAY = 86_400_000;
const { tempDir, started } = afterEachTest('paycli-ledger-cli-');

/** paycli in-process with HOME (hence the default data dir) in `home`. */
const cli = (home: string, argv: string[], env: Record<string, string> = {}): Promise<RunResult> => runCli(argv, { home, env: { HOME: home, ...env } });

/** The records of an export (one JSON object a line). */
const records = (r: RunResult) =>
  r.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { t: string; txn?: { id: number; status: string; merchantVa: string; createdAt: number } });
const payments = (r: RunResult) => records(r).filter((x) => x.t === 'payment');

describe('the PAYCLI_SANDBOX_* variables reach seed, export, import and reset', () => {
  it('PAYCLI_SANDBOX_DATA_DIR names the stopped data dir; the default one is left alone', async () => {
    const home = tempDir();
    const ci = join(home, 'ci-data');
    expect((await cli(home, ['sandbox', 'seed', '--payments', '3'])).code).toBe(0); // the default data dir
    const env = { PAYCLI_SANDBOX_DATA_DIR: ci };
    const seeded = await cli(home, ['sandbox', 'seed', '--payments', '5', '--json'], env);
    expect(seeded.code, seeded.stderr).toBe(0);
    expect(JSON.parse(seeded.stdout)).toMatchObject({ seeded: 5, where: ci });
    const exported = await cli(home, ['sandbox', 'export'], env);
    expect(payments(exported)).toHaveLength(5);
    const file = join(home, 'e.jsonl');
    writeFileSync(file, exported.stdout);
    const reset = await cli(home, ['sandbox', 'reset', '--yes', '--json'], env);
    expect(reset.code, reset.stderr).toBe(0);
    expect(JSON.parse(reset.stdout)).toMatchObject({ removed: 5, where: ci });
    // The default ledger still holds its 3.
    expect(payments(await cli(home, ['sandbox', 'export']))).toHaveLength(3);
    const imported = await cli(home, ['sandbox', 'import', file, '--json'], env);
    expect(imported.code, imported.stderr).toBe(0);
    expect(JSON.parse(imported.stdout)).toMatchObject({ payments: 5 });
    expect(payments(await cli(home, ['sandbox', 'export'], env))).toHaveLength(5);
    // A flag wins over the variable.
    expect(payments(await cli(home, ['sandbox', 'export', '--data-dir', join(home, '.local/share/paycli/sandbox')], env))).toHaveLength(3);
  });

  it('PAYCLI_SANDBOX_URL (as `eval "$(paycli sandbox env)"` sets it) sends them to the running emulator', async () => {
    const home = tempDir();
    const dir = join(home, 'running');
    const sb = await started({ dataDir: dir });
    const env = { PAYCLI_SANDBOX_URL: sb.url };
    const seeded = await cli(home, ['sandbox', 'seed', '--payments', '4', '--json'], env);
    expect(seeded.code, seeded.stderr).toBe(0);
    expect(JSON.parse(seeded.stdout)).toMatchObject({ seeded: 4, where: sb.url });
    expect(sb.state.count()).toBe(4);
    const exported = await cli(home, ['sandbox', 'export'], env);
    expect(exported.code, exported.stderr).toBe(0);
    expect(payments(exported)).toHaveLength(4);
    const reset = await cli(home, ['sandbox', 'reset', '--yes'], env);
    expect(reset.code, reset.stderr).toBe(0);
    expect(sb.state.count()).toBe(0);
  });

  it('refuses to guess between a running emulator and a data dir (exit 2, one line)', async () => {
    const home = tempDir();
    const both = { PAYCLI_SANDBOX_URL: 'http://127.0.0.1:9', PAYCLI_SANDBOX_DATA_DIR: join(home, 'd') };
    for (const argv of [
      ['sandbox', 'reset', '--yes'],
      ['sandbox', 'export'],
      ['sandbox', 'seed', '--payments', '1'],
    ]) {
      const r = await cli(home, argv, both);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/^error: both PAYCLI_SANDBOX_URL and PAYCLI_SANDBOX_DATA_DIR are set: say which ledger with --sandbox-url or --data-dir\n/);
    }
    // A flag says which.
    expect((await cli(home, ['sandbox', 'seed', '--payments', '1', '--data-dir', join(home, 'd')], both)).code).toBe(0);
    const flags = await cli(home, ['sandbox', 'export', '--data-dir', join(home, 'd'), '--sandbox-url', 'http://127.0.0.1:9']);
    expect(flags.code).toBe(2);
    expect(flags.stderr).toMatch(/--sandbox-url and --data-dir exclude each other/);
  });
});

/** A direct VA payment signed for `va`/`apiKey`: its TransactionId. */
async function pay(sb: EmulatorHandle, va: string, apiKey: string): Promise<number> {
  const body = JSON.stringify({
    name: 'Putu',
    phone: '08123456789',
    email: 'putu@mail.com',
    amount: 10_000,
    notifyUrl: 'http://127.0.0.1:9/cb',
    referenceId: 'R-1',
    paymentMethod: 'va',
    paymentChannel: 'bca',
  });
  const req = buildSignedRequest({ baseUrl: sb.apiUrl, path: 'v2/payment/direct', method: 'POST', body, credentials: { va, apiKey }, now: new Date() });
  const res = await request(req.url, { method: 'POST', headers: req.headers, body });
  const json = (await res.body.json()) as { Data: { TransactionId: number } };
  expect(res.statusCode).toBe(200);
  return json.Data.TransactionId;
}

describe("seeding a stopped data dir uses the emulator's clock and merchant", () => {
  it('after `clock advance 720h`, recent pending payments stay pending when the emulator starts; they are for the merchant it served', async () => {
    const home = tempDir();
    const dir = join(home, 'data');
    const va = '1234567890';
    let sb = await sandbox({ dataDir: dir, va, apiKey: 'MY-OWN-KEY' });
    await pay(sb, va, 'MY-OWN-KEY');
    expect((await sb.advanceClock(720 * 3_600_000)).ok).toBe(true);
    await sb.close();

    const seeded = await cli(home, ['sandbox', 'seed', '--payments', '20', '--paid', '0', '--days', '1', '--data-dir', dir]);
    expect(seeded.code, seeded.stderr).toBe(0);
    sb = await started({ dataDir: dir, va, apiKey: 'MY-OWN-KEY' });
    const now = sb.clock.nowMs();
    expect(await sb.expireDue()).toBe(0);
    const seededTxns = allTxns(sb.state).slice(1);
    expect(seededTxns).toHaveLength(20);
    for (const t of seededTxns) {
      expect(t.status).toBe('pending');
      expect(t.createdAt).toBeGreaterThan(now - DAY - 60_000);
      expect(t.merchantVa).toBe(va);
    }
  });

  it('without a transaction to go by: --va, else PAYCLI_SANDBOX_VA, else the default merchant; --va wins over the ledger', async () => {
    const home = tempDir();
    const seed = async (dir: string, extra: string[], env: Record<string, string> = {}) => {
      const r = await cli(home, ['sandbox', 'seed', '--payments', '2', '--data-dir', join(home, dir), ...extra], env);
      expect(r.code, r.stderr).toBe(0);
      return payments(await cli(home, ['sandbox', 'export', '--data-dir', join(home, dir)])).map((p) => p.txn!.merchantVa);
    };
    expect(await seed('a', [])).toEqual([EMULATOR_DEFAULT_VA, EMULATOR_DEFAULT_VA]);
    expect(await seed('b', [], { PAYCLI_SANDBOX_VA: '5550001111' })).toEqual(['5550001111', '5550001111']);
    // The ledger now knows 5550001111: the variable no longer matters, --va still does.
    expect(await seed('b', [], { PAYCLI_SANDBOX_VA: '7777777777' })).toEqual(Array(4).fill('5550001111'));
    expect((await seed('b', ['--va', '8888888888'])).slice(4)).toEqual(['8888888888', '8888888888']);
    const bad = await cli(home, ['sandbox', 'seed', '--payments', '1', '--data-dir', join(home, 'c'), '--va', 'SANDBOX-KEY-abc']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^error: invalid --va: expected a virtual account number \(4 to 32 digits\)\n/);
    expect(bad.stderr).not.toContain('SANDBOX-KEY-abc');
  });
});

describe('an import into a ledger that is not empty', () => {
  it('a ledger with only a redirect session is refused with exit 2, unchanged', async () => {
    const home = tempDir();
    const dir = join(home, 'data');
    const sb = await sandbox({ dataDir: dir });
    const r = await sb.merchant.createRedirect(EMULATOR_DEFAULT_VA, { product: ['Kaos'], qty: [1], price: [50_000], notifyUrl: 'http://127.0.0.1:9/cb' });
    expect(r.ok).toBe(true);
    await sb.close();
    const exported = await cli(home, ['sandbox', 'export', '--data-dir', dir]);
    expect(records(exported).map((x) => x.t)).toContain('session');
    const file = join(home, 'e.jsonl');
    writeFileSync(file, exported.stdout);
    const imported = await cli(home, ['sandbox', 'import', file, '--data-dir', dir]);
    expect(imported.code).toBe(2);
    expect(imported.stderr).toBe(
      `error: the emulator ledger ${join(dir, 'ledger.db')} is not empty: it holds 1 session\nhint: empty it first with \`paycli sandbox reset\`\n`,
    );
    expect((await cli(home, ['sandbox', 'export', '--data-dir', dir])).stdout).toBe(exported.stdout);
  });
});

describe('an export carries the ids: none is handed out twice after an import', () => {
  it('reset, export, import into a fresh data dir: the next payment and callback go on above the old ones', async () => {
    const home = tempDir();
    const [a, b] = [join(home, 'a'), join(home, 'b')];
    expect((await cli(home, ['sandbox', 'seed', '--payments', '30', '--paid', '1', '--data-dir', a])).code).toBe(0);
    const before = records(await cli(home, ['sandbox', 'export', '--data-dir', a]));
    expect(before.filter((x) => x.t === 'payment').at(-1)!.txn!.id).toBe(100_030);
    expect((await cli(home, ['sandbox', 'reset', '--yes', '--data-dir', a])).code).toBe(0);
    const exported = await cli(home, ['sandbox', 'export', '--data-dir', a]);
    expect(records(exported)).toEqual([
      { t: 'ids', upTo: 100_031, callbacksUpTo: 31, membersUpTo: 1 },
      { t: 'clock', offsetMs: 0 },
    ]);
    const file = join(home, 'e.jsonl');
    writeFileSync(file, exported.stdout);
    expect((await cli(home, ['sandbox', 'import', file, '--data-dir', b])).code).toBe(0);
    expect((await cli(home, ['sandbox', 'seed', '--payments', '1', '--paid', '1', '--data-dir', b])).code).toBe(0);
    const sb = await sandbox({ dataDir: b });
    try {
      const [t] = allTxns(sb.state);
      expect(t!.id).toBe(100_031);
      expect(t!.paymentNo).toMatch(/100031$/);
      expect(sb.state.deliveriesOf(t!.id).map((d) => d.id)).toEqual(['cb-31']);
    } finally {
      await sb.close(); // before the reset below (the data dir is one emulator's at a time)
    }
    // An import never lowers a counter: the older file's ids are below the ledger's now.
    expect((await cli(home, ['sandbox', 'reset', '--yes', '--data-dir', b])).code).toBe(0);
    expect((await cli(home, ['sandbox', 'import', file, '--data-dir', b])).code).toBe(0);
    expect(records(await cli(home, ['sandbox', 'export', '--data-dir', b]))[0]).toEqual({ t: 'ids', upTo: 100_032, callbacksUpTo: 32, membersUpTo: 1 });
  });

  it("an older journal's ids line (upTo only) is still read", async () => {
    const home = tempDir();
    const file = join(home, 'journal.jsonl');
    writeFileSync(file, '{"t":"ids","upTo":101001}\n');
    expect((await cli(home, ['sandbox', 'import', file, '--data-dir', join(home, 'd')])).code).toBe(0);
    expect(records(await cli(home, ['sandbox', 'export', '--data-dir', join(home, 'd')]))[0]).toEqual({
      t: 'ids',
      upTo: 101_001,
      callbacksUpTo: 1,
      membersUpTo: 1,
    });
  });
});

describe('sandbox list --status', () => {
  it('reads a status as history does (word, gloss, any case, code) and refuses another with exit 2', async () => {
    const home = tempDir();
    const sb = await started();
    const url = ['--sandbox-url', sb.url];
    expect((await cli(home, ['sandbox', 'seed', '--payments', '40', '--days', '1', ...url])).code).toBe(0);
    const paid = sb.state.count({ status: 'berhasil' });
    const pending = sb.state.count({ status: 'pending' });
    expect(paid).toBeGreaterThan(0);
    expect(pending).toBeGreaterThan(0);
    for (const [word, status, n] of [
      ['paid', 'berhasil', paid],
      ['berhasil', 'berhasil', paid],
      ['1', 'berhasil', paid],
      ['PENDING', 'pending', pending],
    ] as const) {
      const r = await cli(home, ['sandbox', 'list', '--status', word, '--json', ...url]);
      expect(r.code, word).toBe(0);
      const rows = JSON.parse(r.stdout) as { status: string }[];
      expect(rows, word).toHaveLength(n);
      for (const row of rows) expect(row.status).toBe(status);
    }
    const none = await cli(home, ['sandbox', 'list', '--status', 'refunded', ...url]);
    expect(none.code).toBe(0);
    expect(none.stderr).toBe('no refund (refunded) transactions\n');
    const bad = await cli(home, ['sandbox', 'list', '--status', 'bogus', ...url]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^error: invalid --status "bogus" \(pending, berhasil\|paid, /);
    // The admin API refuses it too, as history does.
    const res = await request(`${sb.url}/_sandbox/transactions?status=bogus`);
    expect(res.statusCode).toBe(400);
    expect(((await res.body.json()) as { error: string }).error).toMatch(/^invalid status "bogus"/);
    expect((await request(`${sb.url}/_sandbox/transactions?status=Paid`).then((r) => r.body.json())) as { total: number }).toMatchObject({ total: paid });
  });
});

describe('sandbox seed --paid is the share paid', () => {
  it('exactly round(N × share) paid, on a data dir and through a running emulator, and the summary says so', async () => {
    const home = tempDir();
    for (const [n, share, expected] of [
      ['10', '0.7', 7],
      ['3', '0.5', 2],
      ['7', '0', 0],
      ['7', '1', 7],
      ['1000', '0.333', 333],
    ] as const) {
      const dir = join(home, `d-${n}-${share}`);
      const r = await cli(home, ['sandbox', 'seed', '--payments', n, '--paid', share, '--data-dir', dir]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^seeded ${n} payments \\(${expected} paid, over 90 days\\) into `));
      const statuses = payments(await cli(home, ['sandbox', 'export', '--data-dir', dir])).map((p) => p.txn!.status);
      expect(
        statuses.filter((s) => s === 'berhasil'),
        `${n} × ${share}`,
      ).toHaveLength(expected);
    }
    const sb = await started();
    const json = await cli(home, ['sandbox', 'seed', '--payments', '10', '--paid', '0.7', '--json', '--sandbox-url', sb.url]);
    expect(JSON.parse(json.stdout)).toMatchObject({ seeded: 10, paid: 7 });
    expect(sb.state.count({ status: 'berhasil' })).toBe(7);
  });
});
