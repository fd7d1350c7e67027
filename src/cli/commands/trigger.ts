import { NetworkError, GatewayError, UsageError } from '../../core/errors.js';
import { parseRupiah } from '../../core/money.js';
import { externalId, signCallbackRequest } from '../../core/callback/build.js';
import { CALLBACK_FIELD_NAMES, sampleCallbackFields } from '../../core/callback/sample.js';
import { EventIds } from '../../core/listener/event-id.js';
import type { StoredEvent } from '../../core/listener/stored-event.js';
import { describeSendError, sendRaw } from '../../core/http/raw-post.js';
import { parseHttpUrl } from '../../core/http/serve.js';
import { METHOD_NAMES } from '../../core/payment-rules.js';
import { escapeControl } from '../../core/terminal-text.js';
import type { CommandEnv, Handler } from '../command-env.js';
import { callbackVa, checkCallbackFlags } from '../callback-shared.js';
import { eventStore, withStore } from '../store-access.js';
import { Option, collect, examples, storeFlag, type Define } from '../command-kit.js';
import { topCommand } from './heads.js';
import { adminCall } from '../sandbox-admin.js';

interface TriggerFlags {
  to?: string;
  trx?: string;
  sandboxUrl?: string;
  status?: string;
  method?: string;
  channel?: string;
  format?: string;
  set?: string[];
  repeat?: string;
  amount?: string;
  store?: string;
  persist?: boolean;
  settlement?: 'immediate' | 'deferred';
}

/**
 * What to send and where: the callback of an emulator transaction (--trx, signed with its merchant's
 * VA unless --va says otherwise), or a sample one for --to; then the --set overrides.
 */
async function callbackToSend(
  env: CommandEnv<TriggerFlags>,
  sample: ReturnType<typeof checkCallbackFlags> & { amount: number | undefined },
): Promise<{ to: string; va: string; fields: Record<string, string> }> {
  const { opts, ctx } = env;
  const { status, method, channel, amount } = sample;
  let to: string;
  let va: string;
  let fields: Record<string, string>;
  if (opts.trx !== undefined) {
    // The callback of a real transaction: built by the emulator from its record, signed with its merchant's VA.
    if (!/^\d{1,20}$/.test(opts.trx)) throw new UsageError(`invalid --trx "${opts.trx}": a transaction id or payment number`);
    const query = opts.status === undefined ? '' : `?status=${encodeURIComponent(opts.status)}`;
    const { status: http, json } = await adminCall(env, 'GET', `/_sandbox/transactions/${opts.trx}/callback${query}`);
    if (http === 404) throw new UsageError(String(json.error), { hint: 'list them with `paycli sandbox list`' });
    if (http !== 200) throw new GatewayError(http, String(json.error ?? `the emulator answered ${http}`));
    fields = json.fields as Record<string, string>;
    va = opts.va !== undefined ? await callbackVa(env) : String(json.va);
    to = opts.to ?? fields.url!;
    parseHttpUrl(to, "the transaction's notify URL");
  } else {
    to = opts.to!;
    va = await callbackVa(env);
    fields = sampleCallbackFields({ status, method, channel, now: ctx.now(), url: to, amount, settlement: opts.settlement });
  }
  for (const assignment of opts.set ?? []) {
    const eq = assignment.indexOf('=');
    if (eq <= 0) throw new UsageError(`invalid --set "${assignment}": use FIELD=VALUE`);
    const field = assignment.slice(0, eq);
    if (!CALLBACK_FIELD_NAMES.includes(field))
      throw new UsageError(`--set ${field}: not a callback field`, { hint: `fields: ${CALLBACK_FIELD_NAMES.join(', ')}` });
    fields[field] = assignment.slice(eq + 1);
  }
  return { to, va, fields };
}

