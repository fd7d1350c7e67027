import { createHash, createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatorHandle } from '../../src/core/sandbox/server.js';
import { runCli, tempHome } from '../helpers/cli.js';
import { EMULATOR_DEFAULT_API_KEY as KEY, EMULATOR_DEFAULT_VA as VA, localEnv, sandbox } from '../helpers/sandbox.js';

/**
 * The gateway's own Postman collection ("iPaymu Public API v2", github.com/ipaymu/docs-ipaymu-api-v2,
 * `iPaymu Public API v2.postman_collection.json`), replayed against the emulator. The collection
 * has no licence, so it is not copied: each request below is written in this file's own form from
 * the facts the collection states (method, path, the enabled form fields and their values), and
 * each saved answer as the keys and value types it has. Only the base URL and the credentials
 * change (`{{va}}`/`YOUR_IPAYMU_VA` → the emulator's VA). Bodies go as multipart/form-data, signed
 * over the JSON the collection's pre-request script builds (`scriptJson` below, written here anew).
 * The callback request of the collection (a POST to the merchant's URL) is not a gateway request.
 */
type Fields = [string, string][];
interface Req {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  query?: Fields;
  fields?: Fields;
  /** The saved answer's shape, where the collection has one; otherwise the gateway's envelope. */
  shape?: Shape;
  status: number;
}
/** A type name, an object of shapes, a one-element list (every item), or `any` (saved as null). */
type Shape = 'string' | 'number' | 'boolean' | 'any' | 'numeric' | Shape[] | { [k: string]: Shape };

const ENVELOPE: Shape = { Status: 'number', Success: 'boolean', Message: 'string' };
const TXN_RECORD: { [k: string]: Shape } = {
  TransactionId: 'number',
  SessionId: 'string',
  ReferenceId: 'any',
  RelatedId: 'number',
  Sender: 'string',
  Receiver: 'string',
  Amount: 'number',
  Fee: 'number',
  Status: 'number',
  StatusDesc: 'string',
  PaidStatus: 'string',
  Type: 'number',
  TypeDesc: 'string',
  Notes: 'any',
  CreatedDate: 'string',
  ExpiredDate: 'string',
  SuccessDate: 'any',
  SettlementDate: 'any',
  PaymentChannel: 'string',
  PaymentCode: 'string',
  BuyerName: 'string',
  BuyerPhone: 'string',
  BuyerEmail: 'string',
};

