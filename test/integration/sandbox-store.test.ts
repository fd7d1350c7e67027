// The emulator's ledger on SQLite (issue 23): the import of a data dir written by the JSONL
// release, paging that holds while statuses change, seed/export/import/reset, files and symlinks,
// ids never reused.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, lstatSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { request } from 'undici';
import { buildSignedRequest } from '../../src/core/api/signed-request.js';
import { openDataDir } from '../../src/core/sandbox/datadir.js';
import { migrateOlderJournal } from '../../src/core/sandbox/ledger-migrate.js';
import { SandboxState, StoreError } from '../../src/core/sandbox/state.js';
import type { EmulatorHandle } from '../../src/core/sandbox/server.js';
import { runCli } from '../helpers/cli.js';
import { allDeliveries, allTxns, EMULATOR_DEFAULT_API_KEY as KEY, EMULATOR_DEFAULT_VA as VA, createDirectVa, sandbox } from '../helpers/sandbox.js';
import { afterEachTest } from '../helpers/cleanups.js';

const FIXTURE = new URL('../fixtures/sandbox-0.1/', import.meta.url).pathname;
const { tempDir, started, later } = afterEachTest();

async function api(
  sb: EmulatorHandle,
  path: string,
  body: Record<string, unknown>,
): Promise<{ status: number; json: { Data: Record<string, unknown> & { Pagination?: Record<string, unknown>; Transaction?: Record<string, unknown>[] } } }> {
  const text = JSON.stringify(body);
  const req = buildSignedRequest({ baseUrl: sb.apiUrl, path, method: 'POST', body: text, credentials: { va: VA, apiKey: KEY }, now: new Date() });
  const res = await request(req.url, { method: 'POST', headers: req.headers, body: text });
  return { status: res.statusCode, json: (await res.body.json()) as never };
}

const create = (sb: EmulatorHandle, n: number) => createDirectVa(sb, n);

