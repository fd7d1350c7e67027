import { describe, expect, it } from 'vitest';
import { payVa } from '../helpers/argv.js';
import { runCli } from '../helpers/cli.js';
import { EMULATOR_DEFAULT_API_KEY as KEY, EMULATOR_DEFAULT_VA as VA, localEnv, sandboxAndHome } from '../helpers/sandbox.js';

const OTHER = '1179000000000002';
const OTHER_KEY = 'OTHER-KEY-0123456789';
const CHILD = '1179000000000003';
const f = sandboxAndHome({
  accounts: [
    { va: VA, apiKey: KEY, active: true, name: 'Toko Satu', callbackFormat: 'form', closeApi: true },
    { va: OTHER, apiKey: OTHER_KEY, active: true, name: 'Toko Dua', callbackFormat: 'form' },
    { va: CHILD, active: true, name: 'Cabang Satu', callbackFormat: 'form', parent: VA },
  ],
});

const cli = (argv: string[], creds = { va: VA, key: KEY }, stdin?: string) =>
  runCli(argv, { env: localEnv(f.sb, { PAYCLI_VA: creds.va, PAYCLI_API_KEY: creds.key }), home: f.home.home, stdin });

async function balanceOf(va: string, creds = { va: VA, key: KEY }): Promise<number> {
  const r = await cli(['balance', '--json'], creds);
  expect(r.code, r.stderr).toBe(0);
  expect(JSON.parse(r.stdout).va).toBe(va);
  return JSON.parse(r.stdout).merchantBalance as number;
}

describe('paycli close … against the emulator', () => {
  it('is refused (403, exit 4) to an account it is not granted to', async () => {
    const r = await cli(['close', 'banklist', '--close-api'], { va: OTHER, key: OTHER_KEY });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/not granted to this account \(403\)/);
  });

  it('banklist and business-category answer the documented shapes', async () => {
    const banks = JSON.parse((await cli(['close', 'banklist', '--close-api', '--json'])).stdout) as { id: string; code: string; name: string }[];
    expect(banks).toContainEqual({ id: '014', code: '014', name: 'BANK BCA' });
    const cats = await cli(['close', 'business-category', '--close-api']);
    expect(cats.stdout).toMatch(/edukasi\s+Edukasi\s+Education/);
  });

  it('transferva moves settled balance once per referenceId; a repeat is 400 "transaction already exists"', async () => {
    const pay = await cli([...payVa(), '--item', 'Kopi:1:100000', '--notify-url', 'http://127.0.0.1:9/cb', '--json']);
    expect(pay.code, pay.stderr).toBe(0);
    await f.sb.pay(String(JSON.parse(pay.stdout).TransactionId));
    const before = await balanceOf(VA);
    const otherBefore = await balanceOf(OTHER, { va: OTHER, key: OTHER_KEY });
    const t = await cli(['close', 'transferva', '--close-api', '--receiver', OTHER, '--amount', '25000', '--reference-id', 'SPLIT-1', '--notes', 'bagi hasil']);
    expect(t.code, t.stderr).toBe(0);
    expect(t.stdout).toMatch(/transferred Rp\s?25\.000/);
    expect(await balanceOf(VA)).toBe(before - 25000);
    expect(await balanceOf(OTHER, { va: OTHER, key: OTHER_KEY })).toBe(otherBefore + 25000);
    const again = await cli(['close', 'transferva', '--close-api', '--receiver', OTHER, '--amount', '25000', '--reference-id', 'SPLIT-1']);
    expect(again.code).toBe(3);
    expect(again.stderr).toMatch(/transaction already exists/);
    expect(await balanceOf(VA)).toBe(before - 25000);
    const tooMuch = await cli(['close', 'transferva', '--close-api', '--receiver', OTHER, '--amount', String(before)]);
    expect(tooMuch.code).toBe(3);
    // Only from the caller or its own child accounts.
    const foreign = await cli(['close', 'transferva', '--close-api', '--sender', OTHER, '--receiver', CHILD, '--amount', '1']);
    expect(foreign.code).toBe(3);
    expect(foreign.stderr).toMatch(/Invalid sender va/);
  });

  it("register adds a member that can receive a transfer; profile shows it and masks the caller's key", async () => {
    const reg = await cli(
      ['close', 'register', '--close-api', '--name', 'Putu', '--email', 'putu@mail.com', '--phone', '08123456789', '--password-stdin', '--json'],
      undefined,
      'rahasia-sekali\n',
    );
    expect(reg.code, reg.stderr).toBe(0);
    const member = JSON.parse(reg.stdout) as { Email: string; Va: string; VaName: string };
    expect(member).toMatchObject({ Email: 'putu@mail.com', VaName: 'IPAYMU - Putu' });
    const t = await cli(['close', 'transferva', '--close-api', '--receiver', member.Va, '--amount', '1000']);
    expect(t.code, t.stderr).toBe(0);
    const p = await cli(['close', 'profile', '--close-api', '--account', member.Va, '--json']);
    expect(JSON.parse(p.stdout)).toMatchObject({ Va: member.Va, Name: 'Putu', Email: 'putu@mail.com', MemberBalance: 1000, IsMerchant: false });
    const mine = await cli(['close', 'profile', '--close-api', '--account', VA]);
    expect(mine.code, mine.stderr).toBe(0);
    expect(mine.stdout).not.toContain(KEY);
    expect((await cli(['close', 'profile', '--close-api', '--account', OTHER])).code).toBe(3);
    const dup = await cli(
      ['close', 'register', '--close-api', '--name', 'Putu', '--email', 'putu@mail.com', '--phone', '08123456789', '--password-stdin'],
      undefined,
      'rahasia-sekali\n',
    );
    expect(dup.code).toBe(3);
  });
});
