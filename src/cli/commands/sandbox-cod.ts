import type { Handler } from '../command-env.js';
import { rupiah } from '../output.js';
import { transactionAction } from '../sandbox-admin.js';

/**
 * `paycli sandbox ship ID` and `paycli sandbox deliver ID`: the courier's side of a COD payment in
 * the emulator. `ship` moves the parcel one step (waiting → picked up → in transit → delivered);
 * `deliver` takes every remaining step. Delivered is paid: the callback goes out as for `sandbox pay`.
 */
function shipCommand(kind: 'ship' | 'deliver'): Handler<{ sandboxUrl?: string }> {
  return async (env, id: string) => {
    const json = await transactionAction(env, id, kind);
    const t = json.transaction as Record<string, unknown>;
    if (env.out.json) env.out.data(json);
    else env.out.out(`${String(json.message)} · ${rupiah(t.amount as number)}${json.stage === 'delivered' ? ` → callback to ${String(t.notifyUrl)}` : ''}`);
    return 'ok';
  };
}

export const sandboxShip = shipCommand('ship');
export const sandboxDeliver = shipCommand('deliver');

/** The commands' descriptions and examples (sandbox.ts binds them). */
export const SHIP_HELP = {
  ship: {
    description: 'move a COD parcel one step: picked up, in transit, delivered (= paid)',
    examples: ['paycli sandbox ship 100001', 'paycli sandbox ship 100001 --json'],
  },
  deliver: {
    description: 'deliver a COD parcel: every remaining step, then paid with its callback',
    examples: ['paycli sandbox deliver 100001', 'paycli sandbox deliver 100001 --json'],
  },
};