describe('a data dir written by the JSONL release (test/fixtures/sandbox-0.1)', () => {
  const copy = () => {
    const dir = tempDir('paycli-migrate-');
    cpSync(FIXTURE, dir, { recursive: true });
    return dir;
  };

  it('is imported once, whole, and the journal is kept beside the ledger as journal.jsonl.migrated', async () => {
    const dir = copy();
    let sb = await sandbox({ dataDir: dir });
    expect(sb.startup).toMatchObject({ migrated: 6, skippedLines: 0, reconciled: 0 });
    expect(existsSync(join(dir, 'journal.jsonl'))).toBe(false);
    expect(readFileSync(join(dir, 'journal.jsonl.migrated'), 'utf8')).toBe(readFileSync(join(FIXTURE, 'journal.jsonl'), 'utf8'));
    expect(existsSync(join(dir, 'redirects.jsonl.migrated'))).toBe(true);
    // The payments, their statuses and references as the old emulator left them.
    expect(allTxns(sb.state).map((t) => [t.id, t.status, t.referenceId])).toEqual([
      [100_001, 'berhasil', 'FX-0'],
      [100_002, 'berhasil', 'FX-1'],
      [100_003, 'expired', 'FX-2'],
      [100_004, 'berhasil', 'FX-3'],
      [100_005, 'pending', 'FX-4'],
      [100_006, 'pending', 'FX-5'],
    ]);
    expect(sb.state.get(100_001)!.paidAt).toBeGreaterThan(0);
    expect(sb.state.find('8868000000100001')!.id).toBe(100_001);
    // The callbacks with their ids, outcomes and every attempt (the 500 then the 200, with what was sent).
    expect(allDeliveries(sb.state).map((d) => [d.id, d.trxId, d.status, d.state, d.attempts])).toEqual([
      ['cb-1', 100_001, 'berhasil', 'delivered', 1],
      ['cb-2', 100_002, 'berhasil', 'delivered', 1],
      ['cb-3', 100_003, 'expired', 'delivered', 2],
      ['cb-4', 100_004, 'berhasil', 'delivered', 1],
      ['cb-5', 100_001, 'berhasil', 'delivered', 2],
    ]);
    const attempts = sb.state.attemptsOf('cb-3');
    expect(attempts.map((a) => a.detail!.httpStatus)).toEqual([500, 200]);
    expect(attempts[0]!.detail!.headers['X-Signature']).toMatch(/^[0-9a-f]{64}$/);
    // The redirect session and its page.
    const sid = (JSON.parse(readFileSync(join(FIXTURE, 'redirects.jsonl'), 'utf8')) as { s: { sid: string } }).s.sid;
    expect(sb.merchant.session(sid)).toMatchObject({ referenceId: 'FX-R', amount: 10_000 });
    expect((await request(`${sb.url}/payment/${sid}`)).statusCode).toBe(200);
    // Ids reserved by the old journal (up to 101 000) are never handed out; callbacks go on after cb-5.
    const id = await create(sb, 1);
    expect(id).toBeGreaterThanOrEqual(101_001);
    expect((await sb.pay(String(id))).ok).toBe(true);
    expect(sb.state.deliveriesOf(id)[0]!.id).toBe('cb-6');
    await sb.close();
    // The next start imports nothing and finds everything.
    sb = await started({ dataDir: dir });
    expect(sb.startup.migrated).toBeUndefined();
    expect(sb.state.count()).toBe(7);
  });

  it('a crash between the import and the rename does not import twice', async () => {
    const dir = copy();
    const sb = await sandbox({ dataDir: dir });
    await sb.close();
    // As if the process died after the commit, before the rename.
    cpSync(join(FIXTURE, 'journal.jsonl'), join(dir, 'journal.jsonl'));
    const again = await started({ dataDir: dir });
    expect(again.state.count()).toBe(6);
    expect(existsSync(join(dir, 'journal.jsonl'))).toBe(false);
  });

  it('an import that fails half-way stores nothing and keeps the journal where it was', async () => {
    const dir = copy();
    const state = await SandboxState.open(dir);
    later(() => state.close());
    // The third callback cannot be written (as on a full disk): the transaction rolls back whole.
    state.db.exec(`CREATE TEMP TRIGGER refuse BEFORE INSERT ON deliveries WHEN new.seq = 3 BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END`);
    await expect(migrateOlderJournal(state, dir)).rejects.toBeInstanceOf(StoreError);
    expect(state.count()).toBe(0);
    expect(state.sessions()).toEqual([]);
    expect(existsSync(join(dir, 'journal.jsonl'))).toBe(true);
    state.db.exec('DROP TRIGGER temp.refuse');
    expect(await migrateOlderJournal(state, dir)).toEqual({ imported: 6, skipped: 0 });
  });

  it('a torn last line (a crash of the old release) is skipped and counted', async () => {
    const dir = copy();
    writeFileSync(join(dir, 'journal.jsonl'), readFileSync(join(dir, 'journal.jsonl'), 'utf8') + '{"t":"status","id":100005,"sta');
    const sb = await started({ dataDir: dir });
    expect(sb.startup).toMatchObject({ migrated: 6, skippedLines: 1 });
    expect(sb.state.get(100_005)!.status).toBe('pending');
  });
});

