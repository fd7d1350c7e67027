import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApiBody, readApiPath } from '../../src/core/api/raw-request.js';
import { joinUrl } from '../../src/core/api/signed-request.js';
import { EMULATOR_DEFAULT_API_KEY, EMULATOR_DEFAULT_VA } from '../../src/core/config/resolve.js';
import { hashRequestBody, signRequest } from '../../src/core/signing/request-signature.js';
import type { EmulatorHandle } from '../../src/core/sandbox/server.js';
import { runCli, tempHome } from '../helpers/cli.js';
import { localEnv, sandbox } from '../helpers/sandbox.js';

describe('paycli api: the body and path rules', () => {
  it('builds JSON from fields: strings, typed values, lists', () => {
    expect(buildApiBody({ method: 'POST', fields: ['product[]=Kopi', 'qty[]:=2', 'price[]:=15000', 'account=1179', 'escrow:=true'], form: false }).body).toBe(
      '{"product":["Kopi"],"qty":[2],"price":[15000],"account":"1179","escrow":true}',
    );
    expect(buildApiBody({ method: 'POST', fields: ['product[]=Kopi Tubruk', 'product[]=a&b', 'qty[]:=1'], form: true })).toEqual({
      body: 'product%5B%5D=Kopi+Tubruk&product%5B%5D=a%26b&qty%5B%5D=1',
      contentType: 'application/x-www-form-urlencoded',
    });
  });

  it('sends --data byte for byte and refuses what cannot be sent', () => {
    const pretty = '{\n  "transactionId": 1\n}';
    expect(buildApiBody({ method: 'POST', data: pretty, fields: [], form: false }).body).toBe(pretty);
    expect(() => buildApiBody({ method: 'POST', data: '{nope', fields: [], form: false })).toThrow(/--data is not JSON/);
    expect(() => buildApiBody({ method: 'POST', data: '{}', fields: ['a=1'], form: false })).toThrow(/not both/);
    expect(() => buildApiBody({ method: 'GET', fields: ['a=1'], form: false })).toThrow(/GET sends no body/);
    expect(() => buildApiBody({ method: 'POST', fields: ['a=1', 'a=2'], form: false })).toThrow(/given twice/);
    expect(() => buildApiBody({ method: 'POST', fields: ['x'], form: false })).toThrow(/name=value/);
    expect(() => buildApiBody({ method: 'POST', fields: ['a:={'], form: false })).toThrow(/not JSON/);
    expect(buildApiBody({ method: 'GET', fields: [], form: false }).body).toBeUndefined();
  });

  it('takes paths relative to the base URL only', () => {
    expect(readApiPath('/v2/balance')).toBe('v2/balance');
    // A path as the gateway's docs write it, from the host: the base URL's /api is not doubled.
    expect(readApiPath('/api/v2/cod/area?area=kuta')).toBe('v2/cod/area?area=kuta');
    expect(readApiPath('api/areas/city/51')).toBe('areas/city/51');
    expect(readApiPath('areas/city/51?x=1')).toBe('areas/city/51?x=1');
    expect(() => readApiPath('https://my.ipaymu.com/api/v2/balance')).toThrow(/not a URL/);
    expect(() => readApiPath('//evil.example/v2')).toThrow(/not a URL/);
    expect(() => readApiPath('v2/../../admin')).toThrow(/"\.\."/);
    expect(() => readApiPath('  ')).toThrow(/give an API path/);
    // URL parsing reads a backslash as a slash and drops tabs: both would climb out unseen.
    expect(() => readApiPath('v2\\..\\..\\x')).toThrow(/backslash/);
    expect(() => readApiPath('v2/.\t./.\t./y')).toThrow(/control character/);
    expect(() => joinUrl('http://127.0.0.1:9/api', 'v2/%2e%2e/%2e%2e/x')).toThrow(/leads out of the API root/);
    expect(() => joinUrl('http://127.0.0.1:9/api', 'v2\\..\\..\\x')).toThrow(/leads out of the API root/);
    expect(joinUrl('http://127.0.0.1:9/api/', '/v2/balance')).toBe('http://127.0.0.1:9/api/v2/balance');
  });
});

