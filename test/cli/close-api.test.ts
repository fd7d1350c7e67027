import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeTransferVaBody, maskProfile } from '../../src/core/api/close.js';
import { runCli, tempHome } from '../helpers/cli.js';

/** A gateway that answers the Close API with the shapes of its documentation (content/close-api/*.mdx). */
function closeGateway(granted: boolean) {
  const seen: { url: string; body: string }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      seen.push({ url: req.url ?? '', body });
      res.setHeader('content-type', 'application/json');
      if (!granted) {
        res.statusCode = 403;
        return res.end('{"Status":403,"Success":false,"Message":"forbidden"}');
      }
      const data: Record<string, unknown> = {
        '/api/v2/profile': {
          Name: 'Putu',
          ApiKey: 'LIVE-SECRET-KEY-abcdef',
          Nik: '5171000000000001',
          BankNumber: '1234567890123',
          Va: JSON.parse(body || '{}').account,
        },
        '/api/v2/banklist': { bank: [{ id: '014', code: '014', name: 'BCA' }] },
        '/api/v2/business-category': [{ Code: 'edukasi', Name: 'Edukasi', NameEn: 'Education' }],
        '/api/v2/transferva': { TransactionId: 473615, ReferenceId: 'SPLIT-1', Amount: '100', Fee: 0 },
        '/api/v2/register': { Email: 'putu@mail.com', Va: '0000001234567890', VaName: 'Putu' },
      };
      res.end(JSON.stringify({ Status: 200, Success: true, Message: 'success', Data: data[req.url ?? ''] ?? null }));
    });
  });
  return { server, seen };
}

describe('paycli close (the private Close API)', () => {
  let granted: ReturnType<typeof closeGateway>;
  let refused: ReturnType<typeof closeGateway>;
  const url = (s: Server) => `http://127.0.0.1:${(s.address() as AddressInfo).port}/api`;
  const home = tempHome();
  const cli = (s: Server, argv: string[], stdin?: string) =>
    runCli(argv, { env: { PAYCLI_BASE_URL: url(s), PAYCLI_VA: '1179000899', PAYCLI_API_KEY: 'SANDBOX-KEY-0123456789' }, home: home.home, stdin });
  beforeAll(async () => {
    granted = closeGateway(true);
    refused = closeGateway(false);
    await Promise.all([granted, refused].map((g) => new Promise<void>((r) => g.server.listen(0, '127.0.0.1', r))));
  });
  afterAll(() => {
    granted.server.close();
    refused.server.close();
  });

  it('needs --close-api, and sends nothing without it', async () => {
    const before = granted.seen.length;
    const r = await cli(granted.server, ['close', 'banklist']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/private Close API/);
    expect(r.stderr).toMatch(/--close-api/);
    expect(granted.seen.length).toBe(before);
  });

  it('a 403 is explained as not granted to this account (exit 4)', async () => {
    const r = await cli(refused.server, ['close', 'business-category', '--close-api']);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/not granted to this account \(403\)/);
  });

  it('profile masks the API key, national id and bank number, in text and --json', async () => {
    for (const json of [false, true]) {
      const r = await cli(granted.server, ['close', 'profile', '--close-api', '--account', '1179000900', ...(json ? ['--json'] : [])]);
      expect(r.code, r.stderr).toBe(0);
      for (const secret of ['LIVE-SECRET-KEY-abcdef', '5171000000000001', '1234567890123']) expect(r.stdout).not.toContain(secret);
      expect(r.stdout).toContain('Putu');
    }
    expect(granted.seen.at(-1)!.body).toBe('{"account":"1179000900"}');
    expect(maskProfile({ apikey: 'abcdefghijkl', Name: 'x' })).toEqual({ apikey: expect.not.stringContaining('cdefghij'), Name: 'x' });
  });

  it('banklist and business-category read the documented shapes', async () => {
    const banks = await cli(granted.server, ['close', 'banklist', '--close-api', '--json']);
    expect(JSON.parse(banks.stdout)).toEqual([{ id: '014', code: '014', name: 'BCA' }]);
    const cats = await cli(granted.server, ['close', 'business-category', '--close-api']);
    expect(cats.stdout).toMatch(/edukasi\s+Edukasi\s+Education/);
  });

  it('transferva sends the documented body; register reads the password from stdin, never argv', async () => {
    const t = await cli(granted.server, [
      'close',
      'transferva',
      '--close-api',
      '--receiver',
      '1179000900',
      '--amount',
      '100',
      '--reference-id',
      'SPLIT-1',
      '--related-id',
      '100001',
    ]);
    expect(t.code, t.stderr).toBe(0);
    expect(JSON.parse(granted.seen.at(-1)!.body)).toEqual({
      sender: '1179000899',
      receiver: '1179000900',
      amount: 100,
      relatedId: '100001',
      referenceId: 'SPLIT-1',
    });
    expect(t.stdout).toMatch(/transferred Rp\s?100 · trx 473615/);
    const reg = await cli(
      granted.server,
      ['close', 'register', '--close-api', '--name', 'Putu', '--email', 'putu@mail.com', '--phone', '08123456789', '--password-stdin', '--json'],
      'rahasia-sekali\n',
    );
    expect(reg.code, reg.stderr).toBe(0);
    expect(JSON.parse(granted.seen.at(-1)!.body).password).toBe('rahasia-sekali');
    const noPrompt = await cli(granted.server, ['close', 'register', '--close-api', '--name', 'P', '--email', 'p@mail.com', '--phone', '0812']);
    expect(noPrompt.code).toBe(2);
    expect(() => encodeTransferVaBody({ sender: '1179000899', receiver: '1179000899', amount: 1 })).toThrow(/same VA/);
    expect(() => encodeTransferVaBody({ sender: '1179000899', receiver: '11790', amount: 1 })).toThrow(/--receiver/);
  });

  it('register: --dry-run masks the new password, --curl is refused, production asks first', async () => {
    const args = ['close', 'register', '--close-api', '--name', 'Putu', '--email', 'putu@mail.com', '--phone', '08123456789', '--password-stdin'];
    const before = granted.seen.length;
    const dry = await cli(granted.server, [...args, '--dry-run'], 'rahasia-sekali\n');
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('"password":"********"');
    expect(dry.stdout + dry.stderr).not.toContain('rahasia-sekali');
    const curl = await cli(granted.server, [...args, '--curl'], 'rahasia-sekali\n');
    expect(curl.code).toBe(2);
    expect(curl.stdout + curl.stderr).not.toContain('rahasia-sekali');
    expect(granted.seen.length).toBe(before);
    const prod = await runCli(args, {
      env: { PAYCLI_ENV: 'production', PAYCLI_VA: '1179000899', PAYCLI_API_KEY: 'LIVE-KEY-0123456789' },
      home: home.home,
      stdin: 'rahasia-sekali\n',
    });
    expect(prod.code).toBe(4);
  });

  it('a transfer to production needs confirmation', async () => {
    const r = await runCli(['close', 'transferva', '--close-api', '--receiver', '1179000900', '--amount', '100'], {
      env: { PAYCLI_ENV: 'production', PAYCLI_VA: '1179000899', PAYCLI_API_KEY: 'LIVE-KEY-0123456789' },
      home: home.home,
    });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/without confirmation/);
  });
});
