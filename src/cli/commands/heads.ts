import type { Command as PlainCommand } from 'commander';
import { typed } from '../command-kit.js';

/**
 * What the root help shows of each top-level command, in one place: its name and arguments, its
 * description, and whether it has options of its own (`[options]` in the root help). Each command
 * module starts its definition with `topCommand(program, '<name>')`, which takes the name, arguments
 * and description from here; the root help (and a bare `paycli`, and a typo's suggestion) is built
 * from this table alone, without loading the command modules (program.ts, `shallow`).
 * test/cli/program.test.ts checks that the table and each module's definition agree.
 */
export const HEADS = {
  areas: { usage: 'areas', options: false, description: 'look up regions: province → city → district → village (signed, cached)' },
  demo: {
    usage: 'demo',
    options: false,
    description: 'run the whole flow on an in-process emulator: regions, a VA payment, the buyer paying, the callback verified',
  },
  config: { usage: 'config', options: false, description: 'manage profiles and settings in the user config' },
  doctor: {
    usage: 'doctor',
    options: true,
    description: 'check Node, SQLite, config files and permissions, credentials, leaked keys, the base URL, clock, proxy and ports',
  },
  completion: { usage: 'completion <shell>', options: false, description: 'print the shell completion script (bash, zsh or fish)' },
  __complete: { usage: '__complete <kind> [args...]', options: true, hidden: true, description: '' },
  whoami: { usage: 'whoami', options: false, description: 'show profile, environment, base URL and masked credentials, and where each came from' },
  sign: { usage: 'sign', options: false, description: 'show how a request is signed' },
  pay: { usage: 'pay', options: true, description: 'create a direct payment (va, cstore, cod, qris, cc, paylater, ewallet), validated before it is sent' },
  transaction: {
    usage: 'transaction <id>',
    options: true,
    description: "the gateway's record of a transaction (by id, or by reference id): status (PaidStatus), amounts, dates (WIB), method, buyer",
  },
  history: { usage: 'history', options: true, description: "the merchant's transactions, newest first: filter by dates and status, page or --all" },
  api: { usage: 'api <method> <path>', options: true, description: 'sign and send any request to the gateway (the endpoints paycli does not wrap)' },
  cod: { usage: 'cod', options: false, description: 'COD logistics: delivery areas, shipping rates, labels, tracking, pickups' },
  close: { usage: 'close', options: false, description: "the gateway's private Close API (granted per account): transfers between VAs, members, profiles" },
  balance: { usage: 'balance', options: true, description: 'the merchant balance: available, and paid but still settling when the gateway says' },
  channels: { usage: 'channels', options: true, description: 'payment methods and channels with fees and availability (cached for pay)' },
  'verify-callback': {
    usage: 'verify-callback [file]',
    options: true,
    description: 'check a callback signature and explain any mismatch (JSON, form, raw HTTP capture or {headers, body}; - for stdin)',
  },
  'sign-callback': { usage: 'sign-callback [file]', options: true, description: 'print the X-Signature the gateway would send for a payload' },
  listen: { usage: 'listen', options: true, description: 'receive callbacks locally: verify, store, mark duplicates, forward to your app' },
  events: { usage: 'events', options: false, description: 'the event store of `paycli listen` and `paycli trigger`' },
  trigger: { usage: 'trigger', options: true, description: 'send a realistic, correctly signed callback to a URL, as the gateway would' },
  'test-handler': {
    usage: 'test-handler <url>',
    options: true,
    description: 'conformance suite for your callback handler: valid accepted, forged rejected, duplicates answered 200',
  },
  reconcile: {
    usage: 'reconcile',
    options: true,
    description: 'compare your orders with the gateway: paid here or there only, amounts, unknown, repeated; exit 6 unless all agree',
  },
  recover: {
    usage: 'recover [reference]',
    options: true,
    description: 'find payments whose callback your server missed (orders unpaid here, paid or expired at the gateway) and deliver them again',
  },
  sandbox: {
    usage: 'sandbox',
    options: true,
    description: 'run the offline gateway emulator (regions, payments, payment page, signed callbacks with retries)',
  },
  scenario: {
    usage: 'scenario',
    options: false,
    description: 'run committed payment scenarios against the emulator (statuses, clock, callbacks, your app), with JUnit output',
  },
} as const satisfies Record<string, { usage: string; options: boolean; hidden?: true; description: string }>;

export type Head = (typeof HEADS)[keyof typeof HEADS];

/** The top-level command `name` on the root program, typed from its usage, with its description. */
export function topCommand<N extends keyof typeof HEADS>(program: PlainCommand, name: N) {
  const head: Head = HEADS[name];
  const usage = HEADS[name].usage;
  const cmd = typed(program).command(usage, 'hidden' in head ? { hidden: head.hidden } : undefined);
  return head.description ? cmd.description(head.description) : cmd;
}

/** The command's line in the root help's list (what commander's Help.subcommandTerm makes of the full definition). */
export function headTerm(head: Head): string {
  const space = head.usage.indexOf(' ');
  const name = space < 0 ? head.usage : head.usage.slice(0, space);
  return name + (head.options ? ' [options]' : '') + (space < 0 ? '' : head.usage.slice(space));
}
