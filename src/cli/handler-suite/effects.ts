import type { SignedCallback } from '../../core/callback/build.js';
import { canonicalizeCallback } from '../../core/signing/callback-canonical.js';
import { hmacHex } from '../../core/signing/callback-signature.js';
import { type CallbackMaker, CODE_NAMES, withGatewayCode, withSpecialCharacters, type GatewayCode } from './callbacks.js';
import { callbackFromTxn, type Emulator } from './emulator.js';
import type { OrderProbe, OrderSource, OrderState, SuiteOrder } from './orders.js';
import type { Body, Sent, Shape, Suite } from './suite.js';

/**
 * The checks that judge what a callback did to the merchant's order (its probe, --order-url), on
 * real emulator transactions the app knows. Each is named by what it protects. Order A takes the
 * callbacks that must not pay it, then is paid; B, C and D are fresh orders for the checks that
 * need one unpaid (copies at once, then refund and replay; status 6; status 7).
 */
export interface EffectOptions {
  suite: Suite;
  shape: Shape;
  maker: CallbackMaker;
  probe: OrderProbe;
  source: OrderSource;
  emulator: Emulator;
  strict: boolean;
  copies: number;
  apiKey: string;
  va: string;
  now: () => Date;
  signal: AbortSignal;
}

type Http = 'accept' | 'reject' | 'any';
/** What a check wants of the order afterwards, in words and as a test of the probe's answer. */
interface Effect {
  want: string;
  judge: (s: OrderState) => boolean;
}
const HTTP_TEXT: Record<Http, string> = { accept: 'HTTP 200', reject: 'rejected (not 200)', any: 'any answer' };

/** The means of the checks: send and judge (`check`), skip, sign, and pay at the emulator. */
function checker(o: EffectOptions) {
  const { suite, shape, maker, probe, emulator } = o;
  const NOT_PAID = { want: 'not paid', judge: (s: OrderState) => !s.paid };
  const paidOnce = (order: SuiteOrder) => ({
    want: `paid once, amount ${order.amount}`,
    judge: (s: OrderState) => s.paid && (s.count === undefined || s.count === 1) && (s.amount === undefined || s.amount === order.amount),
  });

  /** One try of a check: sends callbacks (one after another, or all at once), then asks the probe. */
  const attempt = async (order: { trx: number; ref: string }, bodies: Body[], http: Http, effect: Effect, concurrent: boolean) => {
    const rs: Sent[] = [];
    if (concurrent) rs.push(...(await Promise.all(bodies.map((b) => suite.post(b)))));
    else for (const b of bodies) rs.push(await suite.post(b));
    const okHttp = rs.every((r) => r.res !== undefined && (http === 'accept' ? r.res.status === 200 : http === 'reject' ? r.res.status !== 200 : true));
    const state = await probe.state(order);
    return { rs, okHttp, state, passed: okHttp && effect.judge(state) };
  };

  /** Reports a check from its (last) try; `tries` > 1 says on how many orders it ran. */
  const report = (name: string, t: Awaited<ReturnType<typeof attempt>>, http: Http, effect: Effect, unobserved?: string, tries = 1): boolean => {
    const { rs, okHttp, state, passed } = t;
    const answers = rs.map((r) => (r.res ? String(r.res.status) : r.error!));
    const http1 = new Set(answers).size === 1 ? `${rs.length > 1 ? `${rs.length}×` : ''}${answers[0]}` : answers.join(',');
    const line = okHttp ? undefined : rs.map((r) => suite.observe(r, false).body).find(Boolean);
    const on = tries === 1 ? '' : passed ? `${tries} orders: ` : `order ${tries}: `;
    suite.show({
      name,
      format: shape,
      expectation: `${rs.length > 1 && http !== 'any' ? `${rs.length} × ` : ''}${HTTP_TEXT[http]}; order ${effect.want}`,
      observation: `${on}${http1} · ${state.short}${passed ? '' : ` (${state.text})`}`,
      passed,
      ms: Math.max(...rs.map((r) => r.res?.ms ?? 0)),
      ...(line ? { body: line } : {}),
      ...(unobserved ? { unobserved } : {}),
    });
    return passed;
  };

  /** Sends callbacks (one after another, or all at once), then asks the probe; both must be as expected. */
  const check = async (
    name: string,
    order: { trx: number; ref: string },
    bodies: Body[],
    http: Http,
    effect: Effect,
    concurrent = false,
    unobserved?: string,
  ): Promise<boolean> => {
    suite.running(name, shape);
    return report(name, await attempt(order, bodies, http, effect, concurrent), http, effect, unobserved);
  };
  const skip = (name: string, why: string) =>
    suite.show({ name, format: shape, expectation: 'run', observation: 'not run', passed: true, ms: null, unobserved: why });
  const fields = (order: SuiteOrder, status: 'berhasil' | 'pending' | 'expired') => callbackFromTxn(order.txn, status, suite.url, o.now());
  const sign = (f: Record<string, string>): SignedCallback => maker.sign(f, shape);
  /** Pays an order at the emulator (as the buyer would) and waits until the emulator's own callback is done with. */
  const pay = async (order: SuiteOrder) => {
    order.txn = await emulator.pay(order.trx);
    await emulator.settled(order.trx, o.signal);
  };

  /** A --strict check: the handler called check transaction for the trx (the emulator's count went up). */
  const confirmed = (name: string, before: number, after: number) =>
    suite.show({
      name,
      format: shape,
      expectation: 'a check-transaction call for the trx',
      observation: after > before ? `${after - before} call(s)` : 'no call',
      passed: after > before,
      ms: 0,
    });

  return { attempt, report, check, confirmed, skip, fields, sign, pay, NOT_PAID, paidOnce };
}