describe('paging by a stable key while statuses change', () => {
  it('sandbox list (admin API): every payment pending throughout is listed once, none twice, while others are paid between pages', async () => {
    const sb = await started();
    const ids: number[] = [];
    for (let n = 0; n < 30; n++) ids.push(await create(sb, n));
    const listed: number[] = [];
    const paidDuring = new Set<number>();
    let after = '';
    for (let page = 0; page < 20; page++) {
      const res = await request(`${sb.url}/_sandbox/transactions?limit=4&status=pending${after ? `&after=${after}` : ''}`);
      const json = (await res.body.json()) as { transactions: { id: number }[]; next: string | null };
      listed.push(...json.transactions.map((t) => t.id));
      // Between pages: pay one already listed and one not listed yet (newest first: the lowest id).
      for (const id of [json.transactions[0]?.id, ids.find((i) => !listed.includes(i) && !paidDuring.has(i))]) {
        if (id !== undefined && !paidDuring.has(id)) {
          expect((await sb.pay(String(id))).ok).toBe(true);
          paidDuring.add(id);
        }
      }
      if (!json.next) break;
      after = json.next;
    }
    expect(new Set(listed).size).toBe(listed.length);
    for (const id of ids) if (!paidDuring.has(id)) expect(listed, `pending ${id}`).toContain(id);
    // Offset paging would have skipped some: with 2 leaving the filter per page, each page shifts by 2.
    expect(listed.length).toBeGreaterThan(ids.length - paidDuring.size);
  });

  it('history (v2/history with next_cursor): no row skipped or repeated while payments are paid', async () => {
    const sb = await started();
    const ids: number[] = [];
    for (let n = 0; n < 25; n++) ids.push(await create(sb, n));
    const listed: number[] = [];
    const paidDuring = new Set<number>();
    let cursor: string | undefined;
    for (let page = 0; page < 20; page++) {
      const r = await api(sb, 'v2/history', { status: 0, limit: 4, ...(cursor ? { cursor } : {}) });
      expect(r.status).toBe(200);
      listed.push(...r.json.Data.Transaction!.map((t) => t.TransactionId as number));
      const next = ids.filter((i) => !listed.includes(i) && !paidDuring.has(i)).at(-1);
      for (const id of [listed.at(-1), next]) {
        if (id !== undefined && !paidDuring.has(id)) {
          await sb.pay(String(id));
          paidDuring.add(id);
        }
      }
      cursor = r.json.Data.Pagination!.next_cursor as string | undefined;
      if (!cursor) break;
    }
    expect(new Set(listed).size).toBe(listed.length);
    for (const id of ids) if (!paidDuring.has(id)) expect(listed, `pending ${id}`).toContain(id);
  });

  it('`paycli history --all --status pending` follows next_cursor: after each page, a listed payment is paid, yet none is skipped', async () => {
    const paid: number[] = [];
    let sb: EmulatorHandle | undefined;
    sb = await started({
      onEvent: (e) => {
        // Once a history page is answered, the newest pending payment (on the first page: listed) is paid and leaves the filter.
        if (e.type !== 'request' || e.path !== '/api/v2/history' || !sb) return;
        const newest = sb.state.page({ status: 'pending' }, { by: 'id', desc: true }, 1).rows[0];
        if (newest && paid.length < 6) {
          paid.push(newest.id);
          void sb.pay(String(newest.id));
        }
      },
    });
    const ids: number[] = [];
    for (let n = 0; n < 20; n++) ids.push(await create(sb, n));
    const env = { PAYCLI_ENV: 'local', PAYCLI_BASE_URL: sb.apiUrl, HOME: tempDir('paycli-home-') };
    const cli = await runCli(['history', '--all', '--status', 'pending', '--limit', '3', '--json'], { env });
    expect(cli.code).toBe(0);
    const rows = cli.stdout
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { TransactionId: number }).TransactionId);
    expect(paid.length).toBe(6);
    expect(new Set(rows).size).toBe(rows.length);
    expect([...rows].sort()).toEqual([...ids].sort());
  });

  it('a bad cursor is a 400 (history) and a 400 (admin list)', async () => {
    const sb = await started();
    expect((await api(sb, 'v2/history', { cursor: 'nope' })).status).toBe(400);
    expect((await request(`${sb.url}/_sandbox/transactions?after=nope`)).statusCode).toBe(400);
  });
});

