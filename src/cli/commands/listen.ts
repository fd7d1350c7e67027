import { UsageError } from '../../core/errors.js';
import { parseBindHost, parseHttpUrl } from '../../core/http/serve.js';
import type { ListenerEvent } from '../../core/listener/server.js';
import { maskSecret } from '../../core/signing/request-signature.js';
import { escapeControl as esc } from '../../core/terminal-text.js';
import type { Handler } from '../command-env.js';
import { fitLine, rupiah, wib } from '../output.js';
import { callbackVa, diagnosisKeys, eventStore } from '../callback-shared.js';
import { parsePort } from '../flag-values.js';
import { collect, examples, RUN_DURATION_TIMEOUT, storeFlag, type Define } from '../command-kit.js';
import { topCommand } from './heads.js';

interface ListenFlags {
  port?: string;
  host?: string;
  path?: string;
  forwardTo?: string[];
  store?: string;
  maxBody?: string;
  exitAfter?: string;
  timeout?: string;
  persist?: boolean;
  ui?: boolean;
  fsync?: boolean;
}

/** Parses `1mb`, `512kb`, `2048` into bytes. */
export function parseSize(text: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*(b|kb|k|mb|m)?$/i.exec(text.trim());
  if (!m) throw new UsageError(`invalid size "${text}" (examples: 512kb, 1mb)`);
  const unit = (m[2] ?? 'b').toLowerCase();
  const bytes = Math.round(Number(m[1]) * (unit.startsWith('k') ? 1024 : unit.startsWith('m') ? 1024 * 1024 : 1));
  if (bytes < 1) throw new UsageError(`invalid size "${text}": it must be at least 1 byte`);
  return bytes;
}

/** A text with nothing JSON.stringify escapes: no `"`, `\\`, control character or surrogate (it escapes lone ones). */
const PLAIN_JSON_TEXT = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;

/** `JSON.stringify(text)` for a string: quoted as it is when nothing in it needs escaping. */
const jsonString = (text: string) => (PLAIN_JSON_TEXT.test(text) ? `"${text}"` : JSON.stringify(text));
const jsonOrNull = (v: string | null) => (v === null ? 'null' : jsonString(v));

/**
 * The `--json` line of one request: exactly `JSON.stringify` of
 * `{ id, receivedAt, trx_id, status, via, channel, amount, verdict, variant, reason, duplicate, answer, stored, forwards, ms }`,
 * written out field by field (one per request under load; the tests compare it with JSON.stringify).
 */
export function listenJsonLine(e: ListenerEvent): string {
  const ev = e.event;
  const s = e.summary;
  return (
    `{"id":${jsonString(ev.id)},"receivedAt":${jsonString(ev.receivedAt)},"trx_id":${jsonOrNull(ev.trx_id)},"status":${jsonOrNull(ev.status)},"via":${jsonOrNull(s.via)},"channel":${jsonOrNull(s.channel)},"amount":${jsonOrNull(s.amount)}` +
    `,"verdict":${jsonString(ev.verdict)},"variant":${jsonOrNull(ev.variant)},"reason":${jsonOrNull(ev.reason)},"duplicate":${ev.duplicate},"answer":${JSON.stringify(ev.answer)},"stored":${e.stored}` +
    `,"forwards":${e.forwards.length === 0 ? '[]' : JSON.stringify(e.forwards)},"ms":${JSON.stringify(e.ms)}}`
  );
}