/** The collection's requests (folder "Payment" and the top level), in its order. */
const COLLECTION: Req[] = [
  {
    name: 'Get Area',
    method: 'GET',
    path: '/api/v2/cod/area',
    query: [['area', 'jakarta']],
    status: 200,
    shape: {
      status: 'number',
      success: 'boolean',
      status_title: 'string',
      message: 'string',
      data: [{ id: 'number', label: 'string', subdistrict_name: 'string', district_name: 'string', city_name: 'string', zip_code: 'string' }],
    },
  },
  { name: 'Download Label', method: 'GET', path: '/api/v2/cod/download-label/1234', status: 404 },
  {
    name: 'Shipping Calculate',
    method: 'POST',
    path: '/api/v2/cod/shipping-calculate',
    fields: [
      ['destination_area_id', '17473'],
      ['pickup_area_id', '17473'],
      ['weight', '1'],
      ['amount', '100000'],
    ],
    status: 400,
  },
  {
    name: 'Tracking',
    method: 'POST',
    path: '/api/v2/cod/tracking',
    fields: [
      ['awb', 'KOMSHIP00137699862'],
      ['transaction_id', '14919771'],
    ],
    status: 404,
  },
  {
    name: 'Request Pickup',
    method: 'POST',
    path: '/api/v2/cod/pickup',
    fields: [
      ['transaction_id', '16158750'],
      ['pickup_date', '2024-07-10'],
      ['pickup_time', '14:00'],
      ['pickup_vehicle', 'Motor'],
    ],
    status: 404,
  },
  {
    name: 'List Payment Channels',
    method: 'GET',
    path: '/api/v2/payment-channels',
    fields: [],
    status: 200,
    shape: {
      ...ENVELOPE,
      Data: [
        {
          Code: 'string',
          Name: 'string',
          Description: 'string',
          Channels: [
            {
              Code: 'string',
              Name: 'string',
              Description: 'string',
              Logo: 'string',
              PaymentInstructionsDoc: 'string',
              FeatureStatus: 'string',
              HealthStatus: 'string',
              TransactionFee: { ActualFee: 'number', ActualFeeType: 'string', AdditionalFee: 'number' },
            },
          ],
        },
      ],
    },
  },
  {
    name: 'Direct Payment',
    method: 'POST',
    path: '/api/v2/payment/direct',
    status: 200,
    fields: [
      ['name', 'Putu'],
      ['phone', '081999501092'],
      ['email', 'putu@mail.com'],
      ['amount', '2000000'],
      ['notifyUrl', 'https://your-website-notify-url.com'],
      ['referenceId', '1'],
      ['paymentMethod', 'va'],
      ['paymentChannel', 'cimb'],
      ['expired', '24'],
      ['comments', 'Payment to XYZ'],
      ['feeDirection', 'BUYER'],
      ['escrow', '0'],
      ['product[]', 'produk 1'],
      ['qty[]', '1'],
      ['price[]', '2000000'],
      ['weight[]', '1'],
      ['width[]', '1'],
      ['height[]', '1'],
      ['length[]', '1'],
      ['deliveryArea', '17473'],
      ['deliveryAddress', 'GROGOL, GROGOL PETAMBURAN, JAKARTA BARAT, 11450'],
      ['shipping', 'IDEXPRESS'],
      ['shippingService', 'STD'],
      ['account', 'YOUR_IPAYMU_VA'],
      ['successUrl', 'https://your-website.com/success-page'],
      ['cancelUrl', 'https://your-website.com/cancel-page'],
    ],
    shape: {
      Status: 'number',
      Message: 'string',
      Data: {
        SessionId: 'string',
        TransactionId: 'number',
        ReferenceId: 'string',
        Via: 'string',
        Channel: 'string',
        PaymentNo: 'string',
        PaymentName: 'string',
        Total: 'number',
        Fee: 'number',
        Expired: 'string',
      },
    },
  },
  {
    name: 'Redirect Payment',
    method: 'POST',
    path: '/api/v2/payment',
    status: 200,
    fields: [
      ['product[]', 'T-Shirt'],
      ['qty[]', '2'],
      ['price[]', '51000'],
      ['description[]', 'Size XL'],
      ['imageUrl[]', 'https://demo.ipaymu.com/assets/images/product-7.jpg'],
      ['weight[]', '0.5'],
      ['length[]', '1'],
      ['width[]', '1'],
      ['height[]', '1'],
      ['referenceId', 'ID1234'],
      ['returnUrl', 'https://your-website.com/thank-you-page'],
      ['notifyUrl', 'https://webhook.site/caef335b-f0bf-49d3-a532-35564f5241a2'],
      ['cancelUrl', 'https://your-website.com/failed-page'],
      ['buyerName', 'putu'],
      ['buyerEmail', 'putu@mail.com'],
      ['buyerPhone', '08123456789'],
      ['expired', '24'],
      ['feeDirection', 'MERCHANT'],
      ['account', 'YOUR_IPAYMU_VA'],
      ['lang', 'id'],
    ],
    shape: { Status: 'number', Data: { SessionID: 'string', Url: 'string' }, Message: 'string' },
  },
  {
    name: 'Check Transaction',
    method: 'POST',
    path: '/api/v2/transaction',
    fields: [
      ['transactionId', '4719'],
      ['account', 'YOUR_IPAYMU_VA'],
    ],
    status: 404,
  },
  {
    name: 'Check Balance',
    method: 'POST',
    path: '/api/v2/balance',
    fields: [['account', 'YOUR_IPAYMU_VA']],
    status: 200,
    // Saved with numeric strings; the Go SDK reads numbers (docs/merchant-api.md): either is read.
    shape: { Status: 'number', Data: { Va: 'string', MerchantBalance: 'numeric', MemberBalance: 'numeric' }, Message: 'string' },
  },
  {
    name: 'History Transaction',
    method: 'POST',
    path: '/api/v2/history',
    fields: [
      ['orderBy', 'id'],
      ['order', 'DESC'],
      ['limit', '20'],
    ],
    status: 200,
    shape: {
      ...ENVELOPE,
      Data: {
        Transaction: [{ ...TXN_RECORD, IsEscrow: 'boolean' }],
        Pagination: { total: 'number', count: 'number', per_page: 'number', current_page: 'number', total_pages: 'number' },
      },
    },
  },
];

