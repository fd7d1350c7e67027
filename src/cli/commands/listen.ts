import { NetworkError, UsageError } from '../../core/errors.js';
import { parseBindHost, parseHttpUrl } from '../../core/http/serve.js';
import type { EventStore } from '../../core/listener/event-store.js';
import type { ListenerUi } from '../../core/listener/ui.js';
import type { CandidateKey } from '../../core/signing/variants.js';
import type { CommandEnv, Handler } from '../command-env.js';
import { callbackVa, diagnosisKeys } from '../callback-shared.js';
import { eventStore } from '../store-access.js';
import { parsePort } from '../flag-values.js';
import { collect, examples, RUN_DURATION_TIMEOUT, storeFlag, type Define } from '../command-kit.js';
import { listenerStatePath, removeListenerState, writeListenerState } from '../listener-state.js';
import { startTunnel, tunnelProgram, type Tunnel } from '../tunnel.js';
import { ListenPrinter, type ListenFlags } from './listen-output.js';
import { topCommand } from './heads.js';

export { listenJsonLine } from './listen-output.js';

/** Parses `1mb`, `512kb`, `2048` into bytes. */
export function parseSize(text: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*(b|kb|k|mb|m)?$/i.exec(text.trim());
  if (!m) throw new UsageError(`invalid size "${text}" (examples: 512kb, 1mb)`);
  const unit = (m[2] ?? 'b').toLowerCase();
  const bytes = Math.round(Number(m[1]) * (unit.startsWith('k') ? 1024 : unit.startsWith('m') ? 1024 * 1024 : 1));
  if (bytes < 1) throw new UsageError(`invalid size "${text}": it must be at least 1 byte`);
  return bytes;
}

/** The flags of `listen` checked before anything is opened (usage errors first). */
async function readListenFlags(opts: ListenFlags, pathEnv: string | undefined) {
  const { parseDuration } = await import('../../core/duration.js');
  const host = parseBindHost(opts.host ?? '127.0.0.1');
  const maxBody = parseSize(opts.maxBody ?? '1mb');
  const exitAfter = opts.exitAfter === undefined ? undefined : Number(opts.exitAfter);
  if (exitAfter !== undefined && (!Number.isInteger(exitAfter) || exitAfter <= 0))
    throw new UsageError(`invalid --exit-after "${opts.exitAfter}": a whole number above 0`);
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
  if (path.includes('#')) throw new UsageError(`invalid --path "${path}": a #fragment is never sent to a server`, { hint: 'leave out the # part' });
  for (const url of opts.forwardTo ?? []) parseHttpUrl(url, '--forward-to');
  // The tunnel's program must be installed (exit 2 with a hint otherwise), checked before anything starts.
  const tunnel = opts.tunnel !== undefined ? tunnelProgram(opts.tunnel, pathEnv) : undefined;
  // Through a tunnel every request comes from a loopback peer (the tunnel program): the dashboard would be public.
  if (tunnel && opts.ui)
    throw new UsageError('--ui cannot be used with --tunnel: through the tunnel anyone could read the dashboard', {
      hint: 'run `paycli events list` (or a second `paycli listen --ui` without a tunnel) to see what arrived',
    });
  return { host, maxBody, exitAfter, stopAfterMs, path, tunnel };
}

/** `--ui`: the dashboard's pages, served by the listener under its prefix. */
async function listenerUi(
  env: CommandEnv<ListenFlags>,
  store: EventStore | null,
  va: string,
  otherKeys: CandidateKey[],
  path: string,
): Promise<ListenerUi | undefined> {
  if (!env.opts.ui) return undefined;
  const { createListenerUi, UI_PREFIX } = await import('../../core/listener/ui.js');
  if (path !== '*' && (path === UI_PREFIX.slice(0, -1) || path.startsWith(UI_PREFIX)))
    throw new UsageError(`--path ${path} is where --ui serves its pages`, { hint: 'pick another --path' });
  return createListenerUi({
    store,
    va,
    otherKeys,
    callbackPath: path,
    forwardTo: env.opts.forwardTo,
    replayTimeoutMs: (await env.session.config()).timeout.value,
  });
}

/** The dashboard's address as a browser on this machine opens it (0.0.0.0 and :: become 127.0.0.1). */
function uiAddress(listenerUrl: string, ui: ListenerUi | undefined): string | null {
  if (!ui) return null;
  const origin = new URL(listenerUrl);
  if (origin.hostname === '0.0.0.0' || origin.hostname === '[::]') origin.hostname = '127.0.0.1';
  return `${origin.origin}${ui.prefix}`;
}

/**
 * `--tunnel`: the tunnel program started towards the listener, and the state file `pay --notify-url
 * auto` reads (0600). `lost()` says why the public URL went away when the program died by itself.
 */
