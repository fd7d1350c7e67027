import { expect, it } from 'vitest';
import { terminalSuite } from '../helpers/tmux.js';
import { allTxns } from '../helpers/sandbox.js';

const suite = terminalSuite();
const { run, term } = suite;

run('a COD payment on a terminal (tmux)', () => {
  it('asks for the areas by search, then offers the rates of `cod rate` to choose the courier from', async () => {
    const t = await term(
      'pay --method cod --name Putu --phone 08123456789 --email putu@mail.com --notify-url http://127.0.0.1:9/cb --item Kaos:2:75000:0.6:20:5:30 --delivery-address "Jl. Kemuning 1" --reference-id TTY-COD',
    );
    await t.answer(/Delivery area \(search/, 'grogol petamburan');
    await t.waitFor(/GROGOL PETAMBURAN, KOTA ADMINISTRASI JAKARTA BARAT/);
    await t.keys('Enter');
    await t.answer(/Pickup area \(search/, 'kuta utara');
    await t.waitFor(/KUTA UTARA, KABUPATEN BADUNG/);
    await t.keys('Enter');
    // Two items of 0.6 kg: 1.2 kg, two started kilograms between Jakarta and Bali (another province).
    const rates = await t.waitFor(/RPX REG/);
    expect(rates).toMatch(/IDEXPRESS STD · ID Express Standard · Rp 44\.000 · 3-6 days/);
    await t.keys('Down', 'Enter'); // RPX REG
    const screen = await t.waitFor(/payment created/);
    expect(screen).toMatch(/RPX/);
    expect(await t.exitCode()).toBe(0);
    const txn = allTxns(suite.sb.state).find((x) => x.referenceId === 'TTY-COD')!;
    expect(txn.shipment).toMatchObject({ shipping: 'RPX', shippingService: 'REG', weightKg: 1.2 });
    expect(txn.shipment!.deliveryArea).toMatch(/^3173\d{6}$/);
    expect(txn.shipment!.pickupArea).toMatch(/^5103\d{6}$/);
  });
});
