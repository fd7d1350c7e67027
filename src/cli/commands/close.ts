import {
  CLOSE_PATHS,
  encodeRegisterBody,
  encodeTransferVaBody,
  explainCloseApiError,
  maskProfile,
  readBankList,
  readBusinessCategories,
} from '../../core/api/close.js';
import { UsageError } from '../../core/errors.js';
import { maskSecret } from '../../core/signing/request-signature.js';
import type { CommandEnv, Handler } from '../command-env.js';
import { apiFlags, examples, type Define, type TypedCommand } from '../command-kit.js';
import { canPrompt } from '../interaction.js';
import { readStdin } from '../io.js';
import { rupiah } from '../output.js';
import { withSpinner } from '../spinner.js';
import { topCommand } from './heads.js';

interface CloseFlags {
  closeApi?: boolean;
}

/** Signs, previews or sends one Close API request; a 403 says the API is not granted. */
async function callClose(
  env: CommandEnv<CloseFlags>,
  path: string,
  body: string,
  secret?: Parameters<CommandEnv['session']['preview']>[1],
): Promise<{ Data: unknown; Message: string } | null> {
  if (!env.opts.closeApi) {
    throw new UsageError(`${path} is part of the gateway's private Close API`, { hint: 'add --close-api to confirm this account was granted it' });
  }
  const req = await env.session.signed('POST', path, body);
  if (await env.session.preview(req, secret)) return null;
  try {
    return await withSpinner(env, `POST ${path}`, () => env.session.send<unknown>(req));
  } catch (err) {
    throw explainCloseApiError(err);
  }
}

interface TransferFlags extends CloseFlags {
  sender?: string;
  receiver: string;
  amount: string;
  relatedId?: string;
  referenceId?: string;
  notes?: string;
}

/** `paycli close transferva`: moves money from one member's VA to another's (a split payment). */
export const closeTransferVa: Handler<TransferFlags> = async (env) => {
  const { opts, out, session } = env;
  const sender = opts.sender ?? (await session.credentials()).va;
  if (!/^\d+$/.test(opts.amount)) throw new UsageError(`invalid --amount "${opts.amount}": whole Rupiah, digits only`);
  const body = encodeTransferVaBody({
    sender,
    receiver: opts.receiver,
    amount: Number(opts.amount),
    relatedId: opts.relatedId,
    referenceId: opts.referenceId,
    notes: opts.notes,
  });
  await session.guardProduction(`transfer ${rupiah(Number(opts.amount))} from VA ${maskSecret(sender)} to VA ${maskSecret(opts.receiver)}`);
  const env2 = await callClose(env, CLOSE_PATHS.transferva, body);
  if (!env2) return 'ok';
  if (out.json) out.data(env2.Data);
  else {
    const d = (env2.Data ?? {}) as Record<string, unknown>;
    out.out(
      `transferred ${rupiah(Number(d.Amount ?? opts.amount))} · trx ${String(d.TransactionId ?? '-')} · ref ${String(d.ReferenceId ?? '-')} · fee ${rupiah(Number(d.Fee ?? 0))}`,
    );
  }
  return 'ok';
};

interface RegisterFlags extends CloseFlags {
  name: string;
  email: string;
  phone: string;
  passwordStdin?: boolean;
  websiteUrl?: string;
  websiteIp?: string;
}

/** The new member's password: from stdin (`--password-stdin`) or a hidden prompt, never from argv. */
async function readPassword(env: CommandEnv<RegisterFlags>): Promise<string> {
  if (env.opts.passwordStdin) return (await readStdin(env.ctx)).replace(/\r?\n$/, '');
  if (!canPrompt(env.ctx, env.opts)) throw new UsageError('the password is read from a prompt or from stdin', { hint: 'pipe it in with --password-stdin' });
  const { password } = await import('@inquirer/prompts');
  return password({ message: 'password for the new account (8 or more characters)', mask: '*' }, { input: env.ctx.stdin, output: env.ctx.stderr });
}

/** `paycli close register`: registers a member account (the gateway's SSO registration). */
export const closeRegister: Handler<RegisterFlags> = async (env) => {
  const { opts, out } = env;
  const body = encodeRegisterBody({
    name: opts.name,
    email: opts.email,
    phone: opts.phone,
    password: await readPassword(env),
    websiteUrl: opts.websiteUrl,
    websiteIp: opts.websiteIp,
  });
  await env.session.guardProduction(`register the account ${opts.email}`);
  // --dry-run shows the body with the password masked; --curl would need it inline and is refused.
  const env2 = await callClose(env, CLOSE_PATHS.register, body, {
    what: 'the new password',
    mask: (b) => JSON.stringify({ ...JSON.parse(b), password: '********' }),
  });
  if (!env2) return 'ok';
  if (out.json) out.data(env2.Data);
  else {
    const d = (env2.Data ?? {}) as Record<string, unknown>;
    out.out(`registered ${String(d.Email ?? opts.email)} · VA ${String(d.Va ?? '-')} · ${String(d.VaName ?? '')}`.trimEnd());
  }
  return 'ok';
};

