import type { CallbackStatus } from '../../core/payment-rules.js';
import { canonicalizeCallback } from '../../core/signing/callback-canonical.js';
import { hmacHex } from '../../core/signing/callback-signature.js';
import { type CallbackMaker, CODE_NAMES, withGatewayCode, withSpecialCharacters, type GatewayCode } from './callbacks.js';
import type { Shape, Suite } from './suite.js';

/**
 * The checks judged by the HTTP answer alone, in every body shape, on made-up transactions: valid
 * callbacks answered 200, forged ones refused, retries and copies answered 200. Without an order
 * probe (--order-url) each says what it could not see.
 */
export async function runHttpChecks(suite: Suite, shapes: Shape[], maker: CallbackMaker, keys: { va: string; apiKey: string }, copies: number): Promise<void> {
  const noProbe = 'no --order-url: whether it paid the order was not seen';
  for (const shape of shapes) {
    for (const status of ['berhasil', 'pending', 'expired'] as CallbackStatus[]) {
      await suite.expect(`valid ${status} callback is accepted`, shape, maker.make(status, shape), true, noProbe);
    }
    // Paid but settled later (transaction_status_code 6, settlement_status unsettle) is still a payment.
    await suite.expect('paid, settled later (code 6), is accepted', shape, maker.make('berhasil', shape, 'deferred'), true, noProbe);
    const paid = maker.sampleFields('berhasil');
    await suite.expect('accents, emoji, / & + quotes are accepted', shape, maker.sign(withSpecialCharacters(paid), shape), true, noProbe);
    for (const code of [7, 2, 3, 4, 5] as GatewayCode[]) {
      await suite.expect(
        `status ${code} (${CODE_NAMES[code]}) is answered 200`,
        shape,
        maker.sign(withGatewayCode(maker.sampleFields('berhasil'), code), shape),
        true,
        noProbe,
      );
    }
    const base = maker.make('berhasil', shape);
    const tampered = { ...base.fields, amount: String(Number(base.fields.amount) + 1000), total: String(Number(base.fields.total) + 1000) };
    await suite.expect('tampered amount is rejected', shape, { body: maker.encode(tampered, shape), headers: base.headers }, false);
    const unsigned = maker.make('berhasil', shape);
    const { 'X-Signature': _dropped, ...noSig } = unsigned.headers;
    void _dropped;
    await suite.expect('missing signature is rejected', shape, { body: unsigned.body, headers: noSig }, false);
    const withKey = maker.make('berhasil', shape);
    await suite.expect(
      'signature made with the API key is rejected',
      shape,
      { body: withKey.body, headers: { ...withKey.headers, 'X-Signature': hmacHex(keys.apiKey, canonicalizeCallback(withKey.fields)) } },
      false,
    );
    const unescaped = maker.make('berhasil', shape);
    const wrong = hmacHex(keys.va, canonicalizeCallback(unescaped.fields, { json: { escapeSlash: false, escapeUnicode: true } }));
    await suite.expect(
      'signature over unescaped "/" JSON is rejected',
      shape,
      { body: unescaped.body, headers: { ...unescaped.headers, 'X-Signature': wrong } },
      false,
    );

    const dupName = 'duplicate delivery is answered 200 both times';
    suite.running(dupName, shape);
    const dup = maker.make('berhasil', shape);
    const first = await suite.post(dup);
    const second = await suite.post(maker.again(dup));
    const both = first.res?.status === 200 && second.res?.status === 200;
    const one = (r: typeof first) => (r.res ? `HTTP ${r.res.status}` : r.error!);
    const bad = [first, second].find((r) => r.res && r.res.status !== 200);
    const line = bad ? suite.observe(bad, false).body : undefined;
    suite.show({
      name: dupName,
      format: shape,
      expectation: 'HTTP 200, HTTP 200',
      observation: `${one(first)}, ${one(second)}${!both && line ? `: ${line}` : ''}`,
      passed: both,
      ms: second.res?.ms ?? null,
      ...(!both && line ? { body: line } : {}),
      unobserved: noProbe,
    });

    const copyName = `${copies} copies at once are all answered 200`;
    suite.running(copyName, shape);
    const c = maker.make('berhasil', shape);
    const rs = await Promise.all([c, ...Array.from({ length: copies - 1 }, () => maker.again(c))].map((b) => suite.post(b)));
    const all = rs.every((r) => r.res?.status === 200);
    const answers = [...new Set(rs.map(one))];
    suite.show({
      name: copyName,
      format: shape,
      expectation: `${copies} × HTTP 200`,
      observation: answers.length === 1 ? `${copies} × ${answers[0]}` : answers.join(', '),
      passed: all,
      ms: Math.max(...rs.map((r) => r.res?.ms ?? 0)),
      unobserved: 'no --order-url: whether the order was paid once was not seen',
    });
  }
  // Checks only an order probe can judge: named, so the summary says they were not run.
  for (const name of [
    'amount differs from the order: not paid',
    'paid again after a refund: not fulfilled',
    'out of order: expired after paid keeps it paid',
    'a trx the merchant never created: not paid',
  ]) {
    suite.show({
      name,
      format: shapes[0]!,
      expectation: 'run',
      observation: 'not run',
      passed: true,
      ms: null,
      unobserved: 'needs --order-url (and orders: --create-order-url or --trx)',
    });
  }
}
