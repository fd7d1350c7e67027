import { randomBytes } from 'node:crypto';
import { UsageError } from '../../core/errors.js';
import { parseQuantity, parseRupiah } from '../../core/money.js';
import { normalizePhone } from '../../core/phone.js';
import { rupiah } from '../output.js';
import { checkAccount } from '../../core/api/merchant.js';
import { formatJakarta } from '../../core/time.js';
import { CHANNEL_ALIASES, channelsOf, METHOD_NAMES, validatePaymentRequest, type DirectPaymentRequest, type PaymentItem } from '../../core/payment-rules.js';

export interface PayFlags {
  name?: string;
  phone?: string;
  email?: string;
  amount?: string;
  notifyUrl?: string;
  expired?: string;
  expiredType?: string;
  comments?: string;
  referenceId?: string;
  method?: string;
  channel?: string;
  deliveryArea?: string;
  deliveryAddress?: string;
  shipping?: string;
  shippingService?: string;
  pickupArea?: string;
  pickupAddress?: string;
  account?: string;
  description?: string[];
  imageUrl?: string[];
  lang?: string;
  item?: string[];
  product?: string[];
  qty?: string[];
  price?: string[];
  weight?: string[];
  width?: string[];
  height?: string[];
  length?: string[];
  allowAmountMismatch?: boolean;
  escrow?: boolean;
  raw?: boolean;
}

/** Request fields → the flags that set them, for error messages. */
export const FLAG_OF: Record<string, string> = {
  name: '--name',
  phone: '--phone',
  email: '--email',
  amount: '--amount',
  notifyUrl: '--notify-url',
  expired: '--expired',
  expiredType: '--expired-type',
  comments: '--comments',
  referenceId: '--reference-id',
  paymentMethod: '--method',
  paymentChannel: '--channel',
  product: '--item (or --product)',
  qty: '--qty',
  price: '--price',
  weight: '--weight',
  width: '--width',
  height: '--height',
  length: '--length',
  deliveryArea: '--delivery-area',
  deliveryAddress: '--delivery-address',
  shipping: '--shipping',
  shippingService: '--shipping-service',
  pickupArea: '--pickup-area',
  pickupAddress: '--pickup-address',
};

/** The COD shipping fields: request field → flag (sent when given; shipping and shippingService required for COD). */
const COD_FIELDS = ['shipping', 'shippingService', 'pickupArea', 'pickupAddress'] as const;

function num(value: string, flag: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n)) throw new UsageError(`invalid ${flag} "${value}": expected a number`);
  return n;
}

/** A trailing `--item` field that looks like a number or an amount (`2`, `0.3`, `25.000`, `Rp 25.000`). */
const NUMERIC_FIELD = /^\s*(?:rp\.?\s*)?\d[\d.,-]*\s*$/i;

/**
 * Parses `--item "NAME:QTY:PRICE[:WEIGHT:WIDTH:HEIGHT:LENGTH]"`; the name may itself contain colons.
 * QTY is a whole number, PRICE is Rupiah as parseRupiah reads it (`25.000` is twenty-five thousand).
 */
export function parseItem(text: string): PaymentItem {
  const parts = text.split(':');
  let trailing = 0;
  for (let i = parts.length - 1; i >= 1 && NUMERIC_FIELD.test(parts[i]!); i--) trailing++;
  const dims = trailing >= 6 && parts.length >= 7 ? 6 : trailing >= 2 ? 2 : 0;
  if (dims === 0)
    throw new UsageError(`invalid --item "${text}": expected NAME:QTY:PRICE`, {
      hint: 'use NAME:QTY:PRICE, or NAME:QTY:PRICE:WEIGHT:WIDTH:HEIGHT:LENGTH for COD',
    });
  const fields = parts.slice(parts.length - dims);
  const product = parts
    .slice(0, parts.length - dims)
    .join(':')
    .trim();
  if (!product) throw new UsageError(`invalid --item "${text}": the product name is empty`);
  const item: PaymentItem = {
    product,
    qty: parseQuantity(fields[0]!, `quantity in --item "${text}"`),
    price: parseRupiah(fields[1]!, `price in --item "${text}"`),
  };
  if (dims === 6)
    Object.assign(item, {
      weight: num(fields[2]!, '--item weight'),
      width: num(fields[3]!, '--item width'),
      height: num(fields[4]!, '--item height'),
      length: num(fields[5]!, '--item length'),
    });
  return item;
}