describe('paycli api against the emulator', () => {
  let sb: EmulatorHandle;
  let home: ReturnType<typeof tempHome>;
  const cli = (argv: string[], extra: Record<string, string> = {}) => runCli(argv, { env: { ...localEnv(sb), ...extra }, home: home.home });
  beforeAll(async () => {
    sb = await sandbox();
    home = tempHome();
  });
  afterAll(async () => {
    await sb.close();
  });

  it('signs and sends a POST; --json prints the whole envelope', async () => {
    const r = await cli(['api', 'POST', 'v2/balance', '--field', `account=${EMULATOR_DEFAULT_VA}`, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const env = JSON.parse(r.stdout);
    expect(env).toMatchObject({ Status: 200, Success: true });
    expect(env.Data).toHaveProperty('MerchantBalance');
  });

  it('a GET without a body, and a payment made through it is visible to transaction', async () => {
    const ch = await cli(['api', 'GET', 'v2/payment-channels']);
    expect(ch.code, ch.stderr).toBe(0);
    expect(ch.stderr).toMatch(/HTTP 200 · GET /);
    const body = JSON.stringify({
      name: 'Putu',
      phone: '08123456789',
      email: 'putu@mail.com',
      amount: 25000,
      notifyUrl: 'http://127.0.0.1:9/cb',
      referenceId: 'API-1',
      paymentMethod: 'va',
      paymentChannel: 'bca',
    });
    const pay = await cli(['api', 'post', '/v2/payment/direct', '--data', '-'], {});
    expect(pay.code).toBe(2); // stdin is empty in runCli: not JSON
    const made = await cli(['api', 'POST', 'v2/payment/direct', '--data', body, '--json']);
    expect(made.code, made.stderr).toBe(0);
    const trx = JSON.parse(made.stdout).Data.TransactionId;
    const t = await cli(['transaction', String(trx), '--json']);
    expect(JSON.parse(t.stdout)).toMatchObject({ ReferenceId: 'API-1' });
  });

  it('an error answer exits like the other commands and still prints the envelope', async () => {
    const bad = await cli(['api', 'POST', 'v2/payment/direct', '--data', '{"paymentMethod":"va"}', '--json']);
    expect(bad.code).toBe(3);
    expect(JSON.parse(bad.stdout)).toMatchObject({ Success: false });
    expect(JSON.parse(bad.stderr.trim().split('\n').pop()!).error.exitCode).toBe(3);
    const auth = await cli(['api', 'POST', 'v2/balance', '--data', '{}'], { PAYCLI_API_KEY: 'wrong-key-123456' });
    expect(auth.code).toBe(4);
    expect(auth.stderr + auth.stdout).not.toContain('wrong-key-123456');
  });

  it('--dry-run and --curl send nothing and print no secret', async () => {
    const before = (await cli(['history', '--json'])).stdout;
    const dry = await cli(['api', 'POST', 'v2/payment/direct', '--field', 'amount:=1000', '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/POST http:\/\/127\.0\.0\.1:\d+\/api\/v2\/payment\/direct/);
    expect(dry.stdout).toContain('{"amount":1000}');
    expect(dry.stdout).toContain(`# body sha256:   ${hashRequestBody('{"amount":1000}')}`);
    const curl = await cli(['api', 'POST', 'v2/payment', '--form', '--field', 'product[]=Kopi', '--curl']);
    expect(curl.stdout).toContain('Content-Type: application/x-www-form-urlencoded');
    for (const r of [dry, curl]) expect(r.stdout + r.stderr).not.toContain(EMULATOR_DEFAULT_API_KEY);
    expect((await cli(['history', '--json'])).stdout).toBe(before);
  });
});

describe('paycli api and production', () => {
  it('refuses a POST to production without confirmation, and sends nothing', async () => {
    const home = tempHome();
    const r = await runCli(['api', 'POST', 'v2/payment/direct', '--field', 'amount:=1000'], {
      env: { PAYCLI_ENV: 'production', PAYCLI_VA: '1179000899', PAYCLI_API_KEY: 'LIVE-KEY-0123456789' },
      home: home.home,
    });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/refusing to send a production payment without confirmation: POST v2\/payment\/direct/);
  });
});

describe('paycli api sends exactly what it signs', () => {
  it("a form body goes with the form content type, signed over its fields' JSON as the collection does", async () => {
    let seen: { headers: IncomingMessage['headers']; body: string } | undefined;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        seen = { headers: req.headers, body: Buffer.concat(chunks).toString() };
        res.setHeader('content-type', 'application/json');
        res.end('{"Status":200,"Success":true,"Message":"ok","Data":{"echo":true}}');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
    const home = tempHome();
    const r = await runCli(['api', 'POST', 'v2/payment', '--form', '--field', 'product[]=Ayu ö', '--field', 'price[]:=5000'], {
      env: { PAYCLI_BASE_URL: base, PAYCLI_VA: '1179000899', PAYCLI_API_KEY: 'SANDBOXKEY-0123456789' },
      home: home.home,
    });
    server.close();
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ Data: { echo: true } });
    expect(seen!.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(seen!.body).toBe('product%5B%5D=Ayu+%C3%B6&price%5B%5D=5000');
    // Signed as the gateway's Postman collection signs a form: over the JSON of its fields (strings).
    expect(seen!.headers.signature).toBe(
      signRequest({ method: 'POST', va: '1179000899', apiKey: 'SANDBOXKEY-0123456789', body: '{"product":["Ayu ö"],"price":["5000"]}' }).signature,
    );
  });
});
