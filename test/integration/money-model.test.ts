import { describe, expect, it } from 'vitest';
import { request } from 'undici';
import { callbackFromRecord } from '../../src/core/api/recover.js';
import { buildSignedRequest } from '../../src/core/api/signed-request.js';
import { parseFormBody } from '../../src/core/callback/parse.js';
import { receiver } from '../helpers/receiver.js';
import { EMULATOR_DEFAULT_API_KEY as KEY, EMULATOR_DEFAULT_VA as VA, sandbox } from '../helpers/sandbox.js';

/** Issue 26 item 6 through the emulator's API (the property test is test/unit/money-model.test.ts). */

async function api(base: string, path: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const text = JSON.stringify(body);
  const req = buildSignedRequest({ baseUrl: base, path, method: 'POST', body: text, credentials: { va: VA, apiKey: KEY }, now: new Date() });
  const res = await request(req.url, { method: 'POST', headers: req.headers, body: text });
  return ((await res.body.json()) as { Data: Record<string, unknown> }).Data;
}

describe('a QRIS payment of 100 000 whose buyer pays the fee', () => {
  it('states the same money in the callback, check transaction, balance and the callback recover rebuilds', async () => {
    const rx = await receiver([200]);
    const sb = await sandbox();
    try {
      const created = await api(sb.apiUrl, 'v2/payment/direct', {
        name: 'Putu',
        phone: '08123456789',
        email: 'p@x.co',
        amount: 100_000,
        notifyUrl: rx.url,
        paymentMethod: 'qris',
        paymentChannel: 'mpm',
        feeDirection: 'BUYER',
      });
      expect([created.Total, created.Fee]).toEqual([100_700, 700]);
      const id = Number(created.TransactionId);
      expect((await sb.pay(String(id))).ok).toBe(true);
      await rx.waitFor(1);
      const sent = parseFormBody(rx.received[0]!.body.toString()) as Record<string, unknown>;
      expect([sent.sub_total, sent.total, sent.fee, String(sent.paid_off)]).toEqual(['100000', '100700', '700', '100000']);
      const record = await api(sb.apiUrl, 'v2/transaction', { transactionId: id });
      expect([record.SubTotal, record.Total, record.Fee, record.PaidOff, record.FeeDirection]).toEqual([100_000, 100_700, 700, 100_000, 'BUYER']);
      const balance = await api(sb.apiUrl, 'v2/balance', { account: VA });
      expect(balance.MerchantBalance).toBe(100_000);
      const rebuilt = callbackFromRecord({ ...record, TransactionId: id, Status: Number(record.Status) }, rx.url);
      for (const k of ['sub_total', 'total', 'amount', 'fee', 'paid_off', 'trx_id', 'status', 'via', 'channel']) expect(rebuilt[k], k).toBe(String(sent[k]));
    } finally {
      await sb.close();
      await rx.close();
    }
  });
});
