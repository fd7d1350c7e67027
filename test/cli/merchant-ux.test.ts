import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { EmulatorHandle } from '../../src/core/sandbox/server.js';
import { parseQuantity, parseRupiah } from '../../src/core/money.js';
import { normalizePhone } from '../../src/core/phone.js';
import { inEnglish, parseItem } from '../../src/cli/commands/pay-input.js';
import { UsageError } from '../../src/core/errors.js';
import { payVa } from '../helpers/argv.js';
import { runCli, tempHome } from '../helpers/cli.js';
import { EMULATOR_DEFAULT_VA, sandbox } from '../helpers/sandbox.js';
import { leaksKeyPart, shownKey } from '../helpers/key-mask.js';

// Issue 19: money, profiles, --env local, one masking style, phone numbers, English messages.

let sb: EmulatorHandle;
beforeAll(async () => (sb = await sandbox()));
afterAll(() => sb.close());
let h: ReturnType<typeof tempHome>;
beforeEach(() => (h = tempHome()));
afterEach(() => h.cleanup());
const cfgPath = () => join(h.home, '.config', 'paycli', 'config.json');
const buyer = ['--name', 'Putu Ayu', '--phone', '08123456789', '--email', 'putu@mail.com', '--notify-url', 'http://127.0.0.1:9/callback'];

