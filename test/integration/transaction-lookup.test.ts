// `paycli transaction ARG` when ARG is not a transaction id: a reference id or a payment number,
// found in the history (of --account's child account on every page), newest first.
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
    expect(missing.stderr).toContain(`no transaction with payment number or reference id "CHILD-99" in the history of ${CHILD}`);
    // The parent's history does not hold the child's payments.
    expect((await cli(['transaction', 'CHILD-3'])).code).toBe(3);
  });
});

describe('transaction PAYMENT_NO', () => {
  it('a VA number (16 digits) or a store payment code (14) is found in the history; an unknown one says what was searched', async () => {
    const va = await pay({ referenceId: 'VA-OLD' });
    const store = await pay({ referenceId: 'STORE-1', paymentMethod: 'cstore', paymentChannel: 'alfamart' });
    for (let n = 0; n < 21; n++) await pay({ referenceId: `NEWER-${n}` });
    expect(va.no).toMatch(/^8868\d{12}$/);
    expect(store.no).toMatch(/^\d{14}$/);
    // The VA payment is on page 2 of the history.
    expect(await idOf(['transaction', va.no])).toBe(va.id);
    expect(await idOf(['transaction', store.no])).toBe(store.id);
    const unknown = await cli(['transaction', '8868999999999999']);
    expect(unknown.code).toBe(3);
    const [line, hint] = unknown.stderr.trim().split('\n');
    expect(line).toBe('error: no transaction with payment number or reference id "8868999999999999" in the history');
    expect(hint).toMatch(/transaction id \(up to 12 digits\) is looked up directly/);
    expect(unknown.stderr).not.toContain('(digits)');
  });

  it('a numeric reference id longer than an id is found too; --reference looks for a reference id only', async () => {
    const t = await pay({ referenceId: '20261122072704' });
    expect(await idOf(['transaction', '20261122072704'])).toBe(t.id);
    const forced = await cli(['transaction', t.no, '--reference']);
    expect(forced.code).toBe(3);
    expect(forced.stderr).toContain(`no transaction with reference id "${t.no}" in the history`);
    expect(forced.stderr).toContain('without --reference');
    // Up to 12 digits is an id: looked up directly (one request), the gateway's 404.
    const id = await cli(['transaction', '999999999999']);
    expect(id.code).toBe(3);
    expect(id.stderr).toMatch(/transaction not found/);
  });
});