export async function runEffectChecks(o: EffectOptions): Promise<void> {
  const { shape, maker, source, emulator } = o;
  const k = checker(o);
  const { check, fields, sign, pay, NOT_PAID, paidOnce } = k;
  const a = await source.next();
  if (!a) return;
  const paidA = fields(a, 'berhasil');
  const base = sign(paidA);
  const bump = (f: Record<string, string>) => ({
    ...f,
    amount: String(Number(f.amount) + 1000),
    total: String(Number(f.total) + 1000),
    sub_total: String(Number(f.sub_total) + 1000),
  });
  const { 'X-Signature': _drop, ...unsigned } = base.headers;
  void _drop;
  await check('forged: tampered amount: not paid', a, [{ body: maker.encode(bump(paidA), shape), headers: base.headers }], 'reject', NOT_PAID);
  await check('forged: no signature: not paid', a, [{ body: base.body, headers: unsigned }], 'reject', NOT_PAID);
  await check(
    'forged: signed with the API key: not paid',
    a,
    [{ body: base.body, headers: { ...base.headers, 'X-Signature': hmacHex(o.apiKey, canonicalizeCallback(paidA)) } }],
    'reject',
    NOT_PAID,
  );
  await check(
    'forged: "/" unescaped in signature: not paid',
    a,
    [
      {
        body: base.body,
        headers: { ...base.headers, 'X-Signature': hmacHex(o.va, canonicalizeCallback(paidA, { json: { escapeSlash: false, escapeUnicode: true } })) },
      },
    ],
    'reject',
    NOT_PAID,
  );
  const amountDiffers = () => check('amount differs from the order: not paid', a, [sign(bump(fields(a, 'berhasil')))], 'any', NOT_PAID);
  // An order given with --trx is paid by the emulator's own callback when it is paid there: judged before.
  if (!a.created) await amountDiffers();
  for (const code of [2, 3, 4, 5] as GatewayCode[])
    await check(`status ${code} (${CODE_NAMES[code]}) does not count as paid`, a, [sign(withGatewayCode(paidA, code))], 'accept', NOT_PAID);
  await check('pending callback does not mark it paid', a, [sign(fields(a, 'pending'))], 'accept', NOT_PAID);
  if (o.strict) {
    const before = await emulator.checks(a.trx);
    await check('paid callback, unpaid at gateway: not paid', a, [sign(paidA)], 'any', NOT_PAID);
    const after = await emulator.checks(a.trx);
    k.confirmed('confirms an unconfirmed paid callback (strict)', before, after);
  }
  await pay(a);
  // A made order's payment is confirmed at the gateway by now: only the amount can stop it.
  if (a.created) await amountDiffers();
  const before = o.strict ? await emulator.checks(a.trx) : 0;
  // An order given with --trx was paid by the emulator's own callback already: only the answer is judged.
  const firstPaid = a.created ? undefined : "the emulator's own callback paid the order first (use --create-order-url)";
  await check('accents, emoji, / & + quotes: paid once', a, [sign(withSpecialCharacters(fields(a, 'berhasil')))], 'accept', paidOnce(a), false, firstPaid);
  if (o.strict) {
    const after = await emulator.checks(a.trx);
    k.confirmed('confirms through check transaction (strict)', before, after);
  }
  const paidAgain = sign(fields(a, 'berhasil'));
  await check('the same callback again: still paid once', a, [paidAgain, maker.again(paidAgain)], 'accept', paidOnce(a));
  await check('out of order: expired after paid keeps it paid', a, [sign(fields(a, 'expired'))], 'accept', paidOnce(a));
  await check('out of order: pending after paid keeps it paid', a, [sign(fields(a, 'pending'))], 'accept', paidOnce(a));

  await otherOrderChecks(o, k);
}

