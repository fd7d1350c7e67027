import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { runCli, testContext } from '../helpers/cli.js';
import { allTxns, dispatcherToEmulator, localEnv, sandboxAndHome } from '../helpers/sandbox.js';
import { run } from '../../src/cli/run.js';

// The emulator also answers to my.ipaymu.com: the production guard tests reach it under that name.
const fx = sandboxAndHome({ allowedHosts: ['my.ipaymu.com'] });

const buyer = ['--name', 'Putu Ayu', '--phone', '08123456789', '--email', 'putu@mail.com', '--notify-url', 'http://127.0.0.1:9/callback'];
const cli = (argv: string[], extra: Record<string, string> = {}, tty = false) =>
  runCli(argv, { env: { ...localEnv(fx.sb), ...extra }, home: fx.home.home, tty });

describe('paycli pay against the emulator: every method', () => {
  const cases: [string, string, string[], (d: Record<string, unknown>) => void][] = [
    ['va', 'bca', ['--item', 'Kopi:2:50000'], (d) => expect(d.PaymentNo).toMatch(/^8868\d{12}$/)],
    ['va', 'bag', ['--item', 'Kopi:1:10000'], (d) => expect(d.PaymentNo).toMatch(/^0098\d{12}$/)],
    ['cstore', 'alfamart', ['--item', 'Pulsa:1:25000'], (d) => expect(d.PaymentNo).toMatch(/^8101\d{10}$/)],
    [
      'cod',
      'rpx',
      [
        '--item',
        'Kaos:1:75000:0.3:20:5:30',
        '--delivery-area',
        '80361',
        '--delivery-address',
        'Jl. Sunset Road 1, Kuta',
        '--shipping',
        'idexpress',
        '--shipping-service',
        'std',
        '--pickup-area',
        '5171031006',
      ],
      (d) => {
        expect(d.PaymentNo).toMatch(/^RPX/);
        expect(fx.sb.state.get(d.TransactionId as number)?.shipment).toMatchObject({
          shipping: 'IDEXPRESS',
          shippingService: 'STD',
          deliveryArea: '80361',
          pickupArea: '5171031006',
          weightKg: 0.3,
        });
      },
    ],
    [
      'qris',
      'mpm',
      ['--item', 'Tiket:1:102000'],
      (d) => {
        expect(d.QrString).toMatch(/^000201/);
        expect(d.Fee).toBe(714);
      },
    ],
    ['cc', 'cc', ['--item', 'Sepatu:1:500000'], (d) => expect(d.Url).toMatch(/\/pay\/\d+$/)],
    ['paylater', 'akulaku', ['--item', 'HP:1:2500000'], (d) => expect(d.Url).toMatch(/\/pay\/\d+$/)],
    ['ewallet', 'dana', ['--item', 'Voucher:2:10000'], (d) => expect(d.PaymentNo).toBe('')],
    ['ewallet', 'shopeepay', ['--item', 'Voucher:1:10000'], (d) => expect(d.Total).toBe(10000)],
  ];
  for (const [method, channel, items, check] of cases) {
    it(`${method}/${channel}`, async () => {
      const r = await cli(['pay', '--method', method, '--channel', channel, ...buyer, ...items, '--json']);
      expect(r.code, r.stderr).toBe(0);
      const data = JSON.parse(r.stdout);
      expect(data).toMatchObject({ Via: method, Channel: channel, Note: null });
      expect(data.Expired).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
      check(data);
      expect(fx.sb.state.get(data.TransactionId)?.referenceId).toBe(data.ReferenceId);
    });
  }

  it('prints the payment number alone on its line, total, fee and expiry', async () => {
    const r = await cli([
      'pay',
      '--method',
      'va',
      '--channel',
      'bni',
      ...buyer,
      '--item',
      'Kopi:2:50000',
      '--item',
      'Teh:1:2000',
      '--reference-id',
      'ORDER-77',
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/\n {4}8848\d{12}\n/);
    expect(r.stdout).toContain('total    Rp 102.000   fee Rp 4.000');
    expect(r.stdout).toMatch(/expires  \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} WIB \(in 2[34]h/);
    expect(r.stdout).toContain('ref ORDER-77');
  });

  it('generates and announces a reference id', async () => {
    const r = await cli(['pay', '--method', 'qris', ...buyer, '--item', 'A:1:1000']);
    expect(r.stderr).toMatch(/reference id PAYCLI-\d{14}-[0-9a-f]{4} \(generated\)/);
  });

  it('accepts qris as a channel alias with a warning', async () => {
    const r = await cli(['pay', '--channel', 'qris', ...buyer, '--item', 'A:1:1000', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).Channel).toBe('mpm');
    expect(r.stderr).toContain('alias');
  });

  it('honours --expired and --expired-type', async () => {
    const r = await cli([
      'pay',
      '--method',
      'va',
      '--channel',
      'bri',
      ...buyer,
      '--item',
      'A:1:1000',
      '--expired',
      '30',
      '--expired-type',
      'minutes',
      '--json',
    ]);
    const t = fx.sb.state.get(JSON.parse(r.stdout).TransactionId)!;
    expect(t.expiresAt - t.createdAt).toBe(30 * 60_000);
  });
});

describe('paycli pay validates before sending', () => {
  const count = () => fx.sb.state.count();

  it('refuses a channel of another method and lists the right ones (exit 2)', async () => {
    const before = count();
    const r = await cli(['pay', '--method', 'va', '--channel', 'dana', ...buyer, '--item', 'A:1:1000']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('channels of va: bag, bca');
    expect(count()).toBe(before);
  });

  // A COD payment of one parcel to Kuta, before its courier flags.
  const codParcel = ['pay', '--method', 'cod', ...buyer, '--item', 'Kaos:1:75000:0.3:20:5:30', '--delivery-area', '80361', '--delivery-address', 'Jl. Kuta'];

  it('checks the COD fields (exit 2, nothing sent)', async () => {
    const before = count();
    const r = await cli(['pay', '--method', 'cod', ...buyer, '--item', 'Kaos:1:75000']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--weight.*--width.*--length.*--delivery-area.*--delivery-address.*--shipping: required.*--shipping-service: required/);
    expect(r.stderr).toMatch(/paycli cod rate/);
    const noCourier = await cli([...codParcel, '--shipping', 'RPX']);
    expect(noCourier.code).toBe(2);
    expect(noCourier.stderr).toMatch(/--shipping-service: required/);
    expect(noCourier.stderr).not.toMatch(/--shipping: required/);
    expect(count()).toBe(before);
  });

  it("sends the COD shipping fields in the collection's order, after the delivery fields", async () => {
    const r = await cli([
      ...codParcel,
      '--shipping',
      'rpx',
      '--shipping-service',
      'reg',
      '--pickup-area',
      '17473',
      '--pickup-address',
      'Jl. Gudang 2',
      '--dry-run',
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const body = JSON.parse(r.stdout).body as string;
    expect(body).toMatch(
      /"deliveryArea":"80361","deliveryAddress":"Jl. Kuta","shipping":"RPX","shippingService":"REG","pickupArea":"17473","pickupAddress":"Jl. Gudang 2"}$/,
    );
  });

  it('refuses an amount that differs from the items unless allowed', async () => {
    expect((await cli(['pay', '--method', 'va', '--channel', 'bca', ...buyer, '--item', 'A:1:1000', '--amount', '5000'])).code).toBe(2);
    expect(
      (await cli(['pay', '--method', 'va', '--channel', 'bca', ...buyer, '--item', 'A:1:1000', '--amount', '5000', '--allow-amount-mismatch', '--json'])).code,
    ).toBe(0);
  });

  it('names every missing flag when it cannot prompt (exit 4)', async () => {
    const r = await cli(['pay', '--method', 'va']);
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('missing --channel, --name, --phone, --email, --notify-url, --item');
    const noInput = await cli(['pay', '--no-input', '--method', 'va'], {}, true);
    expect(noInput.code).toBe(4);
  });

  it('takes notify-url from the environment', async () => {
    const r = await cli(
      ['pay', '--method', 'va', '--channel', 'bca', '--name', 'A', '--phone', '08123456789', '--email', 'a@b.co', '--item', 'A:1:1000', '--json'],
      { PAYCLI_NOTIFY_URL: 'http://127.0.0.1:9/from-env' },
    );
    expect(r.code).toBe(0);
    expect(fx.sb.state.get(JSON.parse(r.stdout).TransactionId)!.notifyUrl).toBe('http://127.0.0.1:9/from-env');
  });

  it('prints the signed body with --dry-run and sends nothing', async () => {
    const before = count();
    const r = await cli(['pay', '--method', 'ewallet', '--channel', 'dana', ...buyer, '--item', 'Kopi/Teh Ö:1:1000', '--reference-id', 'R1', '--dry-run']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('"product":["Kopi/Teh \\u00d6"]');
    expect(count()).toBe(before);
  });
});

describe('the QRIS code on a terminal', () => {
  it('is drawn with its own colour codes (not escaped), only on a terminal that shows colours', async () => {
    const qris = ['pay', '--method', 'qris', ...buyer, '--item', 'Tiket:1:102000'];
    const drawn = await cli(qris, { TERM: 'xterm-256color' }, true);
    expect(drawn.code, drawn.stderr).toBe(0);
    expect(drawn.stdout).toContain('\u001b[30;47m');
    expect(drawn.stdout).not.toContain('\\e[');
    // Every line of the picture is the same fixed pieces: colour on, half blocks, colour off.
    const rows = drawn.stdout.split('\n').filter((l) => l.startsWith('\u001b[30;47m'));
    expect(rows.length).toBeGreaterThan(10);
    for (const row of rows) expect(row).toMatch(/^\u001b\[30;47m[ ▀▄█]+\u001b\[0m$/);
    const dumb = await cli(qris, { TERM: 'dumb' }, true);
    expect(dumb.stdout).not.toMatch(/[▀▄█]/);
    expect(dumb.stdout).toContain('QRIS payload  000201');
    const piped = await cli(qris, { TERM: 'xterm-256color' }, false);
    expect(piped.stdout).not.toMatch(/[▀▄█]/);
  });
});

describe('production guard and gateway errors', () => {
  it('refuses production without a terminal unless --yes', async () => {
    const env = { PAYCLI_ENV: 'production', PAYCLI_BASE_URL: fx.sb.apiUrl, PAYCLI_VA: '1179000899', PAYCLI_API_KEY: 'SANDBOX-PAYCLI-LOCAL-0000-KEY' };
    const r = await runCli(['pay', '--method', 'va', '--channel', 'bca', ...buyer, '--item', 'A:1:1000'], { env, home: fx.home.home });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('refusing to send a production payment');
    expect(r.stderr).toContain('--yes');
    const ok = await runCli(['pay', '--yes', '--method', 'va', '--channel', 'bca', ...buyer, '--item', 'A:1:1000', '--json'], { env, home: fx.home.home });
    expect(ok.code).toBe(0);
  });

  it('guards by where the payment goes: the production host under the default env needs --yes', async () => {
    // The emulator stands in for https://my.ipaymu.com (dispatcherToEmulator): nothing leaves loopback.
    const dispatcher = await dispatcherToEmulator(fx.sb);
    const creds = { PAYCLI_VA: '1179000899', PAYCLI_API_KEY: 'SANDBOX-PAYCLI-LOCAL-0000-KEY' };
    const pay = async (argv: string[], env: Record<string, string>) => {
      const { ctx, err } = testContext({ env: { ...creds, ...env }, home: fx.home.home });
      ctx.dispatcher = dispatcher;
      return { code: await run(['pay', '--method', 'va', '--channel', 'bca', ...buyer, '--item', 'A:1:1000', '--json', ...argv], ctx), stderr: err() };
    };
    try {
      const before = allTxns(fx.sb.state).length;
      for (const [argv, env] of [
        [['--base-url', 'https://my.ipaymu.com/api'], {}],
        [[], { PAYCLI_BASE_URL: 'https://MY.ipaymu.com./api' }],
        [['--env', 'local', '--base-url', 'https://my.ipaymu.com:443/api/'], {}],
      ] as const) {
        const r = await pay([...argv], { ...env });
        expect(r.code, r.stderr).toBe(4);
        expect(r.stderr).toMatch(/refusing to send a production payment without confirmation: .*is the production gateway/);
      }
      expect(allTxns(fx.sb.state).length).toBe(before);
      const ok = await pay(['--base-url', 'https://my.ipaymu.com/api', '--yes'], {});
      expect(ok.code, ok.stderr).toBe(0);
      expect(allTxns(fx.sb.state).length).toBe(before + 1);
    } finally {
      await dispatcher.close();
    }
  });

  it('maps a gateway 400 to exit 3 listing each field error, and --raw prints the envelope', async () => {
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () =>
        res
          .writeHead(400, { 'content-type': 'application/json' })
          .end(
            '{"Status":400,"Success":false,"Message":"error - invalid request","Error":{"phone":["phone tidak valid."],"amount":["amount minimal 10000."]},"Data":null}',
          ),
      );
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
    const r = await cli(['pay', '--method', 'va', '--channel', 'bca', ...buyer, '--item', 'A:1:1000'], { PAYCLI_BASE_URL: url });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('phone: "phone tidak valid."'); // the gateway's words, quoted as received
    expect(r.stderr).toContain('amount: "amount minimal 10000."');
    const raw = await cli(['pay', '--method', 'va', '--channel', 'bca', ...buyer, '--item', 'A:1:1000', '--raw', '--json']);
    expect(JSON.parse(raw.stdout)).toMatchObject({ Status: 200, Success: true, Message: 'Success' });
    await new Promise((r) => server.close(r));
  });
});