/** `paycli trigger`: sends one realistic, correctly signed callback as the gateway would. */
export const triggerCommand: Handler<TriggerFlags> = async (env) => {
  const { opts, out, ctx } = env;
  if (opts.to === undefined && opts.trx === undefined) throw new UsageError('trigger needs --to URL (or --trx ID: a transaction of the running emulator)');
  if (opts.to !== undefined) parseHttpUrl(opts.to, '--to');
  const { status, method, channel } = checkCallbackFlags(opts);
  const format = opts.format ?? 'form';
  if (format !== 'form' && format !== 'json') throw new UsageError(`invalid --format "${format}": form or json`);
  const repeat = opts.repeat === undefined ? 1 : Number(opts.repeat);
  if (!Number.isInteger(repeat) || repeat < 1 || repeat > 10_000) throw new UsageError(`invalid --repeat "${opts.repeat}": 1 to 10000`);
  const amount = opts.amount === undefined ? undefined : parseRupiah(opts.amount, '--amount');
  const { to, va, fields } = await callbackToSend(env, { status, method, channel, amount });
  const store = opts.persist === false ? null : eventStore(env);
  const ids = new EventIds();
  let failures = 0;
  const results: Record<string, unknown>[] = [];
  try {
    // A store that cannot be used (not an event store, a symlink, locked) is refused before anything is sent.
    if (store) await withStore(() => store.prepare());
    for (let i = 1; i <= repeat; i++) {
      const now = ctx.now();
      const signed = signCallbackRequest(fields, va, format, now, externalId(now, i));
      let res;
      try {
        res = await sendRaw(to, { headers: signed.headers, body: signed.body, timeoutMs: (await env.session.config()).timeout.value });
      } catch (err) {
        throw new NetworkError(`POST ${to} failed: ${describeSendError(err)}`, {
          hint: 'is your callback handler (or `paycli listen`) running on that address?',
        });
      }
      if (res.status !== 200) failures++;
      const result = {
        attempt: i,
        url: to,
        trx_id: fields.trx_id,
        status: fields.status,
        signature: signed.signature,
        answer: res.status,
        ms: res.ms,
        body: res.body,
      };
      results.push(result);
      if (!out.json) {
        const st = res.status === 200 ? out.c.green(String(res.status)) : out.c.red(String(res.status));
        // Wrapped to the terminal's width; the handler's answer is the sender's text: control characters escaped.
        out.out(
          out.fitLine(
            '→ ',
            `POST ${to}  trx ${fields.trx_id} ${fields.status} ${fields.via}/${fields.channel} (${format})  ${st} ${res.ms}ms  ${escapeControl(res.body.trim().slice(0, 200))}`,
          ),
        );
      }
      const record: StoredEvent = {
        id: ids.next(now),
        receivedAt: now.toISOString(),
        method: 'POST',
        path: new URL(to).pathname,
        headers: Object.fromEntries(Object.entries(signed.headers).map(([k, v]) => [k.toLowerCase(), v])),
        body: signed.body,
        verdict: 'valid',
        variant: null,
        reason: null,
        duplicate: i > 1,
        trx_id: fields.trx_id ?? null,
        status: fields.status ?? null,
        answer: res.status,
        source: 'trigger',
      };
      // Delivered (and shown) first: a store that fails now says so, and that the callback went out.
      if (store) {
        await withStore(() => store.append(record), `the callback was delivered (HTTP ${res.status})`, result);
      }
    }
  } finally {
    await store?.close();
  }
  if (failures > 0) {
    throw new GatewayError(
      results.at(-1)!.answer as number,
      `the handler answered ${failures === repeat ? '' : `${failures} of ${repeat} times `}non-200 (HTTP ${results.find((r) => r.answer !== 200)!.answer}); the gateway would retry`,
      {
        hint: 'check the handler with `paycli test-handler URL`',
        details: repeat === 1 ? results[0] : results,
      },
    );
  }
  if (out.json) out.data(repeat === 1 ? results[0] : results);
  return 'ok';
};

// ── Definition ──────────────────────────────────────────────────────────────────────────────────

const defineTrigger: Define = (program, bind) => {
  bind(
    examples(
      storeFlag(
        topCommand(program, 'trigger')
          .option('--to <url>', "your callback handler (with --trx: default the transaction's notify URL)")
          .option('--trx <id>', 'the callback of this transaction of the running emulator, from its record')
          .option('--sandbox-url <url>', 'with --trx: the running emulator (PAYCLI_SANDBOX_URL)')
          .option(
            '--status <status>',
            "callback status: berhasil, pending, expired, batal, refund, error, gagal, unsettled, escrow (default berhasil; with --trx the transaction's own)",
          )
          .addOption(new Option('--method <method>', 'payment method').choices(METHOD_NAMES as string[]).default('va'))
          .option('--channel <channel>', 'payment channel (default: bca for va, else the first of the method)')
          .addOption(new Option('--format <format>', 'body format').choices(['form', 'json']).default('form'))
          .option('--amount <rp>', 'transaction amount (default 102000)')
          .option('--set <field=value>', 'override a callback field (repeatable)', collect)
          .option('--repeat <n>', 'send the same callback N times (duplicates)', '1')
          .addOption(
            new Option('--settlement <mode>', 'for berhasil: settled (code 1) or deferred (unsettle, code 6)')
              .choices(['immediate', 'deferred'])
              .default('immediate'),
          )
          .option('--timeout <duration>', 'how long to wait for the answer: 10s, 500ms (default 30s; PAYCLI_TIMEOUT)')
          .option('--no-persist', 'do not write the event store'),
      ),
      [
        'paycli --env local trigger --to http://127.0.0.1:3000/callback',
        'paycli trigger --trx 100001 --status refund',
        'paycli trigger --to http://127.0.0.1:8080/ --status expired --method qris --format json --va 1179000899',
        'paycli trigger --to http://127.0.0.1:3000/cb --set buyer_name="Nyoman Ö" --repeat 3',
      ],
    ),
    triggerCommand,
  );
};

export const commands = { trigger: defineTrigger };
