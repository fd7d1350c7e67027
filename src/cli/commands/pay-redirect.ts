import { spawn } from 'node:child_process';
import { childEnv } from '../child-env.js';
import {
  checkRedirectData,
  encodeRedirectBody,
  REDIRECT_PAYMENT_PATH,
  type RedirectPaymentData,
  type RedirectPaymentRequest,
} from '../../core/api/redirect.js';
import { checkAccount } from '../../core/api/merchant.js';
import { AuthError, UsageError } from '../../core/errors.js';
import { normalizePhone } from '../../core/phone.js';
import { maskSecret } from '../../core/signing/request-signature.js';
import type { CommandEnv } from '../command-env.js';
import type { Outcome } from '../exit-codes.js';
import { rupiah } from '../output.js';
import { withSpinner } from '../spinner.js';
import { collectItems, generateReferenceId, type PayFlags } from './pay-input.js';
import { notifyUrlOf } from '../listener-state.js';

export interface RedirectFlags extends PayFlags {
  redirect?: boolean;
  returnUrl?: string;
  cancelUrl?: string;
  open?: boolean;
}

const URL_RE = /^https?:\/\/\S+$/;

/** Opens a URL with the desktop's opener; false when there is none (a server, CI). */
function openUrl(url: string, env: Record<string, string | undefined>, secrets: (string | undefined)[]): Promise<boolean> {
  const [cmd, args] = process.platform === 'darwin' ? ['open', [url]] : process.platform === 'win32' ? ['cmd', ['/c', 'start', '', url]] : ['xdg-open', [url]];
  if (process.platform === 'linux' && !env.DISPLAY && !env.WAYLAND_DISPLAY) return Promise.resolve(false);
  return new Promise((resolve) => {
    // The browser (and what it starts) gets no PAYCLI_* variable and nothing holding the key or VA.
    const child = spawn(cmd, args, { stdio: 'ignore', detached: true, env: childEnv(env, secrets) });
    child.once('error', () => resolve(false));
    child.once('spawn', () => {
      child.unref();
      resolve(true);
    });
  });
}

/** The redirect payment's optional fields (the collection's form): per-item descriptions and images, lang, account, pickupArea. */
function redirectExtras(opts: RedirectFlags, items: number): Partial<RedirectPaymentRequest> {
  for (const [flag, list] of [
    ['--description', opts.description],
    ['--image-url', opts.imageUrl],
  ] as const) {
    if (list && list.length !== items) throw new UsageError(`${flag} was given ${list.length} times for ${items} items: give one per item`);
  }
  for (const u of opts.imageUrl ?? []) if (!URL_RE.test(u)) throw new UsageError(`invalid --image-url "${u}" (an http(s) URL)`);
  return {
    ...(opts.description ? { descriptions: opts.description } : {}),
    ...(opts.imageUrl ? { imageUrls: opts.imageUrl } : {}),
    ...(opts.lang === 'id' || opts.lang === 'en' ? { lang: opts.lang } : {}),
    ...(opts.account !== undefined ? { account: checkAccount(opts.account) } : {}),
    ...(opts.pickupArea !== undefined ? { pickupArea: opts.pickupArea } : {}),
  };
}

/**
 * `paycli pay --redirect`: a redirect (hosted page) payment, `POST v2/payment`. The buyer picks the
 * method on the gateway's page (`--method` pre-selects one); prints the page URL.
 */
export async function payRedirect(env: CommandEnv<RedirectFlags>): Promise<Outcome> {
  const { opts, out, session, ctx } = env;
  const cfg = await session.config();
  for (const flag of ['channel', 'deliveryArea', 'deliveryAddress', 'allowAmountMismatch', 'amount'] as const) {
    if (opts[flag] !== undefined)
      throw new UsageError(
        `--${flag.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase())} does not apply to --redirect (the buyer chooses on the page; the amount is the items' total)`,
      );
  }
  const notifyUrl = await notifyUrlOf(env, opts.notifyUrl ?? cfg.notifyUrl?.value, cfg.baseUrl.value);
  const items = collectItems(opts);
  const missing = [!notifyUrl && '--notify-url', !opts.returnUrl && '--return-url', items.length === 0 && '--item'].filter(Boolean) as string[];
  if (missing.length > 0) throw new AuthError(`missing ${missing.join(', ')} for a redirect payment`, { hint: 'see `paycli pay --help`' });
  for (const [flag, v] of [
    ['--notify-url', notifyUrl],
    ['--return-url', opts.returnUrl],
    ['--cancel-url', opts.cancelUrl],
  ] as const) {
    if (v !== undefined && !URL_RE.test(v)) throw new UsageError(`invalid ${flag} "${v}" (an http(s) URL)`);
  }
  for (const it of items) {
    if (!(it.qty > 0) || !Number.isInteger(it.qty)) throw new UsageError(`invalid quantity ${it.qty} for "${it.product}" (a whole number above 0)`);
    if (!(it.price > 0)) throw new UsageError(`invalid price ${it.price} for "${it.product}" (above 0)`);
  }
  let expired: number | undefined;
  if (opts.expired !== undefined) {
    expired = Number(opts.expired);
    if (!(expired > 0)) throw new UsageError(`invalid --expired "${opts.expired}" (a number above 0)`);
  }
  const phone = opts.phone === undefined ? undefined : normalizePhone(opts.phone);
  if (opts.email !== undefined && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(opts.email))
    throw new UsageError(`invalid --email "${opts.email}": not an e-mail address`);
  const referenceId = opts.referenceId ?? generateReferenceId(ctx.now());
  const body = encodeRedirectBody({
    items,
    notifyUrl: notifyUrl!,
    returnUrl: opts.returnUrl!,
    cancelUrl: opts.cancelUrl ?? opts.returnUrl!,
    referenceId,
    buyerName: opts.name,
    buyerEmail: opts.email,
    buyerPhone: phone,
    expired,
    expiredType: opts.expiredType,
    paymentMethod: opts.method,
    ...redirectExtras(opts, items.length),
  });
  const req = await session.signed('POST', REDIRECT_PAYMENT_PATH, body);
  if (await session.preview(req)) return 'ok';
  const total = items.reduce((s, it) => s + it.qty * it.price, 0);
  const creds = await session.credentials();
  await session.guardProduction(`a payment page for ${rupiah(total)} for VA ${maskSecret(creds.va)}`);
  if (!opts.referenceId) out.info(out.e.dim(`reference id ${referenceId} (generated)`));
  if (!opts.cancelUrl) out.info(out.e.dim('cancel URL: the --return-url (no --cancel-url given)'));
  const envelope = await withSpinner(env, 'creating the payment page', () => session.send<RedirectPaymentData>(req, { checkData: checkRedirectData }));
  const data = envelope.Data;
  const url = data.Url;
  if (opts.raw) out.data(envelope);
  else if (out.json) out.data(data);
  else {
    const c = out.c;
    out.out(
      [
        `${c.green('✓')} payment page created · session ${data.SessionID ?? data.SessionId ?? '-'} · ref ${referenceId}`,
        '',
        `    ${c.bold(String(url))}`,
        `    ${c.dim('send the buyer here; they choose how to pay')}`,
        '',
        `  total    ${rupiah(total)}`,
      ].join('\n'),
    );
  }
  if (opts.open) {
    if (!(await openUrl(url, ctx.env, [creds.apiKey, creds.va]))) out.warn('no desktop to open the page in; open the URL yourself');
  }
  return 'ok';
}
