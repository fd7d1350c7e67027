// `paycli transaction REF`: a reference id is found in the history (of --account's child account,
// on every page), newest first.
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { EMULATOR_DEFAULT_API_KEY as KEY, EMULATOR_DEFAULT_VA as VA, localEnv, sandboxAndHome, signedPost } from '../helpers/sandbox.js';

const CHILD = '1179000900';
const f = sandboxAndHome({
  accounts: [
    { va: VA, apiKey: KEY, active: true, name: 'Toko Induk', callbackFormat: 'form' },
    { va: CHILD, active: true, name: 'Cabang Kuta', callbackFormat: 'form', parent: VA },
  ],
});

const cli = (argv: string[]) => runCli(argv, { env: localEnv(f.sb, { PAYCLI_VA: VA, PAYCLI_API_KEY: KEY }), home: f.home.home });

/** A direct payment through the API (as the merchant, or for `account`); returns its TransactionId and payment number. */
async function pay(fields: Record<string, unknown>): Promise<{ id: number; no: string }> {
  const body = JSON.stringify({
    name: 'Putu',
    phone: '08123456789',
    email: 'putu@mail.com',
    amount: 25_000,
    notifyUrl: 'http://127.0.0.1:9/cb',
    paymentMethod: 'va',
    paymentChannel: 'bca',
    ...fields,
  });
  const req = signedPost(f.sb.apiUrl, 'v2/payment/direct', body);
  const res = await request(req.url, { method: 'POST', headers: req.headers, body });
  const json = (await res.body.json()) as { Data: { TransactionId: number; PaymentNo: string } };
  expect(res.statusCode, JSON.stringify(json)).toBe(200);
  return { id: json.Data.TransactionId, no: json.Data.PaymentNo };
}

const idOf = async (argv: string[]) => {
  const r = await cli([...argv, '--json']);
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { TransactionId: number }).TransactionId;
};

describe('transaction REF --account CHILD_VA', () => {
  it("searches every page of the child's history, not only the first", async () => {
    const made: number[] = [];
    for (let n = 1; n <= 25; n++) made.push((await pay({ account: CHILD, referenceId: `CHILD-${n}` })).id);
    // Newest first, 20 a page: CHILD-3 is on page 2 (the parent's page 2 is empty).
    expect(await idOf(['transaction', 'CHILD-3', '--account', CHILD])).toBe(made[2]);
    expect(await idOf(['transaction', 'CHILD-25', '--account', CHILD])).toBe(made[24]);
    const missing = await cli(['transaction', 'CHILD-99', '--account', CHILD]);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain('no transaction with reference id "CHILD-99" in the history');
    // The parent's history does not hold the child's payments.
    expect((await cli(['transaction', 'CHILD-3'])).code).toBe(3);
  });
});