/** The collection's pre-request script: query, then fields (first place, last value), `name[]` a list. */
function scriptJson(query: Fields, fields: Fields): string {
  const data: Record<string, unknown> = {};
  for (const [k, v] of query) data[k] = v;
  const temp: Record<string, string> = {};
  for (const [k, v] of fields) temp[k] = v;
  const lists = ['product', 'qty', 'price', 'weight', 'width', 'height', 'length', 'description', 'imageUrl'];
  for (const k of Object.keys(temp)) {
    if (!k.endsWith('[]')) data[k] = temp[k];
    else data[k.slice(0, -2)] = lists.includes(k.slice(0, -2)) && temp[k]!.includes(',') ? temp[k]!.split(',').map((x) => x.trim()) : [temp[k]];
  }
  return JSON.stringify(data);
}

let sb: EmulatorHandle;
const home = tempHome();
beforeAll(async () => {
  sb = await sandbox();
});
afterAll(async () => {
  await sb.close();
  home.cleanup();
});

async function replay(r: Req): Promise<{ status: number; type: string; body: Buffer }> {
  const fields = (r.fields ?? []).map(([k, v]): [string, string] => [k, v === 'YOUR_IPAYMU_VA' ? VA : v]);
  const query = r.query ?? [];
  const json = scriptJson(query, fields);
  const hash = createHash('sha256').update(json).digest('hex');
  const signature = createHmac('sha256', KEY).update(`${r.method}:${VA}:${hash}:${KEY}`).digest('hex');
  const form = new FormData();
  for (const [k, v] of fields) form.append(k, v);
  const url = `${sb.url}${r.path}${query.length ? `?${new URLSearchParams(query)}` : ''}`;
  const res = await fetch(url, {
    method: r.method,
    headers: { va: VA, signature, timestamp: '20260101000000' },
    ...(r.method === 'POST' ? { body: form } : {}),
  });
  return { status: res.status, type: res.headers.get('content-type') ?? '', body: Buffer.from(await res.arrayBuffer()) };
}

/** Where `value` departs from `shape`; empty when it has every key with its type. */
function mismatches(shape: Shape, value: unknown, at = '$'): string[] {
  if (shape === 'any') return [];
  if (shape === 'numeric')
    return typeof value === 'number' || (typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value)) ? [] : [`${at}: ${JSON.stringify(value)} is not numeric`];
  if (typeof shape === 'string') return typeof value === shape ? [] : [`${at}: ${typeof value} where the saved answer has ${shape}`];
  if (Array.isArray(shape)) {
    if (!Array.isArray(value)) return [`${at}: not a list`];
    return value.flatMap((v, i) => mismatches(shape[0]!, v, `${at}[${i}]`));
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [`${at}: not an object`];
  return Object.entries(shape).flatMap(([k, s]) => (k in value ? mismatches(s, (value as Record<string, unknown>)[k], `${at}.${k}`) : [`${at}.${k}: missing`]));
}

