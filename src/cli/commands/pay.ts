import { AuthError, UsageError } from '../../core/errors.js';
import { checkPaymentData } from '../../core/http/envelope.js';
import { DIRECT_PAYMENT_PATH, encodePaymentBody, type DirectPaymentData } from '../../core/api/payments.js';
import { PAYMENT_METHODS, channelsOf, type PaymentItem } from '../../core/payment-rules.js';
import { maskSecret } from '../../core/signing/request-signature.js';
import type { CommandEnv, Handler } from '../command-env.js';
import { rupiah } from '../output.js';
import { canPrompt } from '../interaction.js';
import { withSpinner } from '../spinner.js';
import { amountFlag, buildPaymentRequest, collectItems, generateReferenceId, normalizeChannel, numberFlag, type PayFlags } from './pay-input.js';
import { parseQuantity, parseRupiah } from '../../core/money.js';
import { normalizePhone } from '../../core/phone.js';
import { Option, apiFlags, collect, examples, type Define } from '../command-kit.js';
import { EXPIRED_TYPES, METHOD_NAMES } from '../../core/payment-rules.js';
import { topCommand } from './heads.js';
import { promptShipping, type CodChoice } from './pay-cod.js';
import { notifyUrlOf } from '../listener-state.js';

interface Collected {
  name?: string;
  phone?: string;
  email?: string;
  notifyUrl?: string;
  method?: string;
  channel?: string;
  items: PaymentItem[];
}

async function promptMissing(env: CommandEnv<PayFlags>, v: Collected): Promise<void> {
  const { select, input } = await import('@inquirer/prompts');
  const io = { input: env.ctx.stdin, output: env.ctx.stderr };
  // A validation message is wrapped at spaces to the terminal (never inside an amount).
  const fitted = (check: (s: string) => true | string) => (s: string) => {
    const r = check(s);
    return r === true ? r : env.out.promptText(r);
  };
  if (!v.method) {
    v.method = await select<string>(
      { message: 'Payment method', choices: PAYMENT_METHODS.map((m) => ({ value: m.method, name: `${m.method} — ${m.label}` })) },
      io,
    );
  }
  if (!v.channel) {
    const channels = channelsOf(v.method);
    v.channel =
      channels.length === 1
        ? channels[0]!
        : await select<string>(
            { message: `Channel for ${v.method}`, choices: await (await import('../channel-choices.js')).channelChoices(env, v.method) },
            io,
          );
  }
  v.name ??= await input({ message: 'Buyer name', validate: fitted((s) => s.trim() !== '' || 'required') }, io);
  v.phone ??= await input({ message: 'Buyer phone (08… or +62…)', validate: fitted((s) => ok(() => normalizePhone(s, 'phone'))) }, io);
  v.email ??= await input({ message: 'Buyer e-mail', validate: fitted((s) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(s) || 'an e-mail address') }, io);
  v.notifyUrl ??= await input({ message: 'Callback URL (notifyUrl)', validate: fitted((s) => /^https?:\/\/\S+$/.test(s) || 'an http(s) URL') }, io);
  if (v.items.length === 0) {
    const product = await input({ message: 'Product', validate: fitted((s) => s.trim() !== '' || 'required') }, io);
    const qty = parseQuantity(
      await input({ message: 'Quantity', default: '1', validate: fitted((s) => ok(() => parseQuantity(s, 'quantity'))) }, io),
      'quantity',
    );
    const price = parseRupiah(
      await input({ message: 'Unit price (Rp, e.g. 25.000)', validate: fitted((s) => ok(() => parseRupiah(s, 'price'))) }, io),
      'price',
    );
    v.items.push({ product, qty, price });
  }
}

/** A prompt validator from a parser: true, or the parser's message. */
function ok(parse: () => unknown): true | string {
  try {
    parse();
    return true;
  } catch (err) {
    return (err as Error).message;
  }
}

function timeLeft(expired: string, now: Date): string {
  const m = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/.exec(expired);
  if (!m) return '';
  const at = Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]! - 7, +m[5]!, +m[6]!);
  const mins = Math.round((at - now.getTime()) / 60_000);
  if (mins <= 0) return ' (expired)';
  return ` (in ${mins >= 60 ? `${Math.floor(mins / 60)}h ${mins % 60}m` : `${mins}m`})`;
}

