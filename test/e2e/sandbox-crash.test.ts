import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { buildSignedRequest } from '../../src/core/api/signed-request.js';
import { parseFormBody } from '../../src/core/callback/parse.js';
import { tempHome } from '../helpers/cli.js';
import { EMULATOR_DEFAULT_API_KEY as KEY, EMULATOR_DEFAULT_VA as VA } from '../helpers/sandbox.js';
import { runPaycli, spawnPaycli } from '../helpers/spawn.js';

let home: ReturnType<typeof tempHome>;
beforeAll(() => (home = tempHome()));
afterAll(() => home.cleanup());

const SCHEDULE = ['--retry-schedule', Array(20).fill('100ms').join(',')];

async function createPayment(apiUrl: string, notifyUrl: string, n: number): Promise<number> {
  const body = JSON.stringify({ name: 'Putu', phone: '08123456789', email: 'p@x.co', amount: 5000 + n, notifyUrl, paymentMethod: 'va', paymentChannel: 'bni' });
  const req = buildSignedRequest({ baseUrl: apiUrl, path: 'v2/payment/direct', method: 'POST', body, credentials: { va: VA, apiKey: KEY }, now: new Date() });
  const res = await request(req.url, { method: 'POST', headers: req.headers, body });
  const json = (await res.body.json()) as { Data: { TransactionId: number } };
  if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}`);
  return json.Data.TransactionId;
}

async function admin(url: string, path: string): Promise<number> {
  const res = await request(`${url}/_sandbox/transactions/${path}`, { method: 'POST' });
  await res.body.text();
  return res.statusCode;
}

describe('one emulator per data dir', () => {
  it('refuses a second emulator on the same data dir (exit 2, names the dir and the pid), and takes over after a kill -9', async () => {
    const dataDir = join(home.home, 'locked');
    const first = spawnPaycli(['sandbox', '--port', '0', '--data-dir', dataDir, '--json'], { HOME: home.home });
    const started = await first.waitForJson((o) => o.event === 'started', 20_000);
    const second = await runPaycli(['sandbox', '--port', '0', '--data-dir', dataDir], { HOME: home.home });
    expect(second.code).toBe(2);
    const firstLine = second.stderr.split('\n')[0]!;
    expect(firstLine).toContain(dataDir);
    expect(firstLine).toContain(`pid ${first.child.pid}`);
    expect(second.stderr).not.toMatch(/\n\s+at /); // no stack trace
    // Through another spelling of the same directory (a symlink) it is refused too.
    const link = join(home.home, 'locked-link');
    const { symlinkSync } = await import('node:fs');
    symlinkSync(dataDir, link);
    expect((await runPaycli(['sandbox', '--port', '0', '--data-dir', link], { HOME: home.home })).code).toBe(2);

    // A stopped holder (Ctrl-Z, SIGSTOP) keeps the data dir: the lock belongs to a live process, however long it sleeps.
    first.child.kill('SIGSTOP');
    await new Promise((r) => setTimeout(r, 1500));
    const whileStopped = await runPaycli(['sandbox', '--port', '0', '--data-dir', dataDir], { HOME: home.home });
    expect(whileStopped.code).toBe(2);
    expect(whileStopped.stderr).toContain(`pid ${first.child.pid}`);
    // Nor can `sandbox reset` empty the ledger under it.
    const reset = await runPaycli(['sandbox', 'reset', '--yes', '--data-dir', dataDir], { HOME: home.home });
    expect(reset.code).toBe(2);
    expect(reset.stderr).toContain(`pid ${first.child.pid}`);
    first.child.kill('SIGCONT');
    expect((await request(`${String(started.url)}/_sandbox/health`)).statusCode).toBe(200);

    // kill -9: the operating system releases the lock with the process; the next emulator starts at once.
    first.child.kill('SIGKILL');
    await first.exited;
    const third = spawnPaycli(['sandbox', '--port', '0', '--data-dir', dataDir, '--json'], { HOME: home.home });
    const restarted = await third.waitForJson((o) => o.event === 'started', 20_000);
    expect(restarted.url).not.toBe(started.url);
    // It names itself as the holder now.
    const refused = await runPaycli(['sandbox', '--port', '0', '--data-dir', dataDir], { HOME: home.home });
    expect(refused.stderr).toContain(`pid ${third.child.pid}`);
    third.child.kill('SIGTERM');
    expect(await third.exited).toBe(0);
    // A clean stop releases the lock at once.
    const fourth = spawnPaycli(['sandbox', '--port', '0', '--data-dir', dataDir, '--json'], { HOME: home.home });
    await fourth.waitForJson((o) => o.event === 'started', 20_000);
    fourth.child.kill('SIGTERM');
    expect(await fourth.exited).toBe(0);
  }, 60_000);

  it('imports an older journal despite unreadable lines and says how many it skipped', async () => {
    const { mkdirSync } = await import('node:fs');
    const journal = '{"t":"ids","upTo":101001}\nnot json\nnull\n{"t":"txn"}\n{"t":"ids","upTo":10';
    const dataDir = join(home.home, 'corrupt');
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(join(dataDir, 'journal.jsonl'), journal);
    const r = spawnPaycli(['sandbox', '--port', '0', '--data-dir', dataDir, '--json'], { HOME: home.home });
    const started = await r.waitForJson((o) => o.event === 'started', 20_000);
    expect(started.skippedLines).toBe(4);
    expect(started.migrated).toBe(0);
    r.child.kill('SIGTERM');
    expect(await r.exited).toBe(0);
    const humanDir = join(home.home, 'corrupt-human');
    mkdirSync(humanDir, { recursive: true });
    writeFileSync(join(humanDir, 'journal.jsonl'), journal);
    const human = spawnPaycli(['sandbox', '--port', '0', '--data-dir', humanDir], { HOME: home.home });
    let stderr = '';
    human.child.stderr!.on('data', (c: Buffer) => (stderr += c));
    for (let i = 0; i < 200 && !stderr.includes('Ctrl-C'); i++) await new Promise((res) => setTimeout(res, 50));
    expect(stderr).toContain('4 unreadable journal lines skipped');
    human.child.kill('SIGTERM');
    await human.exited;
  }, 60_000);
});

describe('kill -9 of the emulator under load', () => {
  it('every paid or expired transaction has its callback delivered at least once, over 5 kill/restart rounds', async () => {
    const dataDir = join(home.home, 'kill-loop');
    const got = new Set<string>();
    const merchant = createServer((req, res) => {
      let b = '';
      req.on('data', (c: Buffer) => (b += c));
      req.on('end', () => {
        const f = parseFormBody(b);
        got.add(`${String(f.trx_id)}:${String(f.status)}`);
        res.writeHead(200).end('{"status":"OK"}');
      });
    });
    await new Promise<void>((r) => merchant.listen(0, '127.0.0.1', r));
    const notifyUrl = `http://127.0.0.1:${(merchant.address() as AddressInfo).port}/cb`;
    const created = new Set<number>();
    const paid = new Set<number>();
    const expired = new Set<number>();
    let n = 0;
    for (let round = 0; round < 5; round++) {
      const sb = spawnPaycli(['sandbox', '--port', '0', '--data-dir', dataDir, '--json', ...SCHEDULE], { HOME: home.home });
      const started = await sb.waitForJson((o) => o.event === 'started', 20_000);
      // A transition and its callback are one SQLite transaction: no crash leaves one without the other.
      expect(started.reconciled).toBe(0);
      const url = String(started.url);
      let stop = false;
      const worker = async () => {
        while (!stop) {
          try {
            const id = await createPayment(String(started.baseUrl), notifyUrl, n++);
            created.add(id);
            const kind = id % 3 === 0 ? 'expire' : 'pay';
            if ((await admin(url, `${id}/${kind}`)) === 200) (kind === 'pay' ? paid : expired).add(id);
          } catch {
            return; // the emulator is gone
          }
        }
      };
      const workers = Array.from({ length: 4 }, worker);
      // Killed mid-load: once this round has acknowledged a few transitions (not after a fixed time: the machine may be slow).
      const target = (round + 1) * 6;
      for (let i = 0; i < 400 && paid.size + expired.size < target; i++) await new Promise((r) => setTimeout(r, 25));
      await new Promise((r) => setTimeout(r, round * 50));
      sb.child.kill('SIGKILL');
      stop = true;
      await Promise.all(workers);
      await sb.exited;
    }
    expect(paid.size + expired.size).toBeGreaterThan(20);
    const last = spawnPaycli(['sandbox', '--port', '0', '--data-dir', dataDir, '--json', ...SCHEDULE], { HOME: home.home });
    const started = await last.waitForJson((o) => o.event === 'started', 20_000);
    expect(started.reconciled).toBe(0);
    type Row = { id: number; status: string; callbacks: { state: string }[] };
    let rows: Row[] = [];
    for (let i = 0; i < 150; i++) {
      rows = ((await (await request(`${String(started.url)}/_sandbox/transactions?limit=1000`)).body.json()) as { transactions: Row[] }).transactions;
      if (rows.every((t) => t.callbacks.every((c) => c.state !== 'pending'))) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const byId = new Map(rows.map((t) => [t.id, t]));
    // Nothing acknowledged was lost.
    for (const id of created) expect(byId.has(id), `payment ${id} was acknowledged`).toBe(true);
    for (const id of paid) expect(byId.get(id)!.status).toBe('berhasil');
    for (const id of expired) expect(byId.get(id)!.status).toBe('expired');
    // Every paid or expired transaction's callback reached the merchant at least once.
    const ended = rows.filter((t) => t.status !== 'pending');
    expect(ended.length).toBeGreaterThanOrEqual(paid.size + expired.size);
    const missing = ended.filter((t) => !got.has(`${t.id}:${t.status}`)).map((t) => t.id);
    expect(missing).toEqual([]);
    if (process.env.PAYCLI_TEST_FIGURES)
      console.log(
        `kill-loop: ${created.size} payments acknowledged, ${paid.size} paid, ${expired.size} expired, ${ended.length} ended, ${got.size} distinct callbacks received`,
      );
    last.child.kill('SIGTERM');
    expect(await last.exited).toBe(0);
    await new Promise((r) => merchant.close(r));
  }, 120_000);
});