/** Orders a copies-at-once check may use when the suite makes its own (a race need not show in one burst). */
const COPY_ORDERS = 3;

/**
 * `--copies` copies of a paid callback at once, on order `b`: all answered 200, paid once. A missing
 * lock shows only when the app runs two copies side by side, and an app server may take a whole
 * burst in one worker and run it one copy after another (`php -S` with workers does, now and then):
 * when the suite makes its own orders, the burst is repeated on up to COPY_ORDERS fresh ones and
 * the first that shows the race fails the check. Returns b's paid callback (the refund check replays it).
 */
async function copiesAtOnce(o: EffectOptions, k: ReturnType<typeof checker>, b: SuiteOrder): Promise<SignedCallback> {
  const { attempt, report, fields, sign, pay, paidOnce } = k;
  const name = `${o.copies} copies at once: all 200, paid once`;
  o.suite.running(name, o.shape);
  let paidB: SignedCallback | undefined;
  let order: SuiteOrder | undefined = b;
  for (let n = 1; order; n++) {
    await pay(order);
    const paid = sign(fields(order, 'berhasil'));
    paidB ??= paid;
    const copies = [paid, ...Array.from({ length: o.copies - 1 }, () => o.maker.again(paid))];
    const effect = paidOnce(order);
    const t = await attempt(order, copies, 'accept', effect, true);
    order = t.passed && n < COPY_ORDERS && o.source.canCreate ? await o.source.next() : undefined;
    if (!order) report(name, t, 'accept', effect, undefined, n);
  }
  return paidB!;
}

/** The checks that need orders of their own (copies at once, refund, codes 6 and 7), and a stranger's trx. */
async function otherOrderChecks(o: EffectOptions, k: ReturnType<typeof checker>): Promise<void> {
  const { maker, source } = o;
  const { check, skip, fields, sign, pay, NOT_PAID, paidOnce } = k;
  const more = 'needs another order: --create-order-url, or one more --trx';
  const b = await source.next();
  if (!b) {
    skip(`${o.copies} copies at once: all 200, paid once`, more);
    skip('paid again after a refund: not fulfilled', more);
  } else {
    const paidB = await copiesAtOnce(o, k, b);
    await check('paid again after a refund: not fulfilled', b, [sign(withGatewayCode(fields(b, 'berhasil'), 3)), maker.again(paidB)], 'accept', {
      want: 'not paid (refunded), fulfilled once',
      judge: (s) => !s.paid && (s.count === undefined || s.count === 1),
    });
  }
  for (const code of [6, 7] as GatewayCode[]) {
    const name = `status ${code} (${CODE_NAMES[code]}) counts as paid`;
    const c = await source.next();
    if (!c) {
      skip(name, more);
      continue;
    }
    await pay(c);
    await check(name, c, [sign(withGatewayCode(fields(c, 'berhasil'), code))], 'accept', paidOnce(c));
  }
  // A trx id far above any the emulator hands out, and a reference no checkout made.
  const stranger = maker.sampleFields('berhasil', undefined, 900_000_000 + Math.floor(Math.random() * 99_999_999));
  await check('a trx the merchant never created: not paid', { trx: Number(stranger.trx_id), ref: stranger.reference_id! }, [sign(stranger)], 'any', NOT_PAID);
}