/** Items from --item and/or the array flags. */
export function collectItems(f: PayFlags): PaymentItem[] {
  const items = (f.item ?? []).map(parseItem);
  const products = f.product ?? [];
  if (products.length > 0) {
    const lengths = { '--qty': f.qty?.length ?? 0, '--price': f.price?.length ?? 0 };
    for (const [flag, n] of Object.entries(lengths)) {
      if (n !== products.length) throw new UsageError(`${flag} was given ${n} times for ${products.length} --product: give one per product`);
    }
    products.forEach((product, i) => {
      const item: PaymentItem = { product, qty: parseQuantity(f.qty![i]!, '--qty'), price: parseRupiah(f.price![i]!, '--price') };
      for (const k of ['weight', 'width', 'height', 'length'] as const) {
        const list = f[k];
        if (list && list.length > 0) {
          if (list.length !== products.length) throw new UsageError(`--${k} was given ${list.length} times for ${products.length} --product`);
          item[k] = num(list[i]!, `--${k}`);
        }
      }
      items.push(item);
    });
  } else if ((f.qty?.length ?? 0) > 0 || (f.price?.length ?? 0) > 0) {
    throw new UsageError('--qty and --price need --product (or use --item NAME:QTY:PRICE)');
  }
  return items;
}

/** Normalises method and channel; `qris` as a channel becomes `mpm` with a warning. */
export function normalizeChannel(method: string | undefined, channel: string | undefined, warn: (m: string) => void): { method?: string; channel?: string } {
  let m = method?.trim().toLowerCase();
  let c = channel?.trim().toLowerCase();
  if (c && CHANNEL_ALIASES[c] && (!m || m === CHANNEL_ALIASES[c]!.method)) {
    warn(`channel "${c}" is an alias: using method ${CHANNEL_ALIASES[c]!.method}, channel ${CHANNEL_ALIASES[c]!.channel}`);
    m = CHANNEL_ALIASES[c]!.method;
    c = CHANNEL_ALIASES[c]!.channel;
  }
  if (m && !METHOD_NAMES.includes(m)) throw new UsageError(`unknown --method "${m}"`, { hint: `methods: ${METHOD_NAMES.join(', ')}` });
  if (m && c && !channelsOf(m).includes(c))
    throw new UsageError(`channel "${c}" is not a channel of ${m}`, { hint: `channels of ${m}: ${channelsOf(m).join(', ')}` });
  if (m && !c && channelsOf(m).length === 1) c = channelsOf(m)[0];
  return { method: m, channel: c };
}

/** Builds the request body in the spec's field order and checks it as the gateway would. */
export function buildPaymentRequest(values: {
  name: string;
  phone: string;
  email: string;
  notifyUrl: string;
  method: string;
  channel: string;
  items: PaymentItem[];
  amount?: number;
  expired?: number;
  expiredType?: string;
  comments?: string;
  referenceId: string;
  deliveryArea?: string;
  deliveryAddress?: string;
  shipping?: string;
  shippingService?: string;
  pickupArea?: string;
  pickupAddress?: string;
  account?: string;
  allowAmountMismatch?: boolean;
  escrow?: boolean;
}): DirectPaymentRequest {
  const sum = values.items.reduce((s, i) => s + i.qty * i.price, 0);
  const amount = values.amount ?? sum;
  if (values.amount !== undefined && values.amount !== sum && !values.allowAmountMismatch) {
    throw new UsageError(`--amount ${rupiah(values.amount)} differs from the items' total ${rupiah(sum)} (qty × price)`, {
      hint: 'drop --amount to use the total, or add --allow-amount-mismatch',
    });
  }
  if (!Number.isSafeInteger(sum)) throw new UsageError(`the items' total (qty × price) is more than paycli handles`);
  const phone = values.phone ? normalizePhone(values.phone) : values.phone;
  const cod = values.method === 'cod';
  const req: DirectPaymentRequest = {
    name: values.name,
    phone,
    email: values.email,
    amount,
    notifyUrl: values.notifyUrl,
    expired: values.expired,
    expiredType: values.expiredType,
    comments: values.comments,
    referenceId: values.referenceId,
    paymentMethod: values.method,
    paymentChannel: values.channel,
    product: values.items.map((i) => i.product),
    qty: values.items.map((i) => i.qty),
    price: values.items.map((i) => i.price),
  };
  for (const k of ['weight', 'width', 'height', 'length'] as const) {
    if (values.items.some((i) => i[k] !== undefined)) req[k] = values.items.map((i) => i[k] as number);
  }
  if (values.escrow) req.escrow = true;
  if (cod || values.deliveryArea !== undefined) req.deliveryArea = values.deliveryArea;
  if (cod || values.deliveryAddress !== undefined) req.deliveryAddress = values.deliveryAddress;
  for (const k of COD_FIELDS) {
    const v = values[k];
    // The courier codes as the rate answer gives them (IDEXPRESS, STD).
    if (v !== undefined) req[k] = k === 'shipping' || k === 'shippingService' ? v.trim().toUpperCase() : v;
  }
  if (values.account !== undefined) req.account = checkAccount(values.account);
  const errors = validatePaymentRequest(req as unknown as Record<string, unknown>);
  const fields = Object.keys(errors);
  if (fields.length > 0) {
    const detail = fields.map((f) => `${FLAG_OF[f] ?? f}: ${errors[f]!.map(inEnglish).join('; ')}`).join(', ');
    throw new UsageError(`the payment is not valid, nothing was sent: ${detail}`, {
      hint: cod
        ? 'COD needs per item WEIGHT:WIDTH:HEIGHT:LENGTH (--item NAME:QTY:PRICE:W:WI:H:L), --delivery-area, --delivery-address, and --shipping with --shipping-service from `paycli cod rate`'
        : undefined,
      details: errors,
      code: 'ERR_INVALID_PAYMENT',
    });
  }
  return req;
}

