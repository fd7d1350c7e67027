import { BALANCE_PATH, checkAccount, checkBalanceData, encodeBalanceBody, readBalance } from '../../core/api/merchant.js';
import { maskSecret } from '../../core/signing/request-signature.js';
import type { Handler } from '../command-env.js';
import { rupiah } from '../output.js';
import { withSpinner } from '../spinner.js';
import { apiFlags, examples, type Define } from '../command-kit.js';
import { topCommand } from './heads.js';

/** `paycli balance`: the merchant's balance (settled, and paid but not yet settled when reported). */
export const balanceCommand: Handler<{ account?: string }> = async (env) => {
  const { out, session, opts } = env;
  const va = checkAccount(opts.account) ?? (await session.credentials()).va;
  const req = await session.signed('POST', BALANCE_PATH, encodeBalanceBody(va));
  if (await session.preview(req)) return 'ok';
  const envelope = await withSpinner(env, 'checking balance', () => session.send<unknown>(req, { checkData: checkBalanceData }));
  const b = readBalance(envelope.Data);
  if (out.json) {
    out.data(b);
    return 'ok';
  }
  const rows = [['available', rupiah(b.merchantBalance)]];
  if (b.unsettledBalance !== undefined) rows.push(['settling', rupiah(b.unsettledBalance)]);
  if (b.escrowBalance) rows.push(['in escrow', rupiah(b.escrowBalance)]);
  rows.push(['member', rupiah(b.memberBalance)]);
  // The VA is masked in human output as everywhere else (`--json` keeps the gateway's answer whole).
  out.out(`balance of VA ${maskSecret(b.va || va)}\n\n${out.table(rows.map(([k, v]) => [`  ${k}`, v!]))}`);
  return 'ok';
};

// ── Definitions ─────────────────────────────────────────────────────────────────────────────────

const defineBalance: Define = (program, bind) =>
  bind(
    examples(apiFlags(topCommand(program, 'balance').option('--account <va>', 'a child account (child VA) of yours: its balance')), [
      'paycli balance',
      'paycli --env local balance --json',
      'paycli balance --account 1179000900',
    ]),
    balanceCommand,
  );

export const commands = { balance: defineBalance };
