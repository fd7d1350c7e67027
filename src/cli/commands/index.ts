import { Option, type Command } from 'commander';
import { examples, RUN_DURATION_TIMEOUT, type LazyAction } from '../program.js';
import { METHOD_NAMES, EXPIRED_TYPES } from '../../core/payment-rules.js';

function timeoutFlag(cmd: Command): Command {
  return cmd.option('--timeout <duration>', 'request timeout: 30s, 500ms, 2m (a bare number is milliseconds; PAYCLI_TIMEOUT; default 30s)');
}

function apiFlags(cmd: Command): Command {
  return timeoutFlag(cmd).option('--dry-run', 'print the signed request; send nothing').option('--curl', 'print an equivalent curl command (secrets as $PAYCLI_* placeholders); send nothing');
}

/** The top-level commands, as registered below (a test keeps the two in step). */
export const TOP_LEVEL_COMMANDS = [
  '__complete', 'whoami', 'sign', 'pay', 'verify-callback', 'sign-callback', 'listen', 'events', 'trigger', 'test-handler',
  'areas', 'demo', 'config', 'doctor', 'completion', 'sandbox', 'transaction', 'history', 'balance', 'channels', 'recover',
] as const;

/**
 * Registers the commands of paycli, grouped for the root help: all of them, or with `only` just that
 * top-level command (with its subcommands) — all a run needs once its command is known, and about a
 * millisecond less to build.
 */