interface ProfileFlags extends CloseFlags {
  account?: string;
}

/** `paycli close profile`: an account's profile, its API key, national id and bank number masked. */
export const closeProfile: Handler<ProfileFlags> = async (env) => {
  const { opts, out, session } = env;
  const account = opts.account ?? (await session.credentials()).va;
  const env2 = await callClose(env, CLOSE_PATHS.profile, JSON.stringify({ account }));
  if (!env2) return 'ok';
  const profile = maskProfile(env2.Data) as Record<string, unknown>;
  if (out.json) out.data(profile);
  else
    out.out(
      out.table(
        Object.entries(profile ?? {}).map(([k, v]) => [`  ${k}`, v === null || v === undefined ? '-' : typeof v === 'object' ? JSON.stringify(v) : String(v)]),
      ),
    );
  return 'ok';
};

/** `paycli close banklist`: the gateway's master list of banks (codes for verification). */
export const closeBankList: Handler<CloseFlags> = async (env) => {
  const env2 = await callClose(env, CLOSE_PATHS.banklist, '{}');
  if (!env2) return 'ok';
  const banks = readBankList(env2.Data);
  if (env.out.json) env.out.data(banks);
  else
    env.out.out(
      env.out.table(
        banks.map((b) => [b.code, b.name]),
        ['CODE', 'NAME'],
        (s) => env.out.c.bold(s),
      ),
    );
  return 'ok';
};

/** `paycli close business-category`: the business categories (codes for merchant verification). */
export const closeBusinessCategory: Handler<CloseFlags> = async (env) => {
  const env2 = await callClose(env, CLOSE_PATHS.businessCategory, '{}');
  if (!env2) return 'ok';
  const cats = readBusinessCategories(env2.Data);
  if (env.out.json) env.out.data(cats);
  else
    env.out.out(
      env.out.table(
        cats.map((c) => [c.code, c.name, c.nameEn]),
        ['CODE', 'NAME', 'ENGLISH'],
        (s) => env.out.c.bold(s),
      ),
    );
  return 'ok';
};

// ── Definitions ─────────────────────────────────────────────────────────────────────────────────

function closeFlag<A extends unknown[], O extends object>(cmd: TypedCommand<A, O & Record<string, unknown>>) {
  return apiFlags(cmd.option('--close-api', 'confirm this account was granted the private Close API'));
}

const defineClose: Define = (program, bind) => {
  const close = topCommand(program, 'close');
  bind(
    examples(
      closeFlag(
        close
          .command('transferva')
          .description("move money from a member's VA to another's (split payment)")
          .option('--sender <va>', 'the VA money leaves (default: your VA)')
          .requiredOption('--receiver <va>', 'the VA money goes to')
          .requiredOption('--amount <rupiah>', 'whole Rupiah')
          .option('--related-id <trx>', 'the transaction this transfer splits')
          .option('--reference-id <ref>', 'your reference; a repeat is refused by the gateway')
          .option('--notes <text>', 'notes'),
      ),
      [
        'paycli close transferva --close-api --receiver 1179000900 --amount 10000 --reference-id SPLIT-1',
        'paycli --env local close transferva --close-api --receiver 1179000900 --amount 100 --json',
      ],
    ),
    closeTransferVa,
  );
  bind(
    examples(
      closeFlag(
        close
          .command('register')
          .description('register a member account (password from a prompt or --password-stdin)')
          .requiredOption('--name <name>', "the member's name")
          .requiredOption('--email <email>', 'email')
          .requiredOption('--phone <phone>', 'phone')
          .option('--password-stdin', 'read the password from stdin')
          .option('--website-url <url>', 'website URL')
          .option('--website-ip <ip>', 'website IP'),
      ),
      [
        'paycli close register --close-api --name Putu --email putu@mail.com --phone 08123456789',
        'paycli close register --close-api --name Putu --email putu@mail.com --phone 08123456789 --password-stdin --json < password.txt',
      ],
    ),
    closeRegister,
  );
  bind(
    examples(
      closeFlag(
        close
          .command('profile')
          .description("an account's profile (API key, national id and bank number masked)")
          .option('--account <va>', 'the VA (default: your VA)'),
      ),
      ['paycli close profile --close-api', 'paycli close profile --close-api --account 1179000900 --json'],
    ),
    closeProfile,
  );
  bind(
    examples(closeFlag(close.command('banklist').description('the bank codes the verification APIs take')), [
      'paycli close banklist --close-api',
      "paycli close banklist --close-api --json | jq -r '.[].code'",
    ]),
    closeBankList,
  );
  bind(
    examples(closeFlag(close.command('business-category').description('the business categories merchant verification takes')), [
      'paycli close business-category --close-api',
      'paycli close business-category --close-api --json',
    ]),
    closeBusinessCategory,
  );
};

export const commands = { close: defineClose };
