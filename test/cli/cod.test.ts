import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { codRequest, COD_ROUTES, pickupParams, rateParams, readCodAreas } from '../../src/core/api/cod.js';
import { signRequest } from '../../src/core/signing/request-signature.js';
import { runCli, tempHome } from '../helpers/cli.js';

const VA = '1179000899';
const KEY = 'SANDBOX-KEY-0123456789';
const AREA = {
  status: 200,
  success: true,
  status_title: 'success',
  message: 'Success',
  data: [
    {
      id: 17473,
      label: 'GROGOL, GROGOL PETAMBURAN, JAKARTA BARAT, 11450',
      subdistrict_name: 'GROGOL',
      district_name: 'GROGOL PETAMBURAN',
      city_name: 'JAKARTA BARAT',
      zip_code: '11450',
    },
  ],
};
const ok = (Data: unknown) => JSON.stringify({ Status: 200, Success: true, Message: 'success', Data });

type Seen = { method: string; url: string; headers: IncomingMessage['headers']; body: string };

/** A gateway offering COD logistics on the given paths only (others 404), answering documented shapes. */
function gateway(paths: Record<string, (s: Seen) => { status?: number; type?: string; body: string | Buffer }>) {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const s = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString() };
      seen.push(s);
      const route = paths[`${s.method} ${s.url.split('?')[0]}`];
      if (!route) {
        res.statusCode = 404;
        res.setHeader('content-type', 'text/html');
        return res.end('<html>Not Found</html>');
      }
      const a = route(s);
      res.statusCode = a.status ?? 200;
      res.setHeader('content-type', a.type ?? 'application/json');
      res.end(a.body);
    });
  });
  return { server, seen };
}

describe('COD logistics requests (unit)', () => {
  it('a GET puts its parameters in the query and signs their JSON; a POST sends JSON', () => {
    expect(codRequest(COD_ROUTES.area[0]!, { area: 'grogol petamburan' })).toEqual({
      method: 'GET',
      path: 'v2/cod/area?area=grogol+petamburan',
      signed: '{"area":"grogol petamburan"}',
    });
    expect(codRequest(COD_ROUTES.label[0]!, { transaction_id: 100001 })).toEqual({ method: 'GET', path: 'v2/cod/download-label/100001' });
    expect(codRequest(COD_ROUTES.label[1]!, { transaction_id: 100001 })).toEqual({
      method: 'POST',
      path: 'v2/payment/label',
      signed: '{"transaction_id":100001}',
      body: '{"transaction_id":100001}',
    });
    expect(rateParams('17473', '17474', '1.5', '100000')).toEqual({ destination_area_id: 17474, pickup_area_id: 17473, weight: 1.5, amount: 100000 });
  });

  it('refuses bad values before anything is sent', () => {
    expect(() => rateParams('x', '1', '1', '1')).toThrow(/--from/);
    expect(() => rateParams('1', '1', '0', '1')).toThrow(/--weight/);
    expect(() => rateParams('1', '1', '1', '1.5')).toThrow(/--amount/);
    expect(() => pickupParams('100001', '2026-02-30', '14:00', 'Motor')).toThrow(/--date/);
    expect(() => pickupParams('100001', '2026-02-28', '24:00', 'Motor')).toThrow(/--time/);
    expect(() => pickupParams('100001', '2026-02-28', '14:00', 'Truk')).toThrow(/--vehicle/);
    expect(pickupParams('100001', '2026-02-28', '09:30', 'mobil')).toEqual({
      transaction_id: 100001,
      pickup_date: '2026-02-28',
      pickup_time: '09:30',
      pickup_vehicle: 'Mobil',
    });
  });

  it('the area answer must be the lower-case envelope', () => {
    expect(readCodAreas(200, JSON.stringify(AREA))[0]).toEqual({
      id: 17473,
      label: AREA.data[0]!.label,
      subdistrict: 'GROGOL',
      district: 'GROGOL PETAMBURAN',
      city: 'JAKARTA BARAT',
      postalCode: '11450',
    });
    expect(() => readCodAreas(200, JSON.stringify({ Status: 200, Success: true, Data: AREA.data }))).toThrow(/lower-case/);
    expect(() => readCodAreas(200, JSON.stringify({ ...AREA, data: [{ label: 'x' }] }))).toThrow(/without an id/);
    expect(() => readCodAreas(200, '<html>')).toThrow(/not JSON/);
  });
});

