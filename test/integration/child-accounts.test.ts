import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { EMULATOR_DEFAULT_API_KEY as KEY, EMULATOR_DEFAULT_VA as VA, localEnv, sandboxAndHome } from '../helpers/sandbox.js';

const CHILD = '1179000000000010';
const OTHER = '1179000000000020';
const OTHER_CHILD = '1179000000000021';
const f = sandboxAndHome({
  accounts: [
    { va: VA, apiKey: KEY, active: true, name: 'Toko Induk', callbackFormat: 'form' },
    { va: CHILD, active: true, name: 'Cabang Kuta', callbackFormat: 'form', parent: VA },
    { va: OTHER, apiKey: 'OTHER-KEY-0123456789', active: true, name: 'Toko Lain', callbackFormat: 'form' },
    { va: OTHER_CHILD, active: true, name: 'Cabang Lain', callbackFormat: 'form', parent: OTHER },
  ],
});

const cli = (argv: string[]) => runCli(argv, { env: localEnv(f.sb, { PAYCLI_VA: VA, PAYCLI_API_KEY: KEY }), home: f.home.home });
const buyer = ['--name', 'Putu', '--phone', '08123456789', '--email', 'putu@mail.com', '--notify-url', 'http://127.0.0.1:9/cb'];

describe('--account CHILD_VA: a merchant acts for its child accounts, and only for them', () => {
  let childTrx = 0;
  it('pay, transaction, balance and history for a child account', async () => {
    const p = await cli(['pay', '--method', 'va', '--channel', 'bca', ...buyer, '--item', 'Kopi:1:50000', '--account', CHILD, '--json']);
    expect(p.code, p.stderr).toBe(0);
    childTrx = JSON.parse(p.stdout).TransactionId;
    expect(f.sb.state.get(childTrx)?.merchantVa).toBe(CHILD);
    const t = await cli(['transaction', String(childTrx), '--account', CHILD, '--json']);
    expect(t.code, t.stderr).toBe(0);
    expect(JSON.parse(t.stdout)).toMatchObject({ TransactionId: childTrx, Receiver: 'Cabang Kuta' });
    // The parent's own view does not hold the child's payment.
    expect((await cli(['transaction', String(childTrx), '--json'])).code).toBe(3);
    await f.sb.pay(String(childTrx));
    const b = await cli(['balance', '--account', CHILD, '--json']);
    expect(JSON.parse(b.stdout)).toMatchObject({ va: CHILD });
    expect(JSON.parse(b.stdout).merchantBalance).toBeGreaterThan(0);
    const h = await cli(['history', '--account', CHILD, '--json']);
    expect(JSON.parse(h.stdout).transactions.map((r: { TransactionId: number }) => r.TransactionId)).toEqual([childTrx]);
  });

  it("another merchant's child account is refused like the gateway (400 Invalid va, exit 3)", async () => {
    for (const argv of [
      ['balance', '--account', OTHER_CHILD],
      ['history', '--account', OTHER],
      ['transaction', String(childTrx), '--account', OTHER_CHILD],
      ['pay', '--method', 'va', '--channel', 'bca', ...buyer, '--item', 'A:1:1000', '--account', OTHER_CHILD],
    ]) {
      const r = await cli(argv);
      expect(r.code, argv.join(' ')).toBe(3);
      expect(r.stderr).toMatch(/Invalid va/);
    }
    expect((await cli(['balance', '--account', 'abc'])).code).toBe(2);
  });
});

describe("history filters (the collection's History fields)", () => {
  it('--type, --ids, --locked/--unlocked, --order-by and --lang', async () => {
    const made: number[] = [];
    for (const [method, channel] of [
      ['va', 'bni'],
      ['cstore', 'alfamart'],
      ['va', 'bri'],
    ]) {
      const r = await cli(['pay', '--method', method!, '--channel', channel!, ...buyer, '--item', 'Teh:1:10000', '--json']);
      made.push(JSON.parse(r.stdout).TransactionId);
    }
    const rows = async (...flags: string[]) => {
      const r = await cli(['history', '--json', ...flags]);
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout).transactions as { TransactionId: number; Type: number; StatusDesc: string }[];
    };
    expect((await rows('--type', '11')).map((r) => r.TransactionId)).toEqual([made[1]]);
    expect((await rows('--ids', `${made[0]},${made[2]}`)).map((r) => r.TransactionId)).toEqual([made[2], made[0]]);
    expect(await rows('--locked')).toEqual([]);
    expect((await rows('--unlocked')).length).toBe(3);
    expect((await rows('--order-by', 'created', '--order', 'asc')).map((r) => r.TransactionId)).toEqual(made);
    await f.sb.pay(String(made[0]));
    expect((await rows('--lang', 'en', '--ids', String(made[0])))[0]!.StatusDesc).toBe('Success');
    expect((await rows('--ids', String(made[0])))[0]!.StatusDesc).toBe('Berhasil');
    expect((await cli(['history', '--order-by', 'amount'])).code).toBe(2);
    expect((await cli(['history', '--locked', '--unlocked'])).code).toBe(2);
  });
});

describe('redirect payments: description[], imageUrl[], lang, account, pickupArea', () => {
  it('sends them as the collection does, and the emulator keeps them', async () => {
    const argv = [
      'pay',
      '--redirect',
      '--item',
      'T-Shirt:2:51000',
      '--description',
      'Size XL',
      '--image-url',
      'https://shop.example/p7.jpg',
      '--lang',
      'en',
      '--account',
      CHILD,
      '--pickup-area',
      '17473',
      '--notify-url',
      'http://127.0.0.1:9/cb',
      '--return-url',
      'http://127.0.0.1:9/thanks',
    ];
    const dry = await cli([...argv, '--dry-run', '--json']);
    const body = JSON.parse(JSON.parse(dry.stdout).body as string);
    expect(body).toMatchObject({ description: ['Size XL'], imageUrl: ['https://shop.example/p7.jpg'], lang: 'en', account: CHILD, pickupArea: '17473' });
    const r = await cli([...argv, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const data = JSON.parse(r.stdout) as { SessionID: string; Url: string };
    expect(data.Url).toMatch(/\?lang=en$/);
    const s = f.sb.merchant.session(data.SessionID)!;
    expect(s).toMatchObject({
      merchantVa: CHILD,
      lang: 'en',
      pickupArea: '17473',
      items: [{ product: 'T-Shirt', description: 'Size XL', imageUrl: 'https://shop.example/p7.jpg' }],
    });
    expect((await cli(['pay', '--method', 'va', '--channel', 'bca', ...buyer, '--item', 'A:1:1000', '--lang', 'en'])).code).toBe(2);
  });
});
