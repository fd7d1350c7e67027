import type { PaymentItem } from '../../core/payment-rules.js';
import type { CommandEnv } from '../command-env.js';
import { rupiah } from '../output.js';
import { findAreas, findRates } from './cod.js';
import type { PayFlags } from './pay-input.js';

/** What `pay` knows of a COD parcel before it asks. */
export interface CodChoice {
  deliveryArea?: string;
  pickupArea?: string;
  shipping?: string;
  shippingService?: string;
}

/** The parcel's weight: each item's weight (kg) times its quantity; 1 kg when none is given. */
export function parcelWeight(items: readonly PaymentItem[]): number {
  const kg = items.reduce((sum, i) => sum + (i.weight ?? 0) * i.qty, 0);
  return kg > 0 ? Math.round(kg * 1000) / 1000 : 1;
}

/**
 * On a terminal, a COD payment without --shipping/--shipping-service asks for them: the areas by
 * search (`cod area`) when not given as ids, then the services and prices of `cod rate` (the rate
 * request with the delivery and pickup areas) to choose from. Fills `c` in place.
 */
export async function promptShipping(env: CommandEnv<PayFlags>, c: CodChoice, items: readonly PaymentItem[]): Promise<void> {
  const { select, input } = await import('@inquirer/prompts');
  const io = { input: env.ctx.stdin, output: env.ctx.stderr };
  const area = async (what: string): Promise<string | undefined> => {
    for (;;) {
      const query = await input(
        { message: `${what} area (search: village, district or city)`, validate: (s) => s.trim().length >= 3 || 'at least 3 characters' },
        io,
      );
      const found = await findAreas(env, query);
      if (!found) return undefined;
      if (found.length > 0) {
        return select<string>(
          { message: `${what} area`, choices: found.map((a) => ({ value: String(a.id), name: `${a.label}${a.postalCode ? ` ${a.postalCode}` : ''}` })) },
          io,
        );
      }
      env.out.info(`no area matches "${query}": try another name`);
    }
  };
  if (!c.deliveryArea || !/^\d+$/.test(c.deliveryArea)) c.deliveryArea = (await area('Delivery')) ?? c.deliveryArea;
  if (!c.pickupArea) c.pickupArea = await area('Pickup');
  if (!c.deliveryArea || !c.pickupArea) return;
  const amount = items.reduce((s, i) => s + i.qty * i.price, 0);
  const rates = await findRates(env, {
    destination_area_id: Number(c.deliveryArea),
    pickup_area_id: Number(c.pickupArea),
    weight: parcelWeight(items),
    amount,
  });
  if (!rates || rates.length === 0) {
    if (rates) env.out.warn('no courier serves these areas: pass --shipping and --shipping-service');
    return;
  }
  const chosen = await select<number>(
    {
      message: 'Courier',
      choices: rates.map((r, i) => ({
        value: i,
        name: `${r.shipping} ${r.service} · ${r.name} · ${Number.isFinite(r.price) ? rupiah(r.price) : '-'}${r.estimate ? ` · ${r.estimate}` : ''}`,
      })),
    },
    io,
  );
  c.shipping = rates[chosen]!.shipping;
  c.shippingService = rates[chosen]!.service;
}