describe('paycli cod against a gateway', () => {
  const servers: Server[] = [];
  const home = tempHome();
  const dir = mkdtempSync(join(tmpdir(), 'paycli-cod-'));
  const start = async (g: ReturnType<typeof gateway>) => {
    await new Promise<void>((r) => g.server.listen(0, '127.0.0.1', r));
    servers.push(g.server);
    return `http://127.0.0.1:${(g.server.address() as AddressInfo).port}/api`;
  };
  const cli = (base: string, argv: string[], env: Record<string, string> = {}) =>
    runCli(argv, { env: { PAYCLI_BASE_URL: base, PAYCLI_VA: VA, PAYCLI_API_KEY: KEY, ...env }, home: home.home, cwd: dir });
  afterAll(() => {
    for (const s of servers) s.close();
  });

  it('area: the collection path first, signed over the query JSON; a table of areas', async () => {
    const g = gateway({ 'GET /api/v2/cod/area': () => ({ body: JSON.stringify(AREA) }) });
    const base = await start(g);
    const r = await cli(base, ['cod', 'area', 'grogol']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/17473\s+GROGOL\s+GROGOL PETAMBURAN\s+JAKARTA BARAT\s+11450/);
    expect(g.seen[0]!.url).toBe('/api/v2/cod/area?area=grogol');
    expect(g.seen[0]!.headers.signature).toBe(signRequest({ method: 'GET', va: VA, apiKey: KEY, body: '{"area":"grogol"}' }).signature);
    const short = await cli(base, ['cod', 'area', 'gr']);
    expect(short.code).toBe(2);
  });

  it('falls back in a fixed order on 404, says which path answered with --debug, and checks the envelope', async () => {
    const g = gateway({ 'POST /api/v2/cod/getarea': () => ({ body: JSON.stringify(AREA) }) });
    const base = await start(g);
    const r = await cli(base, ['cod', 'area', 'grogol', '--debug', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)[0].id).toBe(17473);
    expect(g.seen.map((s) => `${s.method} ${s.url.split('?')[0]}`)).toEqual(['GET /api/v2/cod/area', 'POST /api/v2/payment/area', 'POST /api/v2/cod/getarea']);
    expect(g.seen[2]!.body).toBe('{"area":"grogol"}');
    expect(r.stderr).toMatch(/v2\/cod\/getarea \(PHP SDK\): 200/);
    const wrong = gateway({ 'GET /api/v2/cod/area': () => ({ body: ok(AREA.data) }) });
    const bad = await cli(await start(wrong), ['cod', 'area', 'grogol']);
    expect(bad.code).toBe(5);
    const none = await cli(await start(gateway({})), ['cod', 'area', 'grogol']);
    expect(none.code).toBe(3);
    expect(none.stderr).toMatch(/no COD area path answered/);
  });

  it('rate lists services; track reads the history; errors map to exit codes', async () => {
    const g = gateway({
      'POST /api/v2/cod/shipping-calculate': () => ({
        body: ok([{ shipping: 'IDEXPRESS', shippingService: 'STD', name: 'ID Express Standard', price: 9000, etd: '2-3 days' }]),
      }),
      'POST /api/v2/cod/tracking': (s) =>
        JSON.parse(s.body).awb === 'NOPE'
          ? { status: 400, body: JSON.stringify({ Status: 400, Success: false, Message: 'awb not found' }) }
          : { body: ok({ awb: 'PCL1', status: 'in transit', history: [{ at: '2026-11-25 10:00', status: 'picked up', note: 'Denpasar' }] }) },
    });
    const base = await start(g);
    const rate = await cli(base, ['cod', 'rate', '--from', '17473', '--to', '17474', '--weight', '1', '--amount', '100000']);
    expect(rate.code, rate.stderr).toBe(0);
    expect(rate.stdout).toMatch(/IDEXPRESS\s+STD\s+ID Express Standard\s+Rp\s?9\.000\s+2-3 days/);
    expect(JSON.parse(g.seen.at(-1)!.body)).toEqual({ destination_area_id: 17474, pickup_area_id: 17473, weight: 1, amount: 100000 });
    const track = await cli(base, ['cod', 'track', '--awb', 'PCL1', '--json']);
    expect(JSON.parse(track.stdout)).toEqual({
      awb: 'PCL1',
      status: 'in transit',
      history: [{ at: '2026-11-25 10:00', status: 'picked up', note: 'Denpasar' }],
    });
    expect((await cli(base, ['cod', 'track', '--awb', 'NOPE'])).code).toBe(3);
    expect((await cli(base, ['cod', 'track'])).code).toBe(2);
    expect((await cli(base, ['cod', 'track', '--awb', 'A', '--trx', '1'])).code).toBe(2);
  });

  it('label saves the PDF 0600 and never overwrites without --force', async () => {
    const pdf = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.from([0xff, 0x00, 0xc3, 0x28]), Buffer.from('\n%%EOF\n')]);
    const g = gateway({ 'GET /api/v2/cod/download-label/100001': () => ({ type: 'application/pdf', body: pdf }) });
    const base = await start(g);
    const r = await cli(base, ['cod', 'label', '100001']);
    expect(r.code, r.stderr).toBe(0);
    const file = join(dir, 'label-100001.pdf');
    expect(readFileSync(file).equals(pdf)).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const again = await cli(base, ['cod', 'label', '100001']);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/already exists/);
    expect((await cli(base, ['cod', 'label', '100001', '--force'])).code).toBe(0);
    expect(existsSync(file)).toBe(true);
    // A symlink or a FIFO at --output: a one-line usage error, and nothing written through it.
    writeFileSync(join(dir, 'keep.txt'), 'keep');
    symlinkSync(join(dir, 'keep.txt'), join(dir, 'link.pdf'));
    const link = await cli(base, ['cod', 'label', '100001', '--output', 'link.pdf', '--force']);
    expect(link.code).toBe(2);
    expect(link.stderr).toMatch(/symbolic link/);
    expect(readFileSync(join(dir, 'keep.txt'), 'utf8')).toBe('keep');
    execFileSync('mkfifo', [join(dir, 'pipe.pdf')]);
    const fifo = await cli(base, ['cod', 'label', '100001', '--output', 'pipe.pdf', '--force']);
    expect(fifo.code).toBe(2);
    expect(fifo.stderr).toMatch(/not a regular file/);
  });

  it('pickup: checked locally, guarded in production, sent with the documented names', async () => {
    const g = gateway({ 'POST /api/v2/cod/pickup': () => ({ body: ok({ pickup: true }) }) });
    const base = await start(g);
    const r = await cli(base, ['cod', 'pickup', '100001', '--date', '2026-12-01', '--time', '14:00', '--vehicle', 'motor']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(g.seen.at(-1)!.body)).toEqual({ transaction_id: 100001, pickup_date: '2026-12-01', pickup_time: '14:00', pickup_vehicle: 'Motor' });
    const prod = await runCli(['cod', 'pickup', '100001', '--date', '2026-12-01', '--time', '14:00', '--vehicle', 'Motor'], {
      env: { PAYCLI_ENV: 'production', PAYCLI_VA: VA, PAYCLI_API_KEY: KEY },
      home: home.home,
    });
    expect(prod.code).toBe(4);
  });
});
