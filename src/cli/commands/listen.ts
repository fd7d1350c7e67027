import { UsageError } from '../../core/errors.js';
import { parseHttpUrl } from '../../core/http/serve.js';
import type { ListenerEvent } from '../../core/listener/server.js';
import { maskSecret } from '../../core/signing/request-signature.js';
import type { Handler } from '../command-env.js';
import { rupiah } from '../output.js';
import { callbackVa, diagnosisKeys, eventStore } from './callback-shared.js';
import { parsePort } from './sandbox.js';

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

/** `paycli listen`: a local callback receiver. */
export const listenCommand: Handler<ListenFlags> = async (env) => {
  const { opts, out, ctx } = env;
  const { startListener } = await import('../../core/listener/server.js');
  const { parseDuration } = await import('../../core/sandbox/outbox.js');
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
  const store = opts.persist === false ? null : eventStore(env);
  let stop: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  let count = 0;
  const listener = await startListener({
    port: parsePort(opts.port, 8080),
    host: opts.host ?? '127.0.0.1',
    path,
    va,
    otherKeys,
    store,
    maxBodyBytes: maxBody,
    forwardTo: opts.forwardTo,
    now: () => ctx.now(),
    onEvent: (e) => {
      render(e);
      if (exitAfter !== undefined && ++count >= exitAfter) stop();
    },
  }).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'EADDRINUSE') throw new UsageError(`port ${opts.port ?? 8080} is already in use`, { hint: 'pick another --port (0 for any free port)' });
    throw err;
  });

  function render(e: ListenerEvent): void {
    const ev = e.event;
    if (out.json) {
      out.data({ id: ev.id, receivedAt: ev.receivedAt, trx_id: ev.trx_id, status: ev.status, via: e.summary.via, channel: e.summary.channel, amount: e.summary.amount, verdict: ev.verdict, variant: ev.variant, reason: ev.reason, duplicate: ev.duplicate, answer: ev.answer, forwards: e.forwards, ms: e.ms }, false);
      return;
    }
    const c = out.c;
    const verdict =
      ev.verdict === 'valid' ? c.green('✓ valid') : ev.verdict === 'valid-variant' ? c.yellow(`✓ valid (${ev.variant}: ${ev.reason})`) : ev.verdict === 'invalid' ? c.red(`✗ invalid: ${ev.reason}`) : c.red(`✗ ${ev.reason ?? 'malformed'}`);
    const parts = [
      c.dim(new Date(ev.receivedAt).toTimeString().slice(0, 8)),
      ev.trx_id ? `trx ${ev.trx_id}` : ev.method,
      ev.status ?? '',
      e.summary.via ? `${e.summary.via}/${e.summary.channel ?? ''}` : '',
      e.summary.amount ? rupiah(e.summary.amount) : '',
      verdict,
      ev.duplicate ? c.cyan('duplicate') : '',
      ...e.forwards.map((f) => (f.status === null ? c.red(`→ ${f.url} failed: ${f.error}`) : `→ ${f.url} ${f.status} ${f.ms}ms`)),
      c.dim(`${ev.answer} ${e.ms}ms`),
    ].filter(Boolean);
    out.out(parts.join('  '));
  }

  const banner = { event: 'listening', url: listener.url, va: maskSecret(va), store: store?.path ?? null, forwardTo: opts.forwardTo ?? [] };
  if (out.json) ctx.stderr.write(JSON.stringify(banner) + '\n');
  else {
    ctx.stderr.write(
      [
        `${out.e.bold('paycli listen')} — receiving callbacks`,
        `  notifyUrl  ${listener.url}`,
        `  VA         ${maskSecret(va)} (the callback signing key)`,
        `  store      ${store?.path ?? 'off'}`,
        ...(opts.forwardTo ?? []).map((u) => `  forward    ${u}`),
        `  The emulator (paycli sandbox) can call this URL directly; the real gateway needs a public URL (a tunnel).`,
        `  Ctrl-C to stop`,
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
  if (out.json) ctx.stderr.write(JSON.stringify({ event: 'stopped', ...summary }) + '\n');
  else ctx.stderr.write(`\nstopped: ${summary.total} request${summary.total === 1 ? "" : "s"} — ${summary.valid} valid, ${summary['valid-variant']} valid with a variant, ${summary.invalid} invalid, ${summary.malformed} malformed, ${summary.duplicates} duplicates\n`);
  return signal.aborted && signal.reason === 'SIGINT' ? 130 : 0;
};
