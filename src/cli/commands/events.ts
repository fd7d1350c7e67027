import { examples, storeFlag, timeoutFlag, type Define } from '../command-kit.js';
import { eventsExport } from './events-export.js';
import { eventsList } from './events-list.js';
import { eventsClear, eventsPrune } from './events-prune.js';
import { eventsReplay } from './events-replay.js';
import { eventsShow } from './events-show.js';
import { eventsTail } from './events-tail.js';
import { topCommand } from './heads.js';

/** `paycli events` and its subcommands: the definition; each subcommand's handler is a module of its own (events-*.ts). */
const defineEvents: Define = (program, bind) => {
  const events = topCommand(program, 'events');
  examples(events, [
    'paycli events list',
    'paycli events show evt_lx2k9a',
    'paycli events replay evt_lx2k9a --to http://127.0.0.1:3000/callback',
    'paycli events prune --older-than 7d',
    'paycli events tail | jq .verdict',
  ]);
  bind(
    examples(
      storeFlag(
        events
          .command('list')
          .description('list the newest stored requests, oldest first')
          .option('--limit <n>', 'how many of the newest (default 50)')
          .option('--status <status>', 'only this callback status')
          .option('--valid', 'only valid ones')
          .option('--invalid', 'only invalid or malformed ones'),
      ),
      ['paycli events list', 'paycli events list --invalid --limit 20 --json'],
    ),
    eventsList,
  );
  bind(
    examples(storeFlag(events.command('show <id>').description('headers, body, canonical JSON and verdict of one request (id or unique prefix)')), [
      'paycli events show evt_lx2k9a',
      'paycli events show evt_lx2k --json',
    ]),
    eventsShow,
  );
  bind(
    examples(
      timeoutFlag(
        storeFlag(
          events
            .command('replay <id>')
            .description('send a stored request again, byte for byte')
            .option('--to <url>', 'where to send it')
            .option('--resign', 're-sign with the configured VA'),
        ),
      ),
      [
        'paycli events replay evt_lx2k9a --to http://127.0.0.1:3000/callback',
        'paycli events replay evt_lx2k9a --to http://127.0.0.1:3000/callback --resign --va 1179000899',
      ],
    ),
    eventsReplay,
  );
  bind(
    examples(storeFlag(events.command('clear').description('delete every stored event')), ['paycli events clear', 'paycli events clear --store ./events.db']),
    eventsClear,
  );
  bind(
    examples(
      storeFlag(
        events
          .command('prune')
          .description('drop old events: those older than --older-than, and all but the newest --keep')
          .option('--keep <n>', 'keep only the newest N events')
          .option('--older-than <duration>', 'drop events received longer ago than this (e.g. 7d, 12h)'),
      ),
      ['paycli events prune --older-than 7d', 'paycli events prune --keep 1000 --json'],
    ),
    eventsPrune,
  );
  bind(
    examples(
      storeFlag(
        events
          .command('export')
          .description('write stored requests as {headers, body} JSON lines (what verify-callback --jsonl reads)')
          .option('--since <when>', 'received at or after: a duration ago (7d), a day (2026-11-20, WIB) or a time')
          .option('--until <when>', 'received before (a day: up to its end)'),
      ),
      ['paycli events export > captures.jsonl && paycli verify-callback --jsonl captures.jsonl', 'paycli events export --since 2026-11-20 --until 2026-11-21'],
    ),
    eventsExport,
  );
  bind(
    examples(
      storeFlag(
        events
          .command('tail')
          .description('print each new stored request as a JSON line until Ctrl-C')
          .option('--limit <n>', 'print the newest N stored ones first (default 0)'),
      ),
      ['paycli events tail | jq -c "{id, trx_id, verdict}"', 'paycli events tail --limit 10'],
    ),
    eventsTail,
  );
};

export const commands = { events: defineEvents };