async function render(env: CommandEnv<PayFlags>, data: DirectPaymentData, referenceId: string): Promise<void> {
  const { out, ctx } = env;
  const c = out.c;
  const lines: string[] = [`${c.green('✓')} payment created · trx ${data.TransactionId} · ref ${data.ReferenceId || referenceId}`, ''];
  const qr = data.QrString ?? (data.Via === 'qris' ? data.PaymentNo : undefined);
  if (qr) {
    if (out.canDrawPictures) {
      // The code as a picture (Output.picture: its colours reach the terminal, nothing else can),
      // with the quiet zone of 4 light modules around it that scanners need (ISO/IEC 18004).
      const { create } = await import('qrcode');
      const { modules } = create(qr, { errorCorrectionLevel: 'M' });
      const quiet = 4;
      const side = modules.size + 2 * quiet;
      out.out(`${lines.join('\n')}\n`);
      out.picture(
        side,
        side,
        (x, y) => x >= quiet && y >= quiet && x < quiet + modules.size && y < quiet + modules.size && Boolean(modules.get(y - quiet, x - quiet)),
      );
      lines.length = 0;
    }
    lines.push(`  QRIS payload  ${qr}`);
  } else if (data.PaymentNo) {
    lines.push(
      `    ${c.bold(data.PaymentNo)}`,
      `    ${c.dim(`${data.PaymentName ?? data.Channel} ${data.Via === 'va' ? 'virtual account' : 'payment code'}`)}`,
    );
  } else if (data.Url) {
    lines.push(`    ${c.bold(data.Url)}`, `    ${c.dim(`open to pay with ${data.PaymentName ?? data.Channel}`)}`);
  }
  // COD: the buyer pays the courier; the payment expires only if its parcel is not picked up by then.
  const cod = data.Via === 'cod';
  lines.push(
    '',
    `  total    ${rupiah(data.Total)}   fee ${rupiah(data.Fee)}`,
    `  expires  ${data.Expired} WIB${timeLeft(data.Expired, ctx.now())}${cod ? ' unless picked up' : ''}`,
  );
  if (data.Url && (data.PaymentNo || qr)) lines.push(`  page     ${data.Url}`);
  if (cod) {
    const id = data.TransactionId;
    lines.push(
      `  label    paycli cod label ${id}`,
      `  pickup   paycli cod pickup ${id} --date D --time T --vehicle Motor`,
      `  track    paycli cod track --trx ${id}`,
    );
  }
  out.out(lines.join('\n'));
}

/** `paycli pay`: validates locally, signs over the exact bytes, sends once, and shows how to pay. */
export const payCommand: Handler<PayFlags> = async (env) => {
  const { opts, out, session, ctx } = env;
  if ((opts as { redirect?: boolean }).redirect) return (await import('./pay-redirect.js')).payRedirect(env);
  for (const [flag, v] of [
    ['--description', opts.description],
    ['--image-url', opts.imageUrl],
    ['--lang', opts.lang],
  ] as const) {
    if (v !== undefined) throw new UsageError(`${flag} applies to --redirect only (the hosted page)`);
  }
  const cfg = await session.config();
  const { method, channel } = normalizeChannel(opts.method, opts.channel, (m) => out.warn(m));
  const v: Collected = {
    name: opts.name,
    phone: opts.phone,
    email: opts.email,
    notifyUrl: await notifyUrlOf(env, opts.notifyUrl ?? cfg.notifyUrl?.value, cfg.baseUrl.value),
    method,
    channel,
    items: collectItems(opts),
  };
  const missing = [
    !v.method && '--method',
    !v.channel && '--channel',
    !v.name && '--name',
    !v.phone && '--phone',
    !v.email && '--email',
    !v.notifyUrl && '--notify-url',
    v.items.length === 0 && '--item',
  ].filter(Boolean) as string[];
  if (missing.length > 0) {
    if (!canPrompt(ctx, opts))
      throw new AuthError(`missing ${missing.join(', ')} (no terminal to ask in)`, { hint: 'pass them as flags; see `paycli pay --help`' });
    await promptMissing(env, v);
  }
  const cod: CodChoice = { deliveryArea: opts.deliveryArea, pickupArea: opts.pickupArea, shipping: opts.shipping, shippingService: opts.shippingService };
  if (v.method === 'cod' && (!cod.shipping || !cod.shippingService) && canPrompt(ctx, opts)) await promptShipping(env, cod, v.items);
  const referenceId = opts.referenceId ?? generateReferenceId(ctx.now());
  const request = buildPaymentRequest({
    name: v.name!,
    phone: v.phone!,
    email: v.email!,
    notifyUrl: v.notifyUrl!,
    method: v.method!,
    channel: v.channel!,
    items: v.items,
    amount: amountFlag(opts.amount),
    expired: numberFlag(opts.expired, '--expired'),
    expiredType: opts.expiredType,
    comments: opts.comments,
    referenceId,
    deliveryArea: cod.deliveryArea,
    deliveryAddress: opts.deliveryAddress,
    shipping: cod.shipping,
    shippingService: cod.shippingService,
    pickupArea: cod.pickupArea,
    pickupAddress: opts.pickupAddress,
    account: opts.account,
    allowAmountMismatch: opts.allowAmountMismatch,
    escrow: opts.escrow,
  });
  const body = encodePaymentBody(request);
  const req = await session.signed('POST', DIRECT_PAYMENT_PATH, body);
  if (await session.preview(req)) return 'ok';
  const creds = await session.credentials();
  await session.guardProduction(`${rupiah(request.amount)} by ${request.paymentMethod}/${request.paymentChannel} for VA ${maskSecret(creds.va)}`);
  if (!opts.referenceId) out.info(out.e.dim(`reference id ${referenceId} (generated)`));
  const envelope = await withSpinner(env, `creating ${request.paymentMethod}/${request.paymentChannel} payment`, () =>
    session.send<DirectPaymentData>(req, { checkData: checkPaymentData, paymentReferenceId: referenceId }),
  );
  if (opts.raw) out.data(envelope);
  else if (out.json) out.data(envelope.Data);
  else await render(env, envelope.Data, referenceId);
  return 'ok';
};