describe("the gateway's Postman collection, replayed against the emulator (multipart, signed its way)", () => {
  for (const r of COLLECTION) {
    it(`${r.name}: ${r.method} ${r.path} → ${r.status}`, async () => {
      const a = await replay(r);
      expect(a.type).toMatch(/application\/json/);
      const json = JSON.parse(a.body.toString('utf8')) as Record<string, unknown>;
      expect(a.status, JSON.stringify(json)).toBe(r.status);
      expect(mismatches(r.shape ?? ENVELOPE, json)).toEqual([]);
      if (r.shape && typeof r.shape === 'object' && !Array.isArray(r.shape) && 'data' in r.shape) expect((json.data as unknown[]).length).toBeGreaterThan(0);
    });
  }

  it("with the ids of the emulator's own payments, the logistics and check requests answer their success shapes", async () => {
    const area = JSON.parse((await replay(COLLECTION[0]!)).body.toString()) as { data: { id: number }[] };
    const id = String(area.data[0]!.id);
    const cod = await replay({
      ...COLLECTION[6]!,
      fields: COLLECTION[6]!.fields!.map(([k, v]): [string, string] =>
        k === 'paymentMethod' ? [k, 'cod'] : k === 'paymentChannel' ? [k, 'rpx'] : k === 'deliveryArea' ? [k, id] : [k, v],
      ),
    });
    const trx = String((JSON.parse(cod.body.toString()) as { Data: { TransactionId: number } }).Data.TransactionId);
    const rate = await replay({
      ...COLLECTION[2]!,
      status: 200,
      fields: [
        ['destination_area_id', id],
        ['pickup_area_id', id],
        ['weight', '1'],
        ['amount', '100000'],
      ],
    });
    expect(rate.status).toBe(200);
    expect(
      mismatches({ ...ENVELOPE, Data: [{ shipping: 'string', shippingService: 'string', price: 'number', etd: 'string' }] }, JSON.parse(rate.body.toString())),
    ).toEqual([]);
    const label = await replay({ ...COLLECTION[1]!, path: `/api/v2/cod/download-label/${trx}` });
    expect([label.status, label.type, label.body.subarray(0, 5).toString()]).toEqual([200, 'application/pdf', '%PDF-']);
    const track = await replay({ ...COLLECTION[3]!, fields: [['transaction_id', trx]] });
    expect(
      mismatches(
        { ...ENVELOPE, Data: { awb: 'string', status: 'string', history: [{ at: 'string', status: 'string', note: 'string' }] } },
        JSON.parse(track.body.toString()),
      ),
    ).toEqual([]);
    const pickup = await replay({
      ...COLLECTION[4]!,
      fields: [
        ['transaction_id', trx],
        ['pickup_date', '2024-07-10'],
        ['pickup_time', '14:00'],
        ['pickup_vehicle', 'Motor'],
      ],
    });
    expect(pickup.status).toBe(200);
    await sb.pay(trx);
    const check = await replay({
      ...COLLECTION[8]!,
      fields: [
        ['transactionId', trx],
        ['account', VA],
      ],
    });
    expect(check.status).toBe(200);
    expect(
      mismatches(
        { ...ENVELOPE, Data: { ...TXN_RECORD, IsLocked: 'boolean', SuccessDate: 'string', SettlementDate: 'string' } },
        JSON.parse(check.body.toString()),
      ),
    ).toEqual([]);
  });
});

/** The VA paycli's requests name as `account` (a --dry-run masks the caller's own VA wherever it appears). */
const ACCOUNT = '1179000900';

/** The collection's form fields as paycli's JSON writes them (numbers as numbers; `name[]` as lists). */
function asJson(fields: Fields, numeric: string[]): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  for (const [k, v] of fields) {
    const key = k.replace(/\[\]$/, '');
    const value = numeric.includes(key) ? Number(v) : v === 'YOUR_IPAYMU_VA' ? ACCOUNT : v;
    o[key] = k.endsWith('[]') ? [...((o[key] as unknown[]) ?? []), value] : value;
  }
  return o;
}

async function dryRun(argv: string[]): Promise<{ url: string; body?: string }> {
  const r = await runCli([...argv, '--dry-run', '--json'], { env: localEnv(sb, { PAYCLI_VA: VA, PAYCLI_API_KEY: KEY }), home: home.home });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as { url: string; body?: string };
}

/** Fields paycli sends with the collection's values; `missing` lists the collection's fields it has no flag for. */
function compare(body: Record<string, unknown>, expected: Record<string, unknown>, missing: string[]): void {
  const absent = Object.keys(expected).filter((k) => !(k in body));
  expect(absent.sort()).toEqual([...missing].sort());
  for (const [k, v] of Object.entries(expected)) if (k in body) expect(body[k], k).toEqual(v);
}