/** `paycli listen`: a local callback receiver. */
export const listenCommand: Handler<ListenFlags> = async (env) => {
  const { opts, out, ctx } = env;
  const { startListener } = await import('../../core/listener/server.js');
  const { parseDuration } = await import('../../core/duration.js');
  const host = parseBindHost(opts.host ?? '127.0.0.1'); // a usage error before anything is opened
  const va = await callbackVa(env);
  const otherKeys = await diagnosisKeys(env);
  const maxBody = parseSize(opts.maxBody ?? '1mb');
  const exitAfter = opts.exitAfter === undefined ? undefined : Number(opts.exitAfter);
  if (exitAfter !== undefined && (!Number.isInteger(exitAfter) || exitAfter <= 0)) throw new UsageError(`invalid --exit-after "${opts.exitAfter}": a whole number above 0`);
  let stopAfterMs: number | undefined;
  if (opts.timeout !== undefined) {
    try {
      stopAfterMs = parseDuration(opts.timeout);
    } catch (err) {
      throw new UsageError(`invalid --timeout: ${(err as Error).message}`);
    }
  }
  const path = opts.path ?? '/';
  if (path !== '*' && !path.startsWith('/')) throw new UsageError(`invalid --path "${path}": it must start with /`);
  for (const url of opts.forwardTo ?? []) parseHttpUrl(url, '--forward-to');
  const store = opts.persist === false ? null : eventStore(env, { busyTimeoutMs: 0, fsync: opts.fsync === true });
  let ui: import('../../core/listener/ui.js').ListenerUi | undefined;
  if (opts.ui) {
    const { createListenerUi, UI_PREFIX } = await import('../../core/listener/ui.js');
    if (path !== '*' && (path === UI_PREFIX.slice(0, -1) || path.startsWith(UI_PREFIX))) throw new UsageError(`--path ${path} is where --ui serves its pages`, { hint: 'pick another --path' });
    ui = await createListenerUi({ store, va, otherKeys, callbackPath: path, forwardTo: opts.forwardTo, replayTimeoutMs: (await env.session.config()).timeout.value });
  }
  let stop: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  let count = 0;
  const listener = await startListener({
    port: parsePort(opts.port, 8080),
    host,
    path,
    va,
    otherKeys,
    store,
    maxBodyBytes: maxBody,
    forwardTo: opts.forwardTo,
    now: () => ctx.now(),
    ui,
    onEvent: (e) => {
      render(e);
      if (exitAfter !== undefined && ++count >= exitAfter) stop();
    },
    onForward: ({ id, result: f }) => {
      if (out.json) emit(JSON.stringify({ forward: id, url: f.url, status: f.status, ms: f.ms, ...(f.error ? { error: f.error } : {}) }));
      else emit(f.status === null ? out.c.red(`  ↳ ${id} → ${f.url} failed: ${esc(f.error ?? '')}`) : out.c.dim(`  ↳ ${id} → ${f.url} ${f.status} ${f.ms}ms`));
    },
    onStoreTrouble: (t) => {
      // Once per episode, not per request.
      if (out.json) ctx.stderr.write(JSON.stringify({ event: t.failing ? 'store-failing' : 'store-recovered', store: store?.path, ...t }) + '\n');
      else if (t.failing) ctx.stderr.write(`${out.e.red('cannot store requests')} in ${store?.path}: ${t.error}; answering 503 (the gateway retries) until it can\n`);
      else ctx.stderr.write(`${out.e.green('storing again')} in ${store?.path}; ${t.refused} request${t.refused === 1 ? ' was' : 's were'} answered 503 meanwhile\n`);
    },
  }).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'EADDRINUSE') throw new UsageError(`port ${opts.port ?? 8080} is already in use`, { hint: 'pick another --port (0 for any free port)' });
    throw err;
  });

  // Lines are written once per event-loop turn: the store answers a whole group write in one turn.
  let pending: string[] = [];
  const flushLines = () => {
    if (pending.length === 0) return;
    const text = pending.join('\n') + '\n';
    pending = [];
    ctx.stdout.write(text);
  };
  function emit(line: string): void {
    if (pending.push(line) === 1) setImmediate(flushLines);
  }

  function render(e: ListenerEvent): void {
    const ev = e.event;
    if (out.json) {
      emit(listenJsonLine(e));
      return;
    }
    const c = out.c;
    // Everything below but our own words comes from the sender: control characters are escaped.
    const reason = esc(ev.reason ?? '');
    const verdict =
      ev.verdict === 'valid' ? c.green('✓ valid') : ev.verdict === 'valid-variant' ? c.yellow(`✓ valid (${esc(ev.variant ?? '')}: ${reason})`) : ev.verdict === 'invalid' ? c.red(`✗ invalid: ${reason}`) : c.red(`✗ ${reason || 'malformed'}`);
    const parts = [
      c.dim(wib(ev.receivedAt, 'time')),
      ev.trx_id ? `trx ${esc(ev.trx_id)}` : esc(ev.method),
      esc(ev.status ?? ''),
      e.summary.via ? `${esc(e.summary.via)}/${esc(e.summary.channel ?? '')}` : '',
      e.summary.amount ? esc(rupiah(e.summary.amount)) : '',
      verdict,
      ev.duplicate ? c.cyan('duplicate') : '',
      ...e.forwards.map((f) => (f.status === null ? c.red(`→ ${f.url} failed: ${esc(f.error ?? '')}`) : `→ ${f.url} ${f.status} ${f.ms}ms`)),
      c.dim(`${ev.answer} ${e.ms}ms`),
    ].filter(Boolean);
    // The time, then the rest wrapped under it to the terminal's width.
    emit(fitLine(`${parts[0]}  `, parts.slice(1).join('  ')));
  }

  let uiUrl: string | null = null;
  if (ui) {
    const origin = new URL(listener.url);
    if (origin.hostname === '0.0.0.0' || origin.hostname === '[::]') origin.hostname = '127.0.0.1';
    uiUrl = `${origin.origin}${ui.prefix}`;
  }
  const banner = { event: 'listening', url: listener.url, va: maskSecret(va), store: store?.path ?? null, forwardTo: opts.forwardTo ?? [], ...(ui ? { ui: uiUrl } : {}) };
  if (out.json) ctx.stderr.write(JSON.stringify(banner) + '\n');
  else {
    ctx.stderr.write(
      [
        `${out.e.bold('paycli listen')} — receiving callbacks`,
        `  notifyUrl  ${listener.url}`,
        `  VA         ${maskSecret(va)} (the callback signing key)`,
        `  store      ${store?.path ?? 'off'}`,
        ...(opts.forwardTo ?? []).map((u) => `  forward    ${u}`),
        ...(uiUrl ? [`  dashboard  ${uiUrl} (loopback only)`] : []),
        `  The emulator (paycli sandbox) can call this URL directly;`,
        `  the real gateway needs a public URL (a tunnel).`,
        `  Times are WIB (Asia/Jakarta). Ctrl-C to stop`,
        '',
      ].join('\n'),
    );
  }
  const signal = ctx.interrupts();
  signal.addEventListener('abort', () => stop(), { once: true });
  if (signal.aborted) stop();
  const timer = stopAfterMs !== undefined ? setTimeout(() => stop(), stopAfterMs) : undefined;
  await stopped;
  if (timer) clearTimeout(timer);
  const summary = await listener.close();
  if (pending.length > 0) flushLines();
  if (out.json) ctx.stderr.write(JSON.stringify({ event: 'stopped', ...summary }) + '\n');
  else ctx.stderr.write(`\nstopped: ${summary.total} request${summary.total === 1 ? "" : "s"} — ${summary.valid} valid, ${summary['valid-variant']} valid with a variant, ${summary.invalid} invalid, ${summary.malformed} malformed, ${summary.duplicates} duplicates${summary.unstored ? `, ${summary.unstored} not stored (answered 503)` : ''}\n`);
  return signal.aborted && signal.reason === 'SIGINT' ? 130 : 0;
};