async function openTunnel(
  env: CommandEnv<ListenFlags>,
  listener: { url: string; close(): Promise<unknown> },
  flags: Awaited<ReturnType<typeof readListenFlags>>,
  va: string,
  stop: () => void,
) {
  const { ctx, out } = env;
  let tunnel: Tunnel | undefined;
  if (flags.tunnel) {
    const local = new URL(listener.url);
    if (local.hostname === '0.0.0.0' || local.hostname === '[::]') local.hostname = '127.0.0.1';
    try {
      tunnel = await startTunnel({ ...flags.tunnel, localUrl: local.origin, env: ctx.env, secrets: [va, ctx.env.PAYCLI_API_KEY] });
    } catch (err) {
      await listener.close();
      throw err;
    }
  }
  const stateFile = listenerStatePath(ctx.env, ctx.homedir);
  await writeListenerState(stateFile, {
    pid: process.pid,
    url: listener.url,
    publicUrl: tunnel?.publicUrl ?? null,
    tunnel: tunnel?.kind ?? null,
    path: flags.path,
    startedAt: ctx.now().toISOString(),
  }).catch((err: Error) => out.warn(`cannot write ${stateFile} (pay --notify-url auto will not find this listener): ${err.message}`));
  let lost: string | undefined;
  let closing = false;
  void tunnel?.exited.then(({ code, signal }) => {
    if (closing) return;
    lost = `${tunnel!.kind} exited (${signal ?? `code ${code}`}): the public URL is gone`;
    stop();
  });
  return {
    shown: tunnel ? { kind: tunnel.kind, publicUrl: tunnel.publicUrl + (flags.path === '*' ? '/' : flags.path) } : undefined,
    lost: () => lost,
    async close() {
      closing = true;
      await tunnel?.stop();
      await removeListenerState(stateFile, process.pid, listener.url);
    },
  };
}

/** `paycli listen`: a local callback receiver. */
export const listenCommand: Handler<ListenFlags> = async (env) => {
  const { opts, ctx } = env;
  const { startListener } = await import('../../core/listener/server.js');
  const flags = await readListenFlags(opts, ctx.env.PATH); // usage errors before anything is opened
  const va = await callbackVa(env);
  const otherKeys = await diagnosisKeys(env);
  const store = opts.persist === false ? null : eventStore(env, { busyTimeoutMs: 0, fsync: opts.fsync === true });
  const ui = await listenerUi(env, store, va, otherKeys, flags.path);
  const print = new ListenPrinter(env, store?.path);
  if (store) print.flushWhenIdle(store);
  let stop: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  let count = 0;
  const listener = await startListener({
    port: parsePort(opts.port, 8080),
    host: flags.host,
    path: flags.path,
    va,
    otherKeys,
    store,
    maxBodyBytes: flags.maxBody,
    forwardTo: opts.forwardTo,
    now: () => ctx.now(),
    ui,
    onEvent: (e) => {
      print.request(e);
      if (flags.exitAfter !== undefined && ++count >= flags.exitAfter) stop();
    },
    onForward: ({ id, result }) => print.forward(id, result),
    onStoreTrouble: (t) => print.storeTrouble(t),
  }).catch(async (err: NodeJS.ErrnoException) => {
    await store?.close().catch(() => undefined); // nothing will be stored: the database is let go now
    if (err.code === 'EADDRINUSE') throw new UsageError(`port ${opts.port ?? 8080} is already in use`, { hint: 'pick another --port (0 for any free port)' });
    throw err;
  });
  const tunnel = await openTunnel(env, listener, flags, va, stop);
  print.banner(listener.url, va, uiAddress(listener.url, ui), tunnel.shown);
  const signal = ctx.interrupts();
  signal.addEventListener('abort', () => stop(), { once: true });
  if (signal.aborted) stop();
  const timer = flags.stopAfterMs !== undefined ? setTimeout(() => stop(), flags.stopAfterMs) : undefined;
  await stopped;
  if (timer) clearTimeout(timer);
  await tunnel.close();
  print.stopped(await listener.close());
  const lost = tunnel.lost();
  if (lost) return env.out.fail(new NetworkError(lost, { hint: 'start `paycli listen --tunnel …` again; the gateway retries callbacks it could not deliver' }));
  return signal.aborted && signal.reason === 'SIGINT' ? 'interrupted' : 'ok';
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
      .option('--ui', 'serve a dashboard of the received callbacks at /_paycli/ (loopback only)')
      .option('--tunnel <program>', 'a public HTTPS URL through cloudflared or ngrok, if installed (never downloaded); stopped with the listener'),
  );
  RUN_DURATION_TIMEOUT.add(listen);
  bind(
    examples(listen, [
      'paycli listen',
      'paycli listen --port 8080 --forward-to http://127.0.0.1:3000/ipaymu/callback',
      'paycli --env local listen --port 0 --json | jq .verdict',
      'paycli listen --exit-after 1 --timeout 2m',
      'paycli listen --tunnel cloudflared',
    ]),
    listenCommand,
  );
};

export const commands = { listen: defineListen };
