import { spawn, spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatorHandle } from '../../src/core/sandbox/server.js';
import { EMULATOR_DEFAULT_API_KEY as KEY, EMULATOR_DEFAULT_VA as VA, sandbox, signedPost } from '../helpers/sandbox.js';

const havePhp = spawnSync('php', ['-v']).status === 0;
const CLIENT = new URL('../oracle/sdk-client.php', import.meta.url).pathname;

let sb: EmulatorHandle;
let paidId = 0;
beforeAll(async () => {
  sb = await sandbox();
  const { request } = await import('undici');
  const body = JSON.stringify({
    name: 'Putu',
    phone: '08123456789',
    email: 'p@x.co',
    amount: 10000,
    notifyUrl: 'http://127.0.0.1:9/cb',
    paymentMethod: 'cstore',
    paymentChannel: 'indomaret',
    product: ['A'],
    qty: [1],
    price: [10000],
  });
  const req = signedPost(sb.apiUrl, 'v2/payment/direct', body);
  paidId = ((await (await request(req.url, { method: 'POST', headers: req.headers, body })).body.json()) as { Data: { TransactionId: number } }).Data
    .TransactionId;
  await sb.pay(String(paidId));
});
afterAll(() => sb.close());

type Answer = { status: number; body: { Status: number; Message: string; Data: any } };

/** Runs the calls through PHP, encoded and signed as the official PHP SDK does (asynchronously: the emulator runs in this process). */
async function php(calls: { path: string; body: unknown }[]): Promise<Answer[]> {
  const child = spawn('php', [CLIENT], { stdio: ['pipe', 'pipe', 'pipe'], timeout: 20_000 });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c));
  child.stderr.on('data', (c: Buffer) => (stderr += c));
  child.stdin.end(JSON.stringify({ base: sb.apiUrl, va: VA, key: KEY, calls }));
  const code = await new Promise<number | null>((r) => child.on('close', r));
  expect(code, stderr).toBe(0);
  return JSON.parse(stdout) as Answer[];
}

describe("the official SDKs' merchant calls get well-formed answers (bodies as each SDK sends them)", () => {
  it.skipIf(!havePhp && !process.env.CI)(
    `check transaction, history, balance, channel list and redirect payment${havePhp ? '' : ' (php not installed)'}`,
    async () => {
      expect(havePhp, 'php-cli must be installed in CI').toBe(true);
      const [trxString, trxInt, balance, historyDocs, historyGo, methods, redirectPhp, redirectNode, redirectGo] = await php([
        // PHP/Node SDK checkTransaction($id) with the id as a string, Go with an int
        { path: '/v2/transaction', body: { transactionId: String(paidId) } },
        { path: '/v2/transaction', body: { transactionId: paidId } },
        // checkBalance(): {account: VA} in all three SDKs
        { path: '/v2/balance', body: { account: VA } },
        // the docs' history example (numbers as strings) and the Go SDK's struct (every field, null when unset)
        { path: '/v2/history', body: { status: '1', orderBy: 'id', order: 'DESC', limit: '10' } },
        {
          path: '/v2/history',
          body: {
            id: null,
            status: 1,
            date: null,
            startdate: null,
            enddate: null,
            page: null,
            orderBy: 'indate',
            order: null,
            limit: null,
            lang: null,
            bulkId: String(paidId),
            account: null,
            lockStatus: null,
          },
        },
        // Go SDK ListPaymentMethod
        { path: '/v2/payment-method-list', body: { request: true } },
        // PHP SDK redirectPayment(): both buyer spellings, nulls for what is unset, non-ASCII escaped by json_encode
        {
          path: '/v2/payment',
          body: {
            account: VA,
            product: ['Kaos Barong'],
            qty: [2],
            price: [75000],
            description: null,
            notifyUrl: 'http://127.0.0.1:9/cb',
            returnUrl: 'http://127.0.0.1:9/ok',
            cancelUrl: 'http://127.0.0.1:9/no',
            weight: null,
            dimension: null,
            name: 'Nyoman Ö',
            email: 'n@x.co',
            phone: '08123456789',
            pickupArea: null,
            pickupAddress: null,
            buyerName: 'Nyoman Ö',
            buyerEmail: 'n@x.co',
            buyerPhone: '08123456789',
            referenceId: null,
            expired: 24,
            expiredType: 'hours',
          },
        },
        // Node SDK redirectPayment(): quantities and prices as strings, dimension as []
        {
          path: '/v2/payment',
          body: {
            account: VA,
            product: ['Topi'],
            qty: ['1'],
            price: ['30000'],
            description: ['biru'],
            notifyUrl: 'http://127.0.0.1:9/cb',
            returnUrl: 'http://127.0.0.1:9/ok',
            cancelUrl: 'http://127.0.0.1:9/no',
            dimension: [],
            referenceId: 'NODE-1',
          },
        },
        // Go SDK RedirectPayment(): trailing slash, every field
        {
          path: '/v2/payment/',
          body: {
            description: null,
            returnUrl: null,
            notifyUrl: 'http://127.0.0.1:9/cb',
            cancelUrl: null,
            referenceId: null,
            product: ['A'],
            qty: [1],
            price: [5000],
            weight: null,
            dimension: null,
            buyerName: null,
            buyerEmail: null,
            buyerPhone: null,
            pickupArea: null,
            pickupAddress: null,
            paymentMethod: 'va',
          },
        },
      ]);
      for (const t of [trxString!, trxInt!]) {
        expect(t.status).toBe(200);
        expect(t.body.Data).toMatchObject({ TransactionId: paidId, Status: 1, PaidStatus: 'paid', Type: 11, TypeDesc: 'Convenience Store' });
      }
      expect(balance!.body).toMatchObject({ Status: 200, Data: { Va: VA, MerchantBalance: 5000, MemberBalance: 0 } });
      expect(typeof balance!.body.Data.MerchantBalance).toBe('number'); // the Go SDK decodes a float64
      expect(historyDocs!.body.Data.Pagination).toMatchObject({ total: 1, per_page: 10, current_page: 1, total_pages: 1 });
      expect(historyGo!.body.Data.Transaction).toEqual([expect.objectContaining({ TransactionId: paidId, PaidStatus: 'paid' })]);
      expect(methods!.body.Data.map((m: { Code: string }) => m.Code)).toContain('cstore');
      for (const r of [redirectPhp!, redirectNode!, redirectGo!]) {
        expect(r.status, JSON.stringify(r.body)).toBe(200);
        expect(r.body.Data.Url).toMatch(/\/payment\/[0-9A-F-]{36}$/);
      }
      expect(sb.merchant.session(redirectPhp!.body.Data.SessionID)?.buyer.name).toBe('Nyoman Ö');
      expect(sb.merchant.session(redirectNode!.body.Data.SessionID)?.items).toEqual([{ product: 'Topi', qty: 1, price: 30000, description: 'biru' }]);
      expect(sb.merchant.session(redirectGo!.body.Data.SessionID)?.method).toBe('va');
    },
  );
});