export function registerCommands(program: Command, lazy: LazyAction, only?: string): void {
  const collect = (v: string, prev: string[] = []) => [...prev, v];
  const want = (name: (typeof TOP_LEVEL_COMMANDS)[number]) => only === undefined || only === name;

  program.commandsGroup('API commands:');
  if (want('areas')) {
    const areas = program.command('areas').description('look up regions: province → city → district → village (signed, cached)');
    examples(areas, ['paycli areas province', 'paycli areas city 51', 'paycli areas village 517101 --json', 'paycli areas pick']);
    for (const [level, arg, parent] of [
      ['province', '', ''],
      ['city', '<province>', 'province'],
      ['district', '<city>', 'city'],
      ['village', '<district>', 'district'],
    ] as const) {
      const cmd = areas.command(`${level}${arg ? ' ' + arg : ''}`).description(level === 'province' ? 'list provinces (sorted by name)' : `list the ${level === 'city' ? 'cities and regencies' : level + 's'} of a ${parent} code`);
      apiFlags(cmd).option('--no-cache', 'bypass the disk cache');
      examples(cmd, level === 'province' ? ['paycli areas province', 'paycli areas province --json | jq ".[0]"'] : [`paycli areas ${level} ${({ city: '51', district: '5171', village: '517101' } as Record<string, string>)[level]}`, `paycli --env local areas ${level} ${({ city: '51', district: '5171', village: '517101' } as Record<string, string>)[level]} --json`]);
      cmd.action(lazy(async () => ({ default: (await import('./areas.js')).areasList(level) })));
    }
    examples(timeoutFlag(areas.command('pick').description('walk the cascade interactively (type to filter) and print the chosen regions').option('--no-cache', 'bypass the disk cache')), ['paycli areas pick', 'paycli --env local areas pick --json'])
      .action(lazy(async () => ({ default: (await import('./areas.js')).areasPick })));
    const cache = areas.command('cache').description('the region cache on disk');
    examples(cache.command('clear').description('empty the region cache'), ['paycli areas cache clear', 'paycli areas cache clear --json'])
      .action(lazy(async () => ({ default: (await import('./areas.js')).areasCacheClear })));
  }

  program.commandsGroup('Setup commands:');
  if (want('demo')) {
    examples(program.command('demo').description('run the whole flow on an in-process emulator: regions, a VA payment, the buyer paying, the callback verified'), ['paycli demo', 'paycli demo --json'])
      .action(lazy(async () => ({ default: (await import('./demo.js')).demoCommand })));
  }
  if (want('config')) {
    const config = program.command('config').description('manage profiles and settings in the user config');
    examples(config, ['paycli config init', 'paycli config set va 1179000899', 'printf %s "$KEY" | paycli config set api-key -', 'paycli config list --show-origin']);
    examples(
      config.command('init').description('create or update a profile (wizard on a terminal; flags otherwise)').option('--default', 'make it the default profile (a production profile never becomes the default otherwise)'),
      ['paycli config init', 'paycli config init --profile prod --env production --va 1234567890 --api-key-file key.txt --no-input'],
    ).action(lazy(async () => ({ default: (await import('./config.js')).configInit })));
    examples(config.command('set <key> <value>').description('set a setting of the profile (value "-" reads stdin); keys: env, va, api-key, base-url, timeout, notify-url'), ['paycli config set env local', 'paycli config set api-key - < key.txt'])
      .action(lazy(async () => ({ default: (await import('./config.js')).configSet })));
    examples(config.command('get <key>').description('print one resolved setting (the VA and API key masked unless --reveal)').option('--reveal', 'print the VA or API key in full'), ['paycli config get va', 'paycli config get api-key --reveal'])
      .action(lazy(async () => ({ default: (await import('./config.js')).configGet })));
    examples(config.command('unset <key>').description('remove a setting from the profile'), ['paycli config unset base-url', 'paycli --profile prod config unset notify-url'])
      .action(lazy(async () => ({ default: (await import('./config.js')).configUnset })));
    examples(config.command('list').description('list resolved settings').option('--show-origin', 'say where each value came from'), ['paycli config list', 'paycli config list --show-origin --json'])
      .action(lazy(async () => ({ default: (await import('./config.js')).configList })));
    examples(config.command('profiles').description('list the profiles: environment, masked VA, the active one marked'), ['paycli config profiles', 'paycli config profiles --json'])
      .action(lazy(async () => ({ default: (await import('./config.js')).configProfiles })));
    examples(config.command('use <name>').description('make a profile the default'), ['paycli config use sandbox', 'paycli config use prod'])
      .action(lazy(async () => ({ default: (await import('./config.js')).configUse })));
    examples(config.command('path').description('print the paths of the user config, cache and data directories'), ['paycli config path', 'paycli config path --json'])
      .action(lazy(async () => ({ default: (await import('./config.js')).configPath })));
  }
  if (want('doctor')) {
    examples(program.command('doctor').description('check Node, config files and permissions, credentials, leaked keys, the base URL, clock, proxy and ports').option('--offline', 'skip the network checks'), ['paycli doctor', 'paycli --env local doctor --json'])
      .action(lazy(async () => ({ default: (await import('./doctor.js')).doctorCommand })));
  }
  if (want('completion')) {
    examples(program.command('completion <shell>').description('print the shell completion script (bash, zsh or fish)'), ['paycli completion bash > /etc/bash_completion.d/paycli', 'paycli completion fish > ~/.config/fish/completions/paycli.fish', 'paycli completion zsh > ~/.zsh/completions/_paycli'])
      .action(lazy(async () => ({ default: (await import('./completion.js')).completionCommand })));
  }
  if (want('__complete')) {
    program
      .command('__complete <kind> [args...]', { hidden: true })
      .option('--describe', 'add descriptions (fish)')
      .allowUnknownOption()
      .action(lazy(async () => ({ default: (await import('./completion.js')).completeCommand })));
  }
  if (want('whoami')) {
    examples(program.command('whoami').description('show profile, environment, base URL and masked credentials, and where each came from'), ['paycli whoami', 'paycli --env local whoami --json'])
      .action(lazy(async () => ({ default: (await import('./config.js')).whoami })));
  }

  program.commandsGroup('API commands:');
  if (want('sign')) {
    const sign = program.command('sign').description('show how a request is signed');
    examples(
      sign
        .command('request')
        .description('body hash, string to sign (VA and API key masked), signature and headers of a request')
        .option('--http-method <method>', 'HTTP method (GET, POST, …)')
        // `--method` is the payment method everywhere else; kept here, hidden, for old scripts.
        .addOption(new Option('--method <method>', 'deprecated: use --http-method').hideHelp())
        .requiredOption('--path <path>', 'API path, e.g. areas/province or v2/payment/direct')
        .option('--body <file>', 'the exact body bytes, from a file or - for stdin'),
      ['paycli sign request --http-method GET --path areas/province', 'paycli sign request --http-method POST --path v2/payment/direct --body body.json --json'],
    ).action(lazy(async () => ({ default: (await import('./sign-request.js')).signRequestCommand })));

  }
  if (want('pay')) {
    const pay = program
      .command('pay')
      .description('create a direct payment (va, cstore, cod, qris, cc, paylater, ewallet), validated before it is sent')
      .addOption(new Option('--method <method>', 'payment method').choices(METHOD_NAMES as string[]))
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
      .option('--allow-amount-mismatch', 'send an --amount that differs from the items\' total')
      .option('--notify-url <url>', 'callback URL (default: notify-url from config)')
      .option('--expired <n>', 'expiry duration (default 24)')
      .addOption(new Option('--expired-type <unit>', 'unit of --expired').choices(EXPIRED_TYPES as string[]))
      .option('--comments <text>', 'transaction note')
      .option('--reference-id <id>', 'your own reference (default: a generated PAYCLI-… id, printed)')
      .option('--delivery-area <postal>', 'delivery postal code (COD)')
      .option('--delivery-address <text>', 'delivery address (COD)')
      .option('--raw', 'with --json: print the whole envelope, not just Data')
      .option('--redirect', 'a redirect payment: a hosted page where the buyer chooses the method (--method pre-selects)')
      .option('--return-url <url>', 'with --redirect: where the buyer goes after paying')
      .option('--cancel-url <url>', 'with --redirect: where the buyer goes on cancel (default: --return-url)')
      .option('--open', 'with --redirect: open the page in the desktop browser');
    apiFlags(pay);
    examples(pay, [
      'paycli pay --method va --channel bca --name Putu --phone 08123456789 --email putu@mail.com --item "Kopi Bali:2:50000" --notify-url https://shop.example/callback',
      'paycli --env local pay --method qris --name Putu --phone 08123456789 --email putu@mail.com --item "Tiket:1:102000" --notify-url http://127.0.0.1:8080/',
      'paycli pay --method cod --channel rpx --item "Kaos:1:75000:0.3:20:5:30" --delivery-area 80361 --delivery-address "Jl. Sunset Road 1, Kuta" …',
      'paycli pay --method va --channel bni … --dry-run',
      'paycli pay --method ewallet --channel dana … --json | jq -r .Url',
      'paycli pay --redirect --item "Kaos:1:75000" --notify-url https://shop.example/cb --return-url https://shop.example/thanks --open',
    ]);
    pay.action(lazy(async () => ({ default: (await import('./pay.js')).payCommand })));
  }

  if (want('transaction')) {
    const transaction = program
      .command('transaction <id>')
      .description('the gateway\'s record of a transaction (by id, or by reference id): status (PaidStatus), amounts, dates (WIB), method, buyer')
      .option('--reference', 'the argument is a reference id even if it is all digits')
      .option('--wait', 'poll until a final state (paid, expired, cancelled, failed); exit 0 only if paid')
      .option('--interval <duration>', 'with --wait: time between checks (default 3s)')
      .option('--timeout <duration>', 'with --wait: give up after this long (default 15m; exit 5)')
      .option('--dry-run', 'print the signed request; send nothing')
      .option('--curl', 'print an equivalent curl command (secrets as $PAYCLI_* placeholders); send nothing');
    RUN_DURATION_TIMEOUT.add(transaction);
    examples(transaction, ['paycli transaction 100001', 'paycli transaction PAYCLI-20261122072704-89e5', 'paycli --env local transaction 100001 --wait --interval 2s --timeout 10m', 'paycli transaction 100001 --json | jq -r .PaidStatus'])
      .action(lazy(async () => ({ default: (await import('./merchant.js')).transactionCommand })));
  }
  if (want('history')) {
    const history = program
      .command('history')
      .description('the merchant\'s transactions, newest first: filter by dates and status, page or --all')
      .option('--from <date>', 'first day (YYYY-MM-DD, WIB)')
      .option('--to <date>', 'last day (YYYY-MM-DD, WIB)')
      .option('--paid-date', '--from/--to select by payment date, not creation date')
      .option('--status <status>', 'pending, paid, paid-unsettled, expired, cancelled, refund, failed, or a code')
      .option('--limit <n>', 'transactions per page (1-20, default 20)')
      .option('--page <n>', 'the page to show (default 1)')
      .option('--order <order>', 'asc or desc (by id; default desc)')
      .option('--all', 'follow every page (NDJSON with --json)')
      .option('--csv', 'CSV for spreadsheets (header and one line per transaction)');
    apiFlags(history);
    examples(history, ['paycli history', 'paycli history --from 2026-11-01 --to 2026-11-30 --status paid --all --csv > november.csv', 'paycli --env local history --all --json | jq -c "{id: .TransactionId, s: .PaidStatus}"'])
      .action(lazy(async () => ({ default: (await import('./merchant.js')).historyCommand })));
  }
  if (want('balance')) {
    examples(apiFlags(program.command('balance').description('the merchant balance: available, and paid but still settling when the gateway says')), ['paycli balance', 'paycli --env local balance --json'])
      .action(lazy(async () => ({ default: (await import('./merchant.js')).balanceCommand })));
  }
  if (want('channels')) {
    examples(
      apiFlags(program.command('channels').description('payment methods and channels with fees and availability (cached for pay)').option('--method <method>', 'only this method\'s channels').option('--legacy', 'use the older POST payment-method-list endpoint')),
      ['paycli channels', 'paycli --env local channels --method va --json', 'paycli channels --legacy'],
    ).action(lazy(async () => ({ default: (await import('./merchant.js')).channelsCommand })));
  }

  program.commandsGroup('Callback commands:');
  if (want('verify-callback')) {
    examples(
      program
        .command('verify-callback [file]')
        .description('check a callback signature and explain any mismatch (JSON, form, raw HTTP capture or {headers, body}; - for stdin)')
        .option('--signature <hex>', 'the X-Signature it arrived with (else the capture\'s header or a body "signature" field)')
        .option('--data <text>', 'the payload inline instead of a file')
        .option('--event <id>', 'a request from the event store of `paycli listen`')
        .option('--store <file>', 'the event store file (default $XDG_DATA_HOME/paycli/events.jsonl)')
        .option('--show-canonical', 'print the canonical JSON that is signed')
        .option('--jsonl <file>', 'verify many captures, one {headers, body} per line; prints a summary'),
      [
        'paycli verify-callback payload.json --signature c9594cc8…',
        'paycli verify-callback capture.http --va 1179000899',
        'pbpaste | paycli verify-callback - --signature "$SIG" --json',
        'paycli verify-callback --event evt_lx2k9a --show-canonical',
        'paycli verify-callback --jsonl events.jsonl',
      ],
    ).action(lazy(async () => ({ default: (await import('./verify-callback.js')).verifyCallbackCommand })));
  }
  if (want('sign-callback')) {
    examples(
      program
        .command('sign-callback [file]')
        .description('print the X-Signature the gateway would send for a payload')
        .option('--data <text>', 'the payload inline instead of a file')
        .option('--show-canonical', 'also print the canonical JSON')
        .option('--curl [url]', 'print a curl command that posts the payload, signed, to --to URL')
        .option('--to <url>', 'with --curl: where the callback is posted'),
      ['paycli sign-callback payload.form --va 1179000899', 'paycli sign-callback payload.json --show-canonical --json', 'paycli sign-callback payload.form --curl --to http://127.0.0.1:3000/callback'],
    ).action(lazy(async () => ({ default: (await import('./verify-callback.js')).signCallbackCommand })));
  }

  const store = (cmd: Command) => cmd.option('--store <file>', 'the event store (default $XDG_DATA_HOME/paycli/events.jsonl)');
  if (want('listen')) {
    const listen = store(
        program
          .command('listen')
          .description('receive callbacks locally: verify, store, mark duplicates, forward to your app')
          .option('--port <port>', 'port (0 for any free port)', '8080')
          .option('--host <host>', 'address to bind', '127.0.0.1')
          .option('--path <path>', 'the path callbacks arrive on (* for any)', '/')
          .option('--forward-to <url>', 'pass the exact bytes and headers on to your app (repeatable); its answer is mirrored', collect)
          .option('--max-body <size>', 'largest body accepted', '1mb')
          .option('--exit-after <n>', 'stop after N requests')
          .option('--timeout <duration>', 'stop after this long (e.g. 30s, 5m)')
          .option('--no-persist', 'do not write the event store')
          .option('--ui', 'serve a dashboard of the received callbacks at /_paycli/ (loopback only)'),
      );
    RUN_DURATION_TIMEOUT.add(listen);
    examples(listen,
      ['paycli listen', 'paycli listen --port 8080 --forward-to http://127.0.0.1:3000/ipaymu/callback', 'paycli --env local listen --port 0 --json | jq .verdict', 'paycli listen --exit-after 1 --timeout 2m'],
    ).action(lazy(async () => ({ default: (await import('./listen.js')).listenCommand })));
  }
  if (want('events')) {
    const events = program.command('events').description('the event store of `paycli listen` and `paycli trigger`');
    examples(events, ['paycli events list', 'paycli events show evt_lx2k9a', 'paycli events replay evt_lx2k9a --to http://127.0.0.1:3000/callback', 'paycli events prune --older-than 7d']);
    examples(
      store(events.command('list').description('list stored requests, oldest first').option('--limit <n>', 'only the newest N').option('--status <status>', 'only this callback status').option('--valid', 'only valid ones').option('--invalid', 'only invalid or malformed ones')),
      ['paycli events list', 'paycli events list --invalid --limit 20 --json'],
    ).action(lazy(async () => ({ default: (await import('./events.js')).eventsList })));
    examples(store(events.command('show <id>').description('headers, body, canonical JSON and verdict of one request (id or unique prefix)')), ['paycli events show evt_lx2k9a', 'paycli events show evt_lx2k --json'])
      .action(lazy(async () => ({ default: (await import('./events.js')).eventsShow })));
    examples(
      timeoutFlag(store(events.command('replay <id>').description('send a stored request again, byte for byte').option('--to <url>', 'where to send it').option('--resign', 're-sign with the configured VA'))),
      ['paycli events replay evt_lx2k9a --to http://127.0.0.1:3000/callback', 'paycli events replay evt_lx2k9a --to http://127.0.0.1:3000/callback --resign --va 1179000899'],
    ).action(lazy(async () => ({ default: (await import('./events.js')).eventsReplay })));
    examples(store(events.command('clear').description('delete every stored event')), ['paycli events clear', 'paycli events clear --store ./events.jsonl'])
      .action(lazy(async () => ({ default: (await import('./events.js')).eventsClear })));
    examples(
      store(events.command('prune').description('drop old events: those older than --older-than, and all but the newest --keep').option('--keep <n>', 'keep only the newest N events').option('--older-than <duration>', 'drop events received longer ago than this (e.g. 7d, 12h)')),
      ['paycli events prune --older-than 7d', 'paycli events prune --keep 1000 --json'],
    ).action(lazy(async () => ({ default: (await import('./events.js')).eventsPrune })));
  }
  if (want('trigger')) {
    examples(
      store(
        program
          .command('trigger')
          .description('send a realistic, correctly signed callback to a URL, as the gateway would')
          .requiredOption('--to <url>', 'your callback handler')
          .addOption(new Option('--status <status>', 'callback status').choices(['berhasil', 'pending', 'expired']).default('berhasil'))
          .addOption(new Option('--method <method>', 'payment method').choices(METHOD_NAMES as string[]).default('va'))
          .option('--channel <channel>', 'payment channel (default: bca for va, else the first of the method)')
          .addOption(new Option('--format <format>', 'body format').choices(['form', 'json']).default('form'))
          .option('--amount <rp>', 'transaction amount (default 102000)')
          .option('--set <field=value>', 'override a callback field (repeatable)', collect)
          .option('--repeat <n>', 'send the same callback N times (duplicates)', '1')
          .addOption(new Option('--settlement <mode>', 'for berhasil: settled (code 1) or deferred (unsettle, code 6)').choices(['immediate', 'deferred']).default('immediate'))
          .option('--timeout <duration>', 'how long to wait for the answer: 10s, 500ms (default 30s; PAYCLI_TIMEOUT)')
          .option('--no-persist', 'do not write the event store'),
      ),
      ['paycli --env local trigger --to http://127.0.0.1:3000/callback', 'paycli trigger --to http://127.0.0.1:8080/ --status expired --method qris --format json --va 1179000899', 'paycli trigger --to http://127.0.0.1:3000/cb --set buyer_name="Nyoman Ö" --repeat 3'],
    ).action(lazy(async () => ({ default: (await import('./trigger.js')).triggerCommand })));
  }
  if (want('test-handler')) {
    examples(
      program
        .command('test-handler <url>')
        .description('conformance suite for your callback handler: valid accepted, forged rejected, duplicates answered 200')
        .addOption(new Option('--format <format>', 'body formats to test').choices(['form', 'json', 'both']).default('both'))
        .addOption(new Option('--method <method>', 'payment method of the sample callbacks').choices(METHOD_NAMES as string[]).default('va'))
        .option('--channel <channel>', 'payment channel of the sample callbacks')
        .option('--deadline <duration>', 'each answer must come within this long (e.g. 5s, 500ms)', '5s')
        .option('--junit <file>', 'also write a JUnit XML report'),
      ['paycli --env local test-handler http://127.0.0.1:3000/callback', 'paycli test-handler https://staging.shop.example/ipaymu/callback --va 1179000899 --junit report.xml'],
    ).action(lazy(async () => ({ default: (await import('./test-handler.js')).testHandlerCommand })));
  }

  if (want('recover')) {
    examples(
      program
        .command('recover')
        .description('find payments whose callback your server missed (orders unpaid here, paid or expired at the gateway) and deliver them again')
        .option('--orders <file>', 'your orders: CSV or JSON lines with trx_id or reference_id, and status (- for stdin)')
        .option('--since <duration>', 'instead: payments of this window (e.g. 2d) with no callback answered 200 in the event store')
        .option('--deliver-to <url>', 'post each missed callback, rebuilt from the gateway\'s record and signed with the VA')
        .addOption(new Option('--format <format>', 'callback body format').choices(['form', 'json']).default('form'))
        .option('--store <file>', 'the event store for --since (default $XDG_DATA_HOME/paycli/events.jsonl)')
        .option('--delivery-timeout <duration>', 'how long to wait for each answer (default 10s)')
        .option('--dry-run', 'with --deliver-to: show what would be delivered; send nothing')
        .option('--curl', 'with --deliver-to: print a curl command per callback; send nothing'),
      ['paycli recover --orders orders.csv', 'paycli recover --orders orders.jsonl --deliver-to http://127.0.0.1:3000/ipaymu/callback', 'paycli --env local recover --since 2d --deliver-to http://127.0.0.1:3000/callback --json'],
    ).action(lazy(async () => ({ default: (await import('./recover.js')).recoverCommand })));
  }

  program.commandsGroup('Emulator commands:');
  if (want('sandbox')) {
    const sandbox = program
      .command('sandbox')
      .description('run the offline gateway emulator (regions, payments, payment page, signed callbacks with retries)')
      .option('--port <port>', 'port to listen on (0 for any free port)', '4010')
      .option('--host <host>', 'address to bind', '127.0.0.1')
      .option('--data-dir <dir>', 'where state and the callback outbox live (default $XDG_DATA_HOME/paycli/sandbox)')
      .option('--in-memory', 'keep state in memory only (nothing on disk)')
      .option('--accounts <file>', 'JSON array of merchants: {va, apiKey, active, name, callbackFormat}')
      .addOption(new Option('--callback-format <format>', 'callback body format').choices(['form', 'json']))
      .option('--retry-schedule <list>', 'delays between callback attempts', '500ms,1s,2s,5s,10s,30s,1m,5m')
      .option('--faults <list>', 'make deliveries realistic: duplicate, delay=2s')
      .option('--no-dashboard', 'do not serve the dashboard (by default at / on the loopback address)')
      .addOption(new Option('--settlement <mode>', 'paid callbacks settle immediately (settled, code 1) or deferred (unsettle, code 6)').choices(['immediate', 'deferred']).default('immediate'));
    examples(sandbox, ['paycli sandbox', 'paycli sandbox --port 0 --in-memory --json', 'paycli sandbox --va 1234567890 --api-key-file key.txt --callback-format json', 'paycli sandbox --retry-schedule 100ms,1s --faults duplicate']);
    sandbox.action(lazy(async () => ({ default: (await import('./sandbox.js')).sandboxServe })));
    const sandboxUrl = (cmd: Command) => cmd.option('--sandbox-url <url>', 'the running emulator (PAYCLI_SANDBOX_URL)', undefined);
    examples(sandboxUrl(sandbox.command('pay <id>').description('simulate the buyer paying (transaction id or payment number); sends the callback')), ['paycli sandbox pay 100001', 'paycli sandbox pay 8868000000100001 --json'])
      .action(lazy(async () => ({ default: (await import('./sandbox.js')).sandboxPay })));
    examples(sandboxUrl(sandbox.command('expire <id>').description('let a pending payment expire; sends the callback')), ['paycli sandbox expire 100001', 'paycli sandbox expire 100002 --sandbox-url http://127.0.0.1:5000'])
      .action(lazy(async () => ({ default: (await import('./sandbox.js')).sandboxExpire })));
    examples(sandboxUrl(sandbox.command('resend <id>').description('send a paid or expired payment\'s callback again now')), ['paycli sandbox resend 100001', 'paycli sandbox resend 8868000000100001 --json'])
      .action(lazy(async () => ({ default: (await import('./sandbox.js')).sandboxResend })));
    examples(sandboxUrl(sandbox.command('list').description('list the emulator\'s transactions and their callbacks')), ['paycli sandbox list', 'paycli sandbox list --json'])
      .action(lazy(async () => ({ default: (await import('./sandbox.js')).sandboxList })));
  }

}
