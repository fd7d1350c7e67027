import type { OptionValues } from '@commander-js/extra-typings';
import { Option, collect, examples, type Define, type TypedCommand } from '../command-kit.js';
import { topCommand } from './heads.js';
import {
  sandboxClock,
  sandboxCancel,
  sandboxEnv,
  sandboxExpire,
  sandboxFail,
  sandboxHealth,
  sandboxPay,
  sandboxRefund,
  sandboxRelease,
  sandboxResend,
  sandboxSettle,
} from './sandbox-actions.js';
import { SHIP_HELP, sandboxDeliver, sandboxShip } from './sandbox-cod.js';
import { sandboxExport, sandboxImport, sandboxList, sandboxReset, sandboxSeed } from './sandbox-ledger.js';
import { sandboxLogs } from './sandbox-logs.js';
import { sandboxServe } from './sandbox-serve.js';

/**
 * `paycli sandbox` and its subcommands: the definition. The handlers are its parts: serve
 * (`sandbox-serve.ts`), the admin transitions and tools (`sandbox-actions.ts`), the request log
 * (`sandbox-logs.ts`), the ledger (`sandbox-ledger.ts`) and the COD courier (`sandbox-cod.ts`).
 */
const defineSandbox: Define = (program, bind) => {
  const sandbox = topCommand(program, 'sandbox')
    .option('--port <port>', 'port to listen on, 0 for any free port (PAYCLI_SANDBOX_PORT; default 4010)')
    .option('--host <host>', 'address to bind (PAYCLI_SANDBOX_HOST; default 127.0.0.1)')
    .option(
      '--allow-host <name>',
      'also answer requests whose Host is this name, e.g. a Compose service name (repeatable; PAYCLI_SANDBOX_ALLOW_HOSTS, comma-separated)',
      collect,
    )
    .option('--data-dir <dir>', 'where state and the callback outbox live (PAYCLI_SANDBOX_DATA_DIR; default $XDG_DATA_HOME/paycli/sandbox)')
    .option('--in-memory', 'keep state in memory only (nothing on disk)')
    .option('--accounts <file>', 'JSON array of merchants: {va, apiKey, active, name, callbackFormat}')
    .addOption(new Option('--callback-format <format>', 'callback body format').choices(['form', 'json']))
    .option('--retry-schedule <list>', 'delays between callback attempts (default 500ms,1s,2s,5s,10s,30s,1m,5m)')
    .option('--faults <list>', 'duplicate, delay=2s, concurrent-duplicate=N, api-500=RATE[@PATH], api-timeout=RATE[@PATH], api-slow=DURATION[@PATH]')
    .option('--no-dashboard', 'do not serve the dashboard (by default at / on the loopback address)')
    .addOption(
      new Option('--settlement <mode>', 'paid callbacks settle immediately (settled, code 1) or deferred (unsettle, code 6)').choices([
        'immediate',
        'deferred',
      ]),
    )
    .option(
      '--ready-file <path>',
      'once the port accepts connections, write {url, baseUrl, dashboardUrl, va, apiKey} there as JSON, atomically (PAYCLI_SANDBOX_READY_FILE)',
    );
  sandbox.addHelpText(
    'after',
    [
      '',
      'Environment (for containers; a flag wins): PAYCLI_SANDBOX_PORT, _HOST,',
      '_ALLOW_HOSTS, _VA, _API_KEY or _API_KEY_FILE, _DATA_DIR, _IN_MEMORY, _ACCOUNTS,',
      '_CALLBACK_FORMAT, _RETRY_SCHEDULE, _FAULTS, _SETTLEMENT, _DASHBOARD,',
      '_READY_FILE.',
      '',
    ].join('\n'),
  );
  examples(sandbox, [
    'paycli sandbox',
    'paycli sandbox --port 0 --in-memory --json',
    'paycli sandbox --va 1234567890 --api-key-file key.txt --callback-format json',
    'paycli sandbox --retry-schedule 100ms,1s --faults duplicate',
    'paycli sandbox --host 0.0.0.0 --ready-file /tmp/paycli-ready.json',
  ]);
  bind(sandbox, sandboxServe);
  defineActions(sandbox, bind);
  defineTools(sandbox, bind);
  // The courier's steps of a COD parcel (sandbox-cod.ts).
  for (const kind of ['ship', 'deliver'] as const)
    bind(
      examples(sandboxUrl(sandbox.command(`${kind} <id>`).description(SHIP_HELP[kind].description)), SHIP_HELP[kind].examples),
      kind === 'ship' ? sandboxShip : sandboxDeliver,
    );
  defineLedger(sandbox, bind);
};