describe('seed, export, import, reset', () => {
  it('seeds a stopped data dir; export → reset → import gives the same ledger; ids go on after a reset', async () => {
    const home = tempDir('paycli-seed-home-');
    const dir = join(home, 'data');
    const env = { HOME: home };
    const seeded = await runCli(['sandbox', 'seed', '--payments', '300', '--paid', '0.7', '--days', '10', '--data-dir', dir, '--json'], { env });
    expect(seeded.code).toBe(0);
    expect(JSON.parse(seeded.stdout)).toMatchObject({ seeded: 300 });
    const exported = await runCli(['sandbox', 'export', '--data-dir', dir], { env });
    expect(exported.code).toBe(0);
    const all = exported.stdout
      .trim()
      .split('\n')
      .map(
        (l) =>
          JSON.parse(l) as {
            t: string;
            txn: { id: number; status: string; paidAt?: number; createdAt: number };
            deliveries: { delivery: { state: string; status: string } }[];
          },
      );
    // The payments, the ledger's counters (the next numbers), then the clock they are on (real time: never moved).
    expect(all.at(-1)).toEqual({ t: 'clock', offsetMs: 0 });
    const lines = all.slice(0, -2);
    const callbacks = lines.reduce((n, l) => n + l.deliveries.length, 0);
    expect(all.at(-2)).toEqual({ t: 'ids', upTo: 100_301, callbacksUpTo: callbacks + 1, membersUpTo: 1 });
    expect(lines).toHaveLength(300);
    const paid = lines.filter((l) => l.txn.status === 'berhasil');
    // Exactly 70 % paid, each with a delivered callback.
    expect(paid.length).toBe(210);
    for (const p of paid)
      expect(p.deliveries).toEqual([expect.objectContaining({ delivery: expect.objectContaining({ state: 'delivered', status: 'berhasil' }) })]);
    // Over the last 10 days, oldest first.
    expect(lines[0]!.txn.createdAt).toBeGreaterThan(Date.now() - 10 * 86_400_000 - 60_000);
    expect(lines.map((l) => l.txn.createdAt)).toEqual([...lines.map((l) => l.txn.createdAt)].sort((a, b) => a - b));
    const file = join(home, 'ledger.jsonl');
    writeFileSync(file, exported.stdout);

    // An import into a ledger that holds transactions is refused (exit 2).
    const refused = await runCli(['sandbox', 'import', file, '--data-dir', dir], { env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/is not empty: it holds 300 transactions/);
    // reset wants --yes.
    expect((await runCli(['sandbox', 'reset', '--data-dir', dir], { env })).code).toBe(2);
    const reset = await runCli(['sandbox', 'reset', '--yes', '--data-dir', dir, '--json'], { env });
    expect(JSON.parse(reset.stdout)).toMatchObject({ removed: 300 });
    const imported = await runCli(['sandbox', 'import', file, '--data-dir', dir, '--json'], { env });
    expect(imported.code).toBe(0);
    expect(JSON.parse(imported.stdout)).toEqual({ payments: 300, sessions: 0, skipped: 0, clockOffsetMs: 0 });
    expect((await runCli(['sandbox', 'export', '--data-dir', dir], { env })).stdout).toBe(exported.stdout);

    // After a reset, a new payment gets a new id: none is handed out twice.
    await runCli(['sandbox', 'reset', '--yes', '--data-dir', dir], { env });
    const sb = await started({ dataDir: dir });
    expect(sb.state.count()).toBe(0);
    expect(await create(sb, 1)).toBe(100_301);
  });

  it("through a running emulator (--sandbox-url): seed, list, export and reset; a stopped one's data dir is refused while it runs", async () => {
    const home = tempDir('paycli-seed-api-');
    const dir = join(home, 'data');
    const sb = await started({ dataDir: dir });
    const env = { HOME: home };
    const url = ['--sandbox-url', sb.url];
    const seeded = await runCli(['sandbox', 'seed', '--payments', '250', ...url, '--json'], { env });
    expect(seeded.code).toBe(0);
    expect(sb.state.count()).toBe(250);
    // The data dir belongs to the running emulator: direct access is refused, naming it.
    const direct = await runCli(['sandbox', 'seed', '--payments', '1', '--data-dir', dir], { env });
    expect(direct.code).toBe(2);
    expect(direct.stderr).toContain(`pid ${process.pid}`);
    // list: a page, then every page.
    const page = await runCli(['sandbox', 'list', '--limit', '20', ...url], { env });
    expect(page.code).toBe(0);
    expect(page.stderr).toMatch(/the newest 20 of 250; --all/);
    const all = await runCli(['sandbox', 'list', '--all', '--limit', '40', '--json', ...url], { env });
    const ids = all.stdout
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { id: number }).id);
    expect(ids).toHaveLength(250);
    expect(new Set(ids).size).toBe(250);
    const exported = await runCli(['sandbox', 'export', ...url], { env });
    expect(exported.stdout.trim().split('\n')).toHaveLength(252);
    const reset = await runCli(['sandbox', 'reset', '--yes', ...url, '--json'], { env });
    expect(JSON.parse(reset.stdout)).toMatchObject({ removed: 250 });
    expect(sb.state.count()).toBe(0);
    expect((await request(`${sb.url}/`)).statusCode).toBe(200);
  });

  it('refuses a bad seed with exit 2', async () => {
    const home = tempDir('paycli-seed-bad-');
    for (const args of [
      ['--payments', '0'],
      ['--payments', '10', '--paid', '1.5'],
      ['--payments', 'x'],
    ]) {
      const r = await runCli(['sandbox', 'seed', ...args, '--data-dir', join(home, 'd')], { env: { HOME: home } });
      expect(r.code, args.join(' ')).toBe(2);
    }
  });
});