// ── Definition ──────────────────────────────────────────────────────────────────────────────────

export const commands: Record<'pay', Define> = {
  pay: (program, bind) => {
    const pay = topCommand(program, 'pay')
      .addOption(new Option('--method <method>', 'payment method').choices(METHOD_NAMES))
      .option('--channel <channel>', 'payment channel of the method (e.g. bca, alfamart, mpm, dana)')
      .option('--name <name>', 'buyer name')
      .option('--phone <phone>', 'buyer phone (08… or +62…)')
      .option('--email <email>', 'buyer e-mail')
      .option('--item <spec>', 'an item NAME:QTY:PRICE[:WEIGHT:WIDTH:HEIGHT:LENGTH] (repeatable)', collect)
      .option('--product <name>', 'a product name (repeatable; with --qty and --price)', collect)
      .option('--qty <n>', 'quantity of each --product (repeatable)', collect)
      .option('--price <rp>', 'unit price of each --product (repeatable)', collect)
      .option('--weight <kg>', 'item weight in kg, for COD (repeatable)', collect)
      .option('--width <cm>', 'item width in cm, for COD (repeatable)', collect)
      .option('--height <cm>', 'item height in cm, for COD (repeatable)', collect)
      .option('--length <cm>', 'item length in cm, for COD (repeatable)', collect)
      .option('--amount <rp>', 'total amount (default: the sum of qty × price)')
      .option('--allow-amount-mismatch', "send an --amount that differs from the items' total")
      .option('--notify-url <url>', "callback URL; auto: the running `paycli listen` (its tunnel's public URL) (default: notify-url from config)")
      .option('--expired <n>', "expiry duration (default: the channel's, e.g. 24 hours; BCA VA 12)")
      .addOption(new Option('--expired-type <unit>', 'unit of --expired').choices(EXPIRED_TYPES as string[]))
      .option('--comments <text>', 'transaction note')
      .option('--reference-id <id>', 'your own reference (default: a generated PAYCLI-… id, printed)')
      .option('--escrow', 'hold the paid amount as escrow (status 7) until released')
      .option('--delivery-area <area>', 'COD: delivery area id (`paycli cod area`) or postal code')
      .option('--delivery-address <text>', 'COD: delivery address')
      .option('--shipping <courier>', 'COD: the courier of `paycli cod rate` (e.g. IDEXPRESS); asked on a terminal')
      .option('--shipping-service <service>', "COD: the courier's service of `paycli cod rate` (e.g. STD); asked on a terminal")
      .option('--pickup-area <area>', 'COD: where the courier picks the parcel up (area id of `paycli cod area`)')
      .option('--pickup-address <text>', 'COD: the pickup address')
      .option('--account <va>', 'a child account (child VA) of yours the payment is for')
      .option('--raw', 'with --json: print the whole envelope, not just Data')
      .option('--redirect', 'a redirect payment: a hosted page where the buyer chooses the method (--method pre-selects)')
      .option('--return-url <url>', 'with --redirect: where the buyer goes after paying')
      .option('--cancel-url <url>', 'with --redirect: where the buyer goes on cancel (default: --return-url)')
      .option('--open', 'with --redirect: open the page in the desktop browser')
      .option('--description <text>', "with --redirect: each item's description on the page (repeatable; default its name)", collect)
      .option('--image-url <url>', "with --redirect: each item's picture on the page (repeatable)", collect)
      .addOption(new Option('--lang <lang>', "with --redirect: the page's language").choices(['id', 'en']));
    const flags = apiFlags(pay);
    examples(pay, [
      'paycli pay --method va --channel bca --name Putu --phone 08123456789 --email putu@mail.com --item "Kopi Bali:2:50000" --notify-url https://shop.example/callback',
      'paycli --env local pay --method qris --name Putu --phone 08123456789 --email putu@mail.com --item "Tiket:1:102000" --notify-url http://127.0.0.1:8080/',
      'paycli pay --method cod --channel rpx --item "Kaos:1:75000:0.3:20:5:30" --delivery-area 80361 --delivery-address "Jl. Sunset Road 1, Kuta" --shipping IDEXPRESS --shipping-service STD …',
      'paycli pay --method va --channel bni … --dry-run',
      'paycli pay --method ewallet --channel dana … --json | jq -r .Url',
      'paycli pay --redirect --item "Kaos:1:75000" --notify-url https://shop.example/cb --return-url https://shop.example/thanks --open',
    ]);
    bind(flags, payCommand);
  },
};