/** `--sandbox-url`: the running emulator a subcommand talks to. */
const sandboxUrl = <A extends unknown[], O extends OptionValues>(cmd: TypedCommand<A, O>) =>
  cmd.option('--sandbox-url <url>', 'the running emulator (PAYCLI_SANDBOX_URL)');

type Sandbox = ReturnType<typeof topCommand>;
type Bind = Parameters<Define>[1];

/** The admin transitions, each with its callback: pay, expire, cancel, fail, refund, settle, release, and resend. */
function defineActions(sandbox: Sandbox, bind: Bind): void {
  bind(
    examples(sandboxUrl(sandbox.command('pay <id>').description('simulate the buyer paying (transaction id or payment number); sends the callback')), [
      'paycli sandbox pay 100001',
      'paycli sandbox pay 8868000000100001 --json',
    ]),
    sandboxPay,
  );
  bind(
    examples(sandboxUrl(sandbox.command('expire <id>').description('let a pending payment expire; sends the callback')), [
      'paycli sandbox expire 100001',
      'paycli sandbox expire 100002 --sandbox-url http://127.0.0.1:5000',
    ]),
    sandboxExpire,
  );
  bind(
    examples(sandboxUrl(sandbox.command('cancel <id>').description('cancel a pending payment (batal, 2); sends the callback')), [
      'paycli sandbox cancel 100001',
      'paycli sandbox cancel 8868000000100001 --json',
    ]),
    sandboxCancel,
  );
  bind(
    examples(
      sandboxUrl(
        sandbox
          .command('fail <id>')
          .description('make a pending payment fail (gagal, 5; --error: 4); sends the callback')
          .option('--error', 'end in error (4) instead of failed (5)'),
      ),
      ['paycli sandbox fail 100001', 'paycli sandbox fail 100001 --error'],
    ),
    sandboxFail,
  );
  bind(
    examples(sandboxUrl(sandbox.command('refund <id>').description('refund a paid payment (3): the money leaves the balance; sends the callback')), [
      'paycli sandbox refund 100001',
      'paycli sandbox refund 100001 --sandbox-url http://127.0.0.1:4020',
    ]),
    sandboxRefund,
  );
  bind(
    examples(sandboxUrl(sandbox.command('settle <id>').description('settle a paid-unsettled payment now (6 → 1); sends the callback')), [
      'paycli sandbox settle 100001',
      'paycli sandbox settle 100001 --json',
    ]),
    sandboxSettle,
  );
  bind(
    examples(sandboxUrl(sandbox.command('release <id>').description('release an escrow payment (7 → paid); sends the callback')), [
      'paycli sandbox release 100001',
      'paycli sandbox release 100001 --json',
    ]),
    sandboxRelease,
  );
  bind(
    examples(
      sandboxUrl(
        sandbox
          .command('resend <id>')
          .description("send a payment's callback again now (--to: to another URL)")
          .option('--to <url>', 'send it to this URL instead of the notify URL'),
      ),
      ['paycli sandbox resend 100001', 'paycli sandbox resend 100001 --to http://127.0.0.1:9000/callback', 'paycli sandbox resend 8868000000100001 --json'],
    ),
    sandboxResend,
  );
}