describe('files', () => {
  it('the ledger is 0600 in a 0700 data dir', async () => {
    const dir = join(tempDir('paycli-files-'), 'data');
    const sb = await sandbox({ dataDir: dir });
    await create(sb, 1);
    await sb.close();
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    for (const f of ['ledger.db', 'lock.db']) expect(statSync(join(dir, f)).mode & 0o777, f).toBe(0o600);
  });

  it('refuses a data dir that is a symlink, and a ledger that is one, with a clear message (exit 2)', async () => {
    const base = tempDir('paycli-links-');
    const real = join(base, 'real');
    mkdirSync(real, { mode: 0o700 });
    const link = join(base, 'planted');
    symlinkSync(real, link);
    await expect(sandbox({ dataDir: link })).rejects.toThrow(/refusing to open .*symbolic link/);
    const r = await runCli(['sandbox', 'export', '--data-dir', link], { env: { HOME: base } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/symbolic link/);
    // A ledger file planted as a link to another file is never opened (the target stays as it was).
    const dir = join(base, 'dir');
    mkdirSync(dir, { mode: 0o700 });
    const target = join(base, 'target.txt');
    writeFileSync(target, 'precious');
    symlinkSync(target, join(dir, 'ledger.db'));
    await expect(openDataDir(dir)).rejects.toThrow(/symbolic link/);
    expect(readFileSync(target, 'utf8')).toBe('precious');
    expect(lstatSync(join(dir, 'ledger.db')).isSymbolicLink()).toBe(true);
  });
});

describe('README and docs/sandbox-ledger.md: the ledger', () => {
  const root = new URL('../../', import.meta.url).pathname;
  const hasSqlite3 = (() => {
    try {
      return execFileSync('sqlite3', ['-version'], { encoding: 'utf8' }).length > 0;
    } catch {
      return false;
    }
  })();

  it('is WAL with synchronous=FULL (what a power cut can lose, as README says)', async () => {
    const sb = await started({ dataDir: join(tempDir('paycli-pragma-'), 'data') });
    expect(sb.state.db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(sb.state.db.pragma('synchronous', { simple: true })).toBe(2); // FULL
  });

  it.skipIf(!hasSqlite3)("the documented sqlite3 commands read a running emulator's ledger", async () => {
    const dir = join(tempDir('paycli-sqlite3-'), 'data');
    const sb = await started({ dataDir: dir });
    const id = await create(sb, 7);
    await sb.pay(String(id));
    await create(sb, 8);
    // Every `sqlite3 -readonly …` command of README and the reference, on this data dir.
    const docs = ['README.md', 'docs/sandbox-ledger.md'].map((f) => readFileSync(join(root, f), 'utf8').replace(/\\\n\s*/g, '')).join('\n');
    const commands = [...docs.matchAll(/^\s*sqlite3 (-readonly(?: -json)?) ~\/\.local\/share\/paycli\/sandbox\/ledger\.db (".*")$/gm)];
    expect(commands.length).toBeGreaterThanOrEqual(4);
    const outputs = commands.map(([, flags, sql]) =>
      execFileSync('sqlite3', [...flags!.split(' '), join(dir, 'ledger.db'), JSON.parse(sql!) as string], { encoding: 'utf8' }),
    );
    expect(outputs.join('\n')).toContain(`${id}|berhasil|`);
    expect(outputs.join('\n')).toMatch(/^berhasil\|1$/m);
    expect(outputs.join('\n')).toMatch(/^pending\|1$/m);
    expect(outputs.join('\n')).toContain('txns');
    // The emulator went on undisturbed.
    expect(await create(sb, 9)).toBeGreaterThan(id);
  });
});

describe('the dashboard pages by 100', () => {
  it('shows the newest 100 with an "older" link that pages on by id, never repeating a row', async () => {
    const sb = await started();
    const seeded = await request(`${sb.url}/_sandbox/seed?payments=230&days=5`, { method: 'POST' });
    expect(seeded.statusCode).toBe(200);
    await seeded.body.dump();
    const rowsOf = (html: string) => [...html.matchAll(/<tr id="trx-(\d+)"/g)].map((m) => Number(m[1]));
    const seen: number[] = [];
    let path = '/';
    for (let page = 0; page < 5 && path; page++) {
      const html = await (await request(`${sb.url}${path}`)).body.text();
      seen.push(...rowsOf(html));
      const older = /<a href="([^"]+)" id="older">/.exec(html)?.[1];
      path = older ? older.replace(/&amp;/g, '&') : '';
    }
    expect(seen).toHaveLength(230);
    expect(new Set(seen).size).toBe(230);
    expect(seen).toEqual([...seen].sort((a, b) => b - a));
  });
});