/**
 * The English reading of the field errors validatePaymentRequest words as the gateway does (in
 * Indonesian): paycli speaks English; only the gateway's own answers are quoted as received.
 */
export function inEnglish(message: string): string {
  const rules: [RegExp, (m: RegExpExecArray) => string][] = [
    [/^\S+ wajib diisi\.$/, () => 'required'],
    [/^\S+ harus berupa teks\.$/, () => 'must be text'],
    [/^email tidak valid\.$/, () => 'not an e-mail address'],
    [/^phone tidak valid\.$/, () => 'not a phone number (08…, 62… or +62…)'],
    [/^notifyUrl harus berupa URL\.$/, () => 'must be an http(s) URL'],
    [/^\S+ harus berupa angka lebih dari 0\.$/, () => 'must be a number above 0'],
    [/^\S+ harus berupa angka\.$/, () => 'must be a number'],
    [/^\S+ harus berupa bilangan bulat\.$/, () => 'must be a whole number'],
    [/^\S+ minimal (\d+)\.$/, (m) => `must be at least ${m[1]}`],
    [/^\S+ maksimal (\d+)\.$/, (m) => `must be at most ${m[1]}`],
    [/^paymentMethod tidak valid\. Pilihan: (.*)\.$/, (m) => `unknown method; one of ${m[1]}`],
    [/^paymentChannel tidak valid untuk (\S+)\. Pilihan: (.*)\.$/, (m) => `not a channel of ${m[1]}; one of ${m[2]}`],
    [/^expiredType tidak valid\. Pilihan: (.*)\.$/, (m) => `one of ${m[1]}`],
    [/^\S+ harus berupa array\.$/, () => 'must be a list'],
    [/^\S+ harus berjumlah sama dengan product\.$/, () => 'needs one value per product'],
    [/^\S+ harus berupa kode pos atau id area\.$/, () => 'must be a postal code or an area id (digits; see `paycli cod area`)'],
  ];
  for (const [re, say] of rules) {
    const m = re.exec(message);
    if (m) return say(m);
  }
  return message;
}

/** Parses --amount: Rupiah as parseRupiah reads them. */
export function amountFlag(value: string | undefined, flag = '--amount'): number | undefined {
  return value === undefined ? undefined : parseRupiah(value, flag);
}

export function numberFlag(value: string | undefined, flag: string): number | undefined {
  return value === undefined ? undefined : num(value, flag);
}

/** A unique, findable reference: PAYCLI-YYYYMMDDHHmmss-xxxx (Jakarta time). */
export function generateReferenceId(now: Date): string {
  return `PAYCLI-${formatJakarta(now).replace(/[-: ]/g, '')}-${randomBytes(2).toString('hex')}`;
}