describe("the requests paycli makes itself carry the collection's fields and values", () => {
  it('direct payment (pay): every field the collection sends but fee direction, escrow and the card redirect URLs', async () => {
    const d = await dryRun([
      'pay',
      '--method',
      'va',
      '--channel',
      'cimb',
      '--name',
      'Putu',
      '--phone',
      '081999501092',
      '--email',
      'putu@mail.com',
      '--item',
      'produk 1:1:2000000:1:1:1:1',
      '--notify-url',
      'https://your-website-notify-url.com',
      '--reference-id',
      '1',
      '--expired',
      '24',
      '--comments',
      'Payment to XYZ',
      '--delivery-area',
      '17473',
      '--delivery-address',
      'GROGOL, GROGOL PETAMBURAN, JAKARTA BARAT, 11450',
      '--shipping',
      'IDEXPRESS',
      '--shipping-service',
      'STD',
      '--account',
      ACCOUNT,
    ]);
    expect(d.url).toMatch(/\/api\/v2\/payment\/direct$/);
    compare(JSON.parse(d.body!), asJson(COLLECTION[6]!.fields!, ['amount', 'expired', 'qty', 'price', 'weight', 'width', 'height', 'length']), [
      'feeDirection',
      'escrow',
      'successUrl',
      'cancelUrl',
    ]);
  });

  it('redirect payment (pay --redirect): all but the item dimensions and fee direction', async () => {
    const d = await dryRun([
      'pay',
      '--redirect',
      '--item',
      'T-Shirt:2:51000',
      '--description',
      'Size XL',
      '--image-url',
      'https://demo.ipaymu.com/assets/images/product-7.jpg',
      '--reference-id',
      'ID1234',
      '--return-url',
      'https://your-website.com/thank-you-page',
      '--notify-url',
      'https://webhook.site/caef335b-f0bf-49d3-a532-35564f5241a2',
      '--cancel-url',
      'https://your-website.com/failed-page',
      '--name',
      'putu',
      '--email',
      'putu@mail.com',
      '--phone',
      '08123456789',
      '--expired',
      '24',
      '--account',
      ACCOUNT,
      '--lang',
      'id',
    ]);
    compare(JSON.parse(d.body!), asJson(COLLECTION[7]!.fields!, ['qty', 'price', 'expired', 'weight', 'length', 'width', 'height']), [
      'weight',
      'length',
      'width',
      'height',
      'feeDirection',
    ]);
  });

  it('check transaction, balance, history, channels and the COD requests', async () => {
    const t = await dryRun(['transaction', '4719', '--account', ACCOUNT]);
    compare(JSON.parse(t.body!), asJson(COLLECTION[8]!.fields!, ['transactionId']), []);
    const b = await dryRun(['balance', '--account', ACCOUNT]);
    compare(JSON.parse(b.body!), asJson(COLLECTION[9]!.fields!, []), []);
    const h = await dryRun(['history', '--order-by', 'id', '--order', 'desc', '--limit', '20']);
    compare(JSON.parse(h.body!), asJson(COLLECTION[10]!.fields!, ['limit']), []);
    expect((await dryRun(['channels'])).url).toMatch(/\/api\/v2\/payment-channels$/);
    expect((await dryRun(['cod', 'area', 'jakarta'])).url).toMatch(/\/api\/v2\/cod\/area\?area=jakarta$/);
    const rate = await dryRun(['cod', 'rate', '--from', '17473', '--to', '17473', '--weight', '1', '--amount', '100000']);
    compare(JSON.parse(rate.body!), asJson(COLLECTION[2]!.fields!, ['destination_area_id', 'pickup_area_id', 'weight', 'amount']), []);
    const track = await dryRun(['cod', 'track', '--trx', '14919771']);
    compare(JSON.parse(track.body!), { transaction_id: 14919771 }, []);
    const pickup = await dryRun(['cod', 'pickup', '16158750', '--date', '2024-07-10', '--time', '14:00', '--vehicle', 'Motor']);
    compare(JSON.parse(pickup.body!), asJson(COLLECTION[4]!.fields!, ['transaction_id']), []);
    expect((await dryRun(['cod', 'label', '1234'])).url).toMatch(/\/api\/v2\/cod\/download-label\/1234$/);
  });
});