describe('"25.000" is twenty-five thousand', () => {
  it('parses the ways Indonesians write Rupiah', () => {
    for (const [text, n] of [
      ['25000', 25000],
      ['25.000', 25000],
      ['25.000.000', 25_000_000],
      ['Rp 25.000', 25000],
      ['Rp25.000', 25000],
      ['rp. 25.000', 25000],
      ['Rp 25.000,00', 25000],
      ['25.000,-', 25000],
      [' 1000 ', 1000],
    ] as const) {
      expect(parseRupiah(text, '--price'), text).toBe(n);
    }
  });

  it('refuses fractional and ambiguous amounts with one line saying how to write them', () => {
    for (const text of ['25.5', '25,50', '2.50', '1,000', '25 000', '25.0000', '.500', '-5', '0', '1e6', 'Rp', '', '9.007.199.254.740.993']) {
      expect(() => parseRupiah(text, '--price'), text).toThrow(UsageError);
    }
    expect(() => parseRupiah('2.50', '--price')).toThrow(
      'invalid --price "2.50": a fractional amount; Rupiah are whole numbers: write 25000, 25.000 or Rp 25.000 (dots group thousands; there are no decimals)',
    );
    expect(() => parseQuantity('1.5', '--qty')).toThrow(/whole number above 0/);
    expect(() => parseQuantity('0', '--qty')).toThrow(UsageError);
    expect(parseQuantity('3', '--qty')).toBe(3);
  });

  it('reads --item prices, quantities and COD dimensions', () => {
    expect(parseItem('Kopi:2:25.000')).toEqual({ product: 'Kopi', qty: 2, price: 25000 });
    expect(parseItem('Kopi: Gayo:1:Rp 62.500')).toEqual({ product: 'Kopi: Gayo', qty: 1, price: 62500 });
    expect(parseItem('Kaos:1:75.000:0.3:20:5:30')).toEqual({ product: 'Kaos', qty: 1, price: 75000, weight: 0.3, width: 20, height: 5, length: 30 });
    expect(() => parseItem('Kopi:2:25,50')).toThrow(/fractional/);
    expect(() => parseItem('Kopi:1.5:25000')).toThrow(/whole number/);
  });

  it('pay, --price, --amount and trigger --amount all use it', async () => {
    const env = { PAYCLI_ENV: 'local', PAYCLI_BASE_URL: sb.apiUrl };
    const r = await runCli(['pay', '--method', 'va', '--channel', 'bca', ...buyer, '--item', 'Kopi:2:25.000', '--amount', 'Rp 50.000', '--json'], {
      env,
      home: h.home,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(sb.state.get(JSON.parse(r.stdout).TransactionId)!.amount).toBe(50000);
    const p = await runCli(['pay', '--method', 'va', '--channel', 'bca', ...buyer, '--product', 'Teh', '--qty', '3', '--price', '12.500', '--json'], {
      env,
      home: h.home,
    });
    expect(p.code, p.stderr).toBe(0);
    expect(sb.state.get(JSON.parse(p.stdout).TransactionId)!.amount).toBe(37500);
    const bad = await runCli(['pay', '--method', 'va', '--channel', 'bca', ...buyer, '--item', 'Kopi:2:25,50'], { env, home: h.home });
    expect(bad.code).toBe(2);
    expect(bad.stderr.split('\n')[0]).toContain('a fractional amount; Rupiah are whole numbers');
    const mismatch = await runCli(['pay', '--method', 'va', '--channel', 'bca', ...buyer, '--item', 'Kopi:2:25.000', '--amount', '25.000'], {
      env,
      home: h.home,
    });
    expect(mismatch.stderr).toContain("--amount Rp 25.000 differs from the items' total Rp 50.000");
    const t = await runCli(['trigger', '--to', 'http://127.0.0.1:9/cb', '--amount', '2.50', '--no-persist'], { env, home: h.home });
    expect(t.code).toBe(2);
    expect(t.stderr).toContain('invalid --amount "2.50": a fractional amount');
  });
});

describe('Indonesian mobile numbers', () => {
  it('accepts 08…, 62…, +62… and normalises to 08…', () => {
    for (const p of ['08123456789', '628123456789', '+628123456789', '+62 812-3456-789', '0812 3456 7890'])
      expect(normalizePhone(p), p).toMatch(/^08123456789\d?$/);
    for (const p of ['0000000000', '021555123', '0812345', '081234567890123', '+6508123456789', '8123456789', 'abc'])
      expect(() => normalizePhone(p), p).toThrow(UsageError);
  });

  it('pay refuses 0000000000 and sends the normalised number', async () => {
    const env = { PAYCLI_ENV: 'local', PAYCLI_BASE_URL: sb.apiUrl };
    const zero = await runCli([...payVa({ phone: '0000000000' }), '--notify-url', 'http://127.0.0.1:9/cb', '--item', 'A:1:1000'], {
      env,
      home: h.home,
    });
    expect(zero.code).toBe(2);
    expect(zero.stderr).toContain('invalid --phone "0000000000": expected an Indonesian mobile number');
    const dry = await runCli([...payVa({ phone: '+62 812-3456-789' }), '--notify-url', 'http://127.0.0.1:9/cb', '--item', 'A:1:1000', '--dry-run'], {
      env,
      home: h.home,
    });
    expect(dry.stdout).toContain('"phone":"08123456789"');
  });
});

describe('validation speaks English', () => {
  it('translates every field error of the local validation', async () => {
    expect(inEnglish('deliveryArea harus berupa kode pos atau id area.')).toBe('must be a postal code or an area id (digits; see `paycli cod area`)');
    expect(inEnglish('paymentChannel tidak valid untuk va. Pilihan: bca, bni.')).toBe('not a channel of va; one of bca, bni');
    const env = { PAYCLI_ENV: 'local', PAYCLI_BASE_URL: sb.apiUrl };
    const r = await runCli(['pay', '--method', 'cod', ...buyer, '--item', 'Kaos:1:75000'], { env, home: h.home });
    expect(r.code).toBe(2);
    const first = r.stderr.split('\n')[0]!;
    expect(first).toContain('--weight: required');
    expect(first).not.toMatch(/wajib|harus|tidak valid/);
  });
});

describe('production is never the default by accident', () => {
  it('README sequence: init --profile prod does not become the default; set names the profile it writes', async () => {
    const init = await runCli(
      ['config', 'init', '--profile', 'prod', '--env', 'production', '--va', '2220002220', '--api-key', 'PROD-KEY-1234567890', '--no-input'],
      { home: h.home },
    );
    expect(init.code).toBe(0);
    expect(init.stderr).toContain('"prod" is not the default profile');
    expect(JSON.parse(readFileSync(cfgPath(), 'utf8')).defaultProfile).toBeUndefined();
    const set = await runCli(['config', 'set', 'va', '1179000899'], { home: h.home });
    expect(set.code).toBe(0);
    expect(set.stdout).toBe('set va = …0899 in profile "default"\n');
    const file = JSON.parse(readFileSync(cfgPath(), 'utf8'));
    expect(file.profiles.prod.va).toBe('2220002220');
    expect(file.defaultProfile).toBe('default');
  });

  it("refuses to change a production profile's secrets unless --profile names it", async () => {
    await runCli(['config', 'init', '--profile', 'prod', '--env', 'production', '--va', '2220002220', '--api-key', 'PROD-KEY-1234567890', '--default'], {
      home: h.home,
    });
    expect(JSON.parse(readFileSync(cfgPath(), 'utf8')).defaultProfile).toBe('prod');
    const r = await runCli(['config', 'set', 'api-key', '-'], { home: h.home, stdin: 'OTHER-KEY-0987654321' });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('refusing to set api-key of profile "prod": it is a production profile');
    expect(r.stderr).toContain('--profile prod');
    expect((await runCli(['config', 'unset', 'va'], { home: h.home })).code).toBe(2);
    expect((await runCli(['config', 'set', 'notify-url', 'https://shop.example/cb'], { home: h.home })).code).toBe(0);
    const named = await runCli(['config', 'set', 'api-key', '-', '--profile', 'prod'], { home: h.home, stdin: 'OTHER-KEY-0987654321' });
    expect(named.code).toBe(0);
    expect(JSON.parse(readFileSync(cfgPath(), 'utf8')).profiles.prod.apiKey).toBe('OTHER-KEY-0987654321');
  });

  it('a production profile named "default" is not used until named or made the default', async () => {
    const init = await runCli(['config', 'init', '--env', 'production', '--va', '2220002220', '--api-key', 'PROD-KEY-1234567890'], { home: h.home });
    expect(init.stderr).toContain('"default" is not the default profile');
    const who = await runCli(['whoami', '--json'], { home: h.home });
    expect(JSON.parse(who.stdout)).toMatchObject({ env: { value: 'sandbox', origin: 'default' }, va: null });
    expect(who.stderr).toContain('profile \\"default\\" is a production profile and not the default, so it is not used');
    expect(JSON.parse((await runCli(['whoami', '--json', '--profile', 'default'], { home: h.home })).stdout).env.value).toBe('production');
    await runCli(['config', 'use', 'default'], { home: h.home });
    expect(JSON.parse((await runCli(['whoami', '--json'], { home: h.home })).stdout).env.value).toBe('production');
  });

  it('config set env production needs the profile named', async () => {
    await runCli(['config', 'init', '--va', '1179000899', '--api-key', 'DEV-KEY-1234567890'], { home: h.home });
    const r = await runCli(['config', 'set', 'env', 'production'], { home: h.home });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('refusing to turn profile "default" into a production profile without naming it');
    expect((await runCli(['config', 'set', 'env', 'production', '--profile', 'default'], { home: h.home })).code).toBe(0);
  });

  it('config profiles lists them, config use switches', async () => {
    await runCli(['config', 'init', '--profile', 'dev', '--env', 'sandbox', '--va', '1179000899', '--api-key', 'DEV-KEY-1234567890'], { home: h.home });
    await runCli(['config', 'init', '--profile', 'prod', '--env', 'production', '--va', '2220002220', '--api-key', 'PROD-KEY-1234567890'], { home: h.home });
    const plain = await runCli(['config', 'profiles'], { home: h.home });
    expect(plain.stdout).toBe('*\tdev\tsandbox\t…0899\tkey set\tdefault\n\tprod\tproduction\t…2220\tkey set\t\n');
    const list = await runCli(['config', 'profiles', '--no-color'], { home: h.home, tty: true });
    expect(list.stdout.split('\n')).toEqual([
      '   PROFILE  ENV         VA     API KEY',
      '*  dev      sandbox     …0899  key set  default',
      '   prod     production  …2220  key set',
      '',
    ]);
    expect(list.stdout).not.toContain('2220002220');
    const use = await runCli(['config', 'use', 'prod'], { home: h.home });
    expect(use.stdout).toBe('default profile is now "prod" (production)\n');
    expect(use.stderr).toContain('the default profile is now production');
    const json = JSON.parse((await runCli(['config', 'profiles', '--json'], { home: h.home })).stdout);
    expect(json).toEqual([
      { name: 'dev', active: false, default: false, env: 'sandbox', va: '…0899', apiKey: shownKey('DEV-KEY-1234567890') },
      { name: 'prod', active: true, default: true, env: 'production', va: '…2220', apiKey: shownKey('PROD-KEY-1234567890') },
    ]);
    expect((await runCli(['config', 'use', 'nope'], { home: h.home })).code).toBe(2);
  });
});

describe('--env local works whatever else is configured', () => {
  it('uses the emulator default merchant despite sandbox credentials in a profile or the environment', async () => {
    await runCli(['config', 'init', '--va', '1234567890', '--api-key', 'SANDBOX-REAL-KEY-123456'], { home: h.home });
    const env = { PAYCLI_BASE_URL: sb.apiUrl, PAYCLI_VA: '5550001111', PAYCLI_API_KEY: 'EXPORTED-KEY-1234567890' };
    const r = await runCli(['--env', 'local', 'areas', 'province', '--no-cache', '--json'], { env, home: h.home });
    expect(r.code, r.stderr).toBe(0);
    const who = JSON.parse((await runCli(['--env', 'local', 'whoami', '--json'], { env, home: h.home })).stdout);
    expect(who.va).toEqual({ value: '…0899', origin: 'emulator default' });
    // Explicit local credentials still count: flags, PAYCLI_* with PAYCLI_ENV=local, a local profile.
    const flagged = JSON.parse((await runCli(['--env', 'local', '--va', '5550001111', 'whoami', '--json'], { env, home: h.home })).stdout);
    expect(flagged.va.origin).toBe('flag --va');
    expect(flagged.apiKey.origin).toBe('env PAYCLI_API_KEY'); // a flag credential lets the exported key complete it
    const exported = JSON.parse((await runCli(['whoami', '--json'], { env: { ...env, PAYCLI_ENV: 'local' }, home: h.home })).stdout);
    expect(exported.va.origin).toBe('env PAYCLI_VA');
    await runCli(['config', 'init', '--profile', 'emu', '--env', 'local', '--va', '7770007770', '--api-key', 'LOCAL-KEY-1234567890'], { home: h.home });
    const profiled = JSON.parse((await runCli(['--profile', 'emu', 'whoami', '--json'], { home: h.home })).stdout);
    expect(profiled.va.value).toBe('…7770');
  });

  it("a profile's credentials stay in its environment", async () => {
    await runCli(['config', 'init', '--va', '1234567890', '--api-key', 'SANDBOX-REAL-KEY-123456'], { home: h.home });
    const r = await runCli(['--env', 'production', 'areas', 'province'], { home: h.home });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('no credentials for the production environment');
    expect(r.stderr).toContain('profile "default" holds sandbox credentials, not production ones');
  });

  it('a 401 from a loopback base URL names the VA sent and what the emulator expects', async () => {
    const r = await runCli(['areas', 'province', '--no-cache'], {
      env: { PAYCLI_ENV: 'local', PAYCLI_BASE_URL: sb.apiUrl, PAYCLI_VA: '5550001111', PAYCLI_API_KEY: 'WRONG-KEY-1234567890' },
      home: h.home,
    });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('sent VA …1111 to');
    expect(r.stderr).toContain(`accepts its default merchant: VA ${EMULATOR_DEFAULT_VA}, API key ${shownKey('SANDBOX-PAYCLI-LOCAL-0000-KEY')}`);
  });
});

describe('one masking style everywhere', () => {
  it('--dry-run masks the VA in the string to sign (human and JSON), like the headers', async () => {
    const env = { PAYCLI_VA: '0000001234567890', PAYCLI_API_KEY: 'YOUR_API_KEY_12345' };
    const human = await runCli(['areas', 'province', '--dry-run'], { env, home: h.home });
    expect(human.code).toBe(0);
    expect(human.stdout).toContain('va: 0000…7890');
    expect(human.stdout).toMatch(/# string to sign: GET:0000…7890:[0-9a-f]{64}:\[API key sha256=[0-9a-f]{8}\]/);
    expect(human.stdout).toContain(shownKey('YOUR_API_KEY_12345'));
    expect(leaksKeyPart(human.stdout, 'YOUR_API_KEY_12345')).toBe(false);
    expect(human.stdout).not.toContain('0000001234567890');
    const json = JSON.parse(
      (await runCli(['pay', '--method', 'va', '--channel', 'bca', ...buyer, '--item', 'A:1:1000', '--dry-run', '--json'], { env, home: h.home })).stdout,
    );
    expect(json.stringToSign).toMatch(/^POST:0000…7890:/);
    const sign = await runCli(['sign', 'request', '--http-method', 'GET', '--path', 'areas/province'], { env, home: h.home });
    expect(sign.stdout).not.toContain('0000001234567890');
    expect(sign.stdout).toContain('GET:0000…7890:');
    const old = await runCli(['sign', 'request', '--method', 'GET', '--path', 'areas/province'], { env, home: h.home });
    expect(old.code).toBe(0);
    expect(old.stderr).toContain('--method is deprecated for sign request');
    expect(old.stdout).toBe(sign.stdout);
    expect((await runCli(['sign', 'request', '--path', 'areas/province'], { env, home: h.home })).code).toBe(2);
  });

  it('config list and config get mask the VA unless --reveal', async () => {
    await runCli(['config', 'init', '--va', '1179000899', '--api-key', 'SANDBOX-REAL-KEY-123456'], { home: h.home });
    const list = await runCli(['config', 'list'], { home: h.home });
    expect(list.stdout).toContain('…0899');
    expect(list.stdout).not.toContain('1179000899');
    expect((await runCli(['config', 'get', 'va'], { home: h.home })).stdout).toBe('…0899\n');
    expect((await runCli(['config', 'get', 'va', '--reveal'], { home: h.home })).stdout).toBe('1179000899\n');
    writeFileSync(join(h.home, 'x'), '');
  });
});

describe('one meaning per flag', () => {
  it('--curl is a switch everywhere: sign-callback takes the URL in --to (the old spelling warns)', async () => {
    const payload = join(h.home, 'cb.form');
    writeFileSync(payload, 'trx_id=100001&status=berhasil&status_code=1&sid=abc&reference_id=R1&amount=102000');
    const base = ['sign-callback', payload, '--va', '1179000899'];
    const now = await runCli([...base, '--curl', '--to', 'http://127.0.0.1:3000/cb'], { home: h.home });
    expect(now.code).toBe(0);
    expect(now.stdout).toContain("curl -sS -X POST 'http://127.0.0.1:3000/cb'");
    expect(now.stderr).toBe('');
    const old = await runCli([...base, '--curl', 'http://127.0.0.1:3000/cb'], { home: h.home });
    expect(old.stdout.replace(/X-External-ID[^\n]*/, '')).toBe(now.stdout.replace(/X-External-ID[^\n]*/, ''));
    expect(old.stderr).toContain('--curl URL is deprecated: use --curl --to URL');
    expect((await runCli([...base, '--curl'], { home: h.home })).code).toBe(2);
    expect((await runCli([...base, '--to', 'http://127.0.0.1:3000/cb'], { home: h.home })).code).toBe(2);
  });

  it('--timeout takes a duration; subcommand help lists the global flags', async () => {
    const r = await runCli(['--env', 'local', '--base-url', sb.apiUrl, 'areas', 'province', '--no-cache', '--timeout', '5s', '--json'], { home: h.home });
    expect(r.code, r.stderr).toBe(0);
    const bad = await runCli(['areas', 'province', '--timeout', '30d'], { home: h.home, env: { PAYCLI_ENV: 'local' } });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('at most 2147483647 ms');
    const help = await runCli(['pay', '--help']);
    expect(help.stdout).toContain('Global Options:');
    expect(help.stdout).toMatch(/--env <name>/);
    // Long examples continue with \ and keep each flag beside its value.
    expect(help.stdout).toContain('--email putu@mail.com --item "Kopi Bali:2:50000" \\\n      --notify-url https://shop.example/callback');
    for (const args of [
      [],
      ['pay'],
      ['areas', 'province'],
      ['config', 'init'],
      ['listen'],
      ['sandbox'],
      ['trigger'],
      ['verify-callback'],
      ['events', 'list'],
      ['test-handler'],
      ['doctor'],
      ['sign', 'request'],
      ['demo'],
    ]) {
      const text = (await runCli([...args, '--help'])).stdout;
      for (const line of text.split('\n')) expect([...line].length, `${args.join(' ')}: ${line}`).toBeLessThanOrEqual(80);
    }
  });
});