/** The running emulator's log, clock, health and shell exports. */
function defineTools(sandbox: Sandbox, bind: Bind): void {
  bind(
    examples(
      sandboxUrl(
        sandbox
          .command('logs')
          .description("show the running emulator's API request log (why a request was refused)")
          .option('--follow', 'keep printing new requests until Ctrl-C'),
      ),
      ['paycli sandbox logs', 'paycli sandbox logs --follow', "paycli sandbox logs --json | jq -c 'select(.status == 401) | .auth'"],
    ),
    sandboxLogs,
  );
  bind(
    examples(
      sandboxUrl(sandbox.command('clock [verb] [value]').description("show the emulator's clock, or move it: advance DURATION | set TIME (forward only)")),
      ['paycli sandbox clock', 'paycli sandbox clock advance 25h', 'paycli sandbox clock set 2026-12-01T10:00+07:00'],
    ),
    sandboxClock,
  );
  bind(
    examples(sandboxUrl(sandbox.command('health').description('exit 0 when the emulator answers, 5 otherwise (for container health checks and scripts)')), [
      'paycli sandbox health',
      'paycli sandbox health --sandbox-url http://127.0.0.1:4020',
    ]),
    sandboxHealth,
  );
  bind(
    examples(
      sandboxUrl(
        sandbox
          .command('env')
          .description('print shell exports (PAYCLI_ENV, PAYCLI_BASE_URL, PAYCLI_VA, the public key) that aim every command at the running emulator'),
      ).addOption(new Option('--shell <shell>', 'syntax of the exports').choices(['sh', 'fish'])),
      [
        'paycli sandbox env',
        'paycli sandbox env --sandbox-url http://127.0.0.1:4020 --json',
        'eval "$(paycli sandbox env)"',
        'paycli sandbox env --shell fish | source',
      ],
    ),
    sandboxEnv,
  );
}

/** The ledger: list, seed, export, import, reset (the last four also on a stopped emulator's data dir). */
function defineLedger(sandbox: Sandbox, bind: Bind): void {
  bind(
    examples(
      sandboxUrl(sandbox.command('list').description("list the emulator's transactions and their callbacks, newest first"))
        .option('--limit <n>', 'transactions per page (1-1000)', '100')
        .option(
          '--status <status>',
          'only this status: pending, berhasil|paid, unsettled, expired, batal|cancelled, refund, error, gagal|failed, escrow, or a code',
        )
        .option('--all', 'follow every page (NDJSON with --json)'),
      ['paycli sandbox list', 'paycli sandbox list --status pending --all --json'],
    ),
    sandboxList,
  );
  const dataDirFlag = <A extends unknown[], O extends OptionValues>(cmd: TypedCommand<A, O>) =>
    cmd.option('--data-dir <dir>', "the stopped emulator's data dir (PAYCLI_SANDBOX_DATA_DIR; default $XDG_DATA_HOME/paycli/sandbox)");
  bind(
    examples(
      dataDirFlag(sandboxUrl(sandbox.command('seed').description('add synthetic history: payments over the last days, a share paid with delivered callbacks')))
        .requiredOption('--payments <n>', 'how many payments')
        .option('--paid <share>', 'share of them paid, 0-1: exactly round(N × share)', '0.7')
        .option('--days <n>', 'spread over the last N days', '90'),
      ['paycli sandbox seed --payments 100000', 'paycli sandbox seed --payments 5000 --paid 0.5 --days 30 --sandbox-url http://127.0.0.1:4010'],
    ),
    sandboxSeed,
  );
  bind(
    examples(dataDirFlag(sandboxUrl(sandbox.command('export').description('write the ledger as JSONL (one payment with its callbacks per line)'))), [
      'paycli sandbox export > ledger.jsonl',
      'paycli sandbox export --sandbox-url http://127.0.0.1:4010 | jq -c .txn.id',
    ]),
    sandboxExport,
  );
  bind(
    examples(
      dataDirFlag(sandbox.command('import <file>').description("load a ledger export (or an older journal.jsonl) into a stopped emulator's empty ledger")),
      ['paycli sandbox import ledger.jsonl', 'paycli sandbox import ledger.jsonl --data-dir ./sandbox-data'],
    ),
    sandboxImport,
  );
  bind(
    examples(
      dataDirFlag(
        sandboxUrl(
          sandbox.command('reset').description('empty the ledger (every transaction and callback; accounts stay) and set the clock back to real time'),
        ),
      )
        .option('--yes', 'really delete them')
        .option('--keep-clock', 'leave the clock where it is'),
      ['paycli sandbox reset --yes', 'paycli sandbox reset --yes --keep-clock --sandbox-url http://127.0.0.1:4010'],
    ),
    sandboxReset,
  );
}

export const commands = { sandbox: defineSandbox };
