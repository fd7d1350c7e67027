// The shared frame of the clock's kill -9 tests (test/e2e/clock-crash.test.ts for expiry,
// cod-clock-crash.test.ts for COD parcels): a slow callback receiver, an emulator on a data dir that
// is killed while `clock advance` is moving payments, its restart, and the wait until every payment
// has the status its test expects and every callback was delivered.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { parseFormBody } from '../../src/core/callback/parse.js';
import { type Spawned, spawnPaycli } from './spawn.js';

/** Callback statuses received per transaction id; each answered 200 after 20 ms, so a crash lands while some are in flight. */
export async function slowReceiver(): Promise<{ url: string; got: Map<string, string[]>; close: () => void }> {
  const got = new Map<string, string[]>();
  const rx = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const f = parseFormBody(body) as Record<string, string>;
      got.set(f.trx_id!, [...(got.get(f.trx_id!) ?? []), f.status!]);
      setTimeout(() => res.writeHead(200).end('ok'), 20);
    });
  });
  await new Promise<void>((r) => rx.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(rx.address() as AddressInfo).port}/cb`, got, close: () => rx.close() };
}

/**
 * Starts an emulator on `dataDir`, lets `create` make its payments, asks the clock to advance `by`,
 * kills the emulator with SIGKILL at its first transition, and starts it again on the same data dir.
 */
export async function crashMidAdvance(
  home: string,
  dataDir: string,
  by: string,
  create: (apiUrl: string) => Promise<number[]>,
): Promise<{ ids: number[]; second: Spawned; restarted: { url: string; baseUrl: string } }> {
  const args = ['sandbox', '--port', '0', '--data-dir', dataDir, '--json', '--retry-schedule', Array(10).fill('100ms').join(',')];
  const first = spawnPaycli(args, { HOME: home });
  const started = (await first.waitForJson((o) => o.event === 'started', 30_000)) as { url: string; baseUrl: string };
  const ids = await create(started.baseUrl);
  void request(`${started.url}/_sandbox/clock/advance`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ by }) }).then(
    (r) => r.body.text(),
    () => undefined,
  );
  await first.waitForJson((o) => o.type === 'transition', 30_000);
  first.child.kill('SIGKILL');
  await first.exited;
  const second = spawnPaycli(args, { HOME: home });
  const restarted = (await second.waitForJson((o) => o.event === 'started', 30_000)) as { url: string; baseUrl: string };
  return { ids, second, restarted };
}

export type ListedTransaction = { id: number; status: string; createdAt: string; paidAt: string; callbacks: { status: string; state: string }[] };

/** The emulator's transactions once every one is `status` with its callbacks delivered and received (or after 60 s, as they are). */
export async function settled(url: string, status: string, ids: number[], got: Map<string, string[]>): Promise<ListedTransaction[]> {
  const deadline = Date.now() + 60_000;
  let list: ListedTransaction[] = [];
  while (Date.now() < deadline) {
    list = ((await (await request(`${url}/_sandbox/transactions`)).body.json()) as { transactions: ListedTransaction[] }).transactions;
    if (list.every((t) => t.status === status && t.callbacks.every((c) => c.state === 'delivered')) && ids.every((id) => got.has(String(id)))) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return list;
}