// ── Definition  ─────────────────────────────────────────────────────────────────────────────────

const defineListen: Define = (program, bind) => {
  const listen = storeFlag(
      topCommand(program, 'listen')
        .option('--port <port>', 'port (0 for any free port)', '8080')
        .option('--host <host>', 'address to bind', '127.0.0.1')
        .option('--path <path>', 'the path callbacks arrive on (* for any)', '/')
        .option('--forward-to <url>', 'pass the exact bytes and headers on to your app (repeatable); its answer is mirrored', collect)
        .option('--max-body <size>', 'largest body accepted', '1mb')
        .option('--exit-after <n>', 'stop after N requests')
        .option('--timeout <duration>', 'stop after this long (e.g. 30s, 5m)')
        .option('--no-persist', 'do not write the event store')
        .option('--fsync', 'sync each commit of the store to disk: acknowledged callbacks survive a power cut too (slower)')
        .option('--ui', 'serve a dashboard of the received callbacks at /_paycli/ (loopback only)'),
    );
  RUN_DURATION_TIMEOUT.add(listen);
  bind(examples(listen,
    ['paycli listen', 'paycli listen --port 8080 --forward-to http://127.0.0.1:3000/ipaymu/callback', 'paycli --env local listen --port 0 --json | jq .verdict', 'paycli listen --exit-after 1 --timeout 2m'],
  ), listenCommand);
};

export const commands = { listen: defineListen };
