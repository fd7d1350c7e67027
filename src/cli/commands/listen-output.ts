import type { ForwardResult, ListenerEvent, ListenerSummary, StoreTrouble } from '../../core/listener/server.js';
import { maskSecret } from '../../core/signing/request-signature.js';
import { escapeControl as esc } from '../../core/terminal-text.js';
import type { CommandEnv } from '../command-env.js';
import { rupiah, wib } from '../output.js';

/** The flags of `paycli listen`. */
export interface ListenFlags {
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
  tunnel?: string;
}

/** What JSON.stringify escapes in a string: `"`, `\\`, control characters, and any surrogate (a lone one is escaped; a pair is left to it). */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;
/** JSON.stringify(text), without its call for text it would leave as it is (a line per request under load). */
const jsonString = (text: string) => (NEEDS_ESCAPE.test(text) ? JSON.stringify(text) : `"${text}"`);
/** A sender's text for the human line, at most `max` characters. */
const clip = (text: string, max = 40) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
const jsonOrNull = (v: string | null) => (v === null ? 'null' : jsonString(v));

/**
 * The `--json` line of one request: exactly `JSON.stringify` of
 * `{ id, receivedAt, trx_id, status, via, channel, amount, verdict, variant, reason, duplicate, answer, stored, forwards, ms }`,
 * written out field by field, in one template (one per request under load: half the time of a
 * JSON.stringify per string; the tests compare it with JSON.stringify).
 */
export function listenJsonLine(e: ListenerEvent): string {
  const ev = e.event;
  const s = e.summary;
  const forwards = e.forwards.length === 0 ? '[]' : JSON.stringify(e.forwards);
  const ms = Number.isFinite(e.ms) ? e.ms : null;
  return `{"id":${jsonString(ev.id)},"receivedAt":${jsonString(ev.receivedAt)},"trx_id":${jsonOrNull(ev.trx_id)},"status":${jsonOrNull(ev.status)},"via":${jsonOrNull(s.via)},"channel":${jsonOrNull(s.channel)},"amount":${jsonOrNull(s.amount)},"verdict":${jsonString(ev.verdict)},"variant":${jsonOrNull(ev.variant)},"reason":${jsonOrNull(ev.reason)},"duplicate":${ev.duplicate},"answer":${ev.answer},"stored":${e.stored},"forwards":${forwards},"ms":${ms}}`;
}

/** How long a line may wait for the listener's thread to be idle before it is written anyway (ms). */
const LINE_WAIT_MS = 10;

/**
 * What `listen` prints: a line per request on stdout, notices on stderr. Lines are written together:
 * once per event-loop turn, or, with a store that says when the listener's thread waits for its
 * commits (`whenIdle`), then (or after LINE_WAIT_MS at the latest), so that under load the lines are
 * made and written while the thread has nothing else to do, not between requests. Request lines are
 * kept as their events until then; other lines as text, in order.
 */
export class ListenPrinter {
  private pending: (string | ListenerEvent)[] = [];
  private wait: NodeJS.Timeout | undefined;
  private idleSource = false;
  constructor(
    private readonly env: CommandEnv<ListenFlags>,
    private readonly storePath: string | undefined,
  ) {}

  /** Writes the pending lines when `source` says the thread is idle (call once, before the first request). */
  flushWhenIdle(source: { whenIdle?: () => void }): void {
    this.idleSource = true;
    source.whenIdle = () => this.flush();
  }

  emit(line: string | ListenerEvent): void {
    if (this.pending.push(line) !== 1) return;
    if (this.idleSource) this.wait = setTimeout(() => this.flush(), LINE_WAIT_MS);
    else setImmediate(() => this.flush());
  }

  flush(): void {
    if (this.pending.length === 0) return;
    clearTimeout(this.wait);
    const batch = this.pending;
    this.pending = [];
    const lines = batch.map((l) => (typeof l === 'string' ? l : this.requestLine(l)));
    // The trailing newline comes from the join: the text is made once, not copied again.
    lines.push('');
    this.env.ctx.stdout.write(lines.join('\n'));
  }

  request(e: ListenerEvent): void {
    this.emit(e);
  }

  /** The line of one request: `--json`'s, or the human one. */
  private requestLine(e: ListenerEvent): string {
    const { out } = this.env;
    const ev = e.event;
    if (out.json) return listenJsonLine(e);
    const c = out.c;
    // Everything below but our own words comes from the sender: control characters escaped, and cut
    // short (a forged request's 500 000-digit trx_id would otherwise be one line of that length).
    const reason = clip(esc(ev.reason ?? ''), 160);
    const verdict =
      ev.verdict === 'valid'
        ? c.green('✓ valid')
        : ev.verdict === 'valid-variant'
          ? c.yellow(`✓ valid (${clip(esc(ev.variant ?? ''))}: ${reason})`)
          : ev.verdict === 'invalid'
            ? c.red(`✗ invalid: ${reason}`)
            : c.red(`✗ ${reason || 'malformed'}`);
    const parts = [
      c.dim(wib(ev.receivedAt, 'time')),
      ev.trx_id ? `trx ${clip(esc(ev.trx_id))}` : clip(esc(ev.method)),
      clip(esc(ev.status ?? '')),
      e.summary.via ? `${clip(esc(e.summary.via))}/${clip(esc(e.summary.channel ?? ''))}` : '',
      e.summary.amount ? clip(esc(rupiah(e.summary.amount))) : '',
      verdict,
      ev.duplicate ? c.cyan('duplicate') : '',
      ...e.forwards.map((f) => (f.status === null ? c.red(`→ ${f.url} failed: ${esc(f.error ?? '')}`) : `→ ${f.url} ${f.status} ${f.ms}ms`)),
      c.dim(`${ev.answer} ${e.ms}ms`),
    ].filter(Boolean);
    // The time, then the rest wrapped under it to the terminal's width.
    return out.fitLine(`${parts[0]}  `, parts.slice(1).join('  '));
  }

  forward(id: string, f: ForwardResult): void {
    const { out } = this.env;
    if (out.json) this.emit(JSON.stringify({ forward: id, url: f.url, status: f.status, ms: f.ms, ...(f.error ? { error: f.error } : {}) }));
    else
      this.emit(f.status === null ? out.c.red(`  ↳ ${id} → ${f.url} failed: ${esc(f.error ?? '')}`) : out.c.dim(`  ↳ ${id} → ${f.url} ${f.status} ${f.ms}ms`));
  }

  /** Once per episode, not per request. */
  storeTrouble(t: StoreTrouble): void {
    const { out, ctx } = this.env;
    if (out.json) ctx.stderr.write(JSON.stringify({ event: t.failing ? 'store-failing' : 'store-recovered', store: this.storePath, ...t }) + '\n');
    else if (t.failing)
      ctx.stderr.write(`${out.e.red('cannot store requests')} in ${this.storePath}: ${t.error}; answering 503 (the gateway retries) until it can\n`);
    else
      ctx.stderr.write(
        `${out.e.green('storing again')} in ${this.storePath}; ${t.refused} request${t.refused === 1 ? ' was' : 's were'} answered 503 meanwhile\n`,
      );
  }

  banner(url: string, va: string, uiUrl: string | null, tunnel?: { kind: string; publicUrl: string }): void {
    const { out, ctx, opts } = this.env;
    const banner = {
      event: 'listening',
      url,
      ...(tunnel ? { publicUrl: tunnel.publicUrl, tunnel: tunnel.kind } : {}),
      va: maskSecret(va),
      store: this.storePath ?? null,
      forwardTo: opts.forwardTo ?? [],
      ...(uiUrl !== null ? { ui: uiUrl } : {}),
    };
    if (out.json) {
      ctx.stderr.write(JSON.stringify(banner) + '\n');
      return;
    }
    ctx.stderr.write(
      [
        `${out.e.bold('paycli listen')} — receiving callbacks`,
        `  notifyUrl  ${tunnel?.publicUrl ?? url}`,
        ...(tunnel ? [`  tunnel     ${tunnel.kind} → ${url}  (paycli pay --notify-url auto uses it)`] : []),
        `  VA         ${maskSecret(va)} (the callback signing key)`,
        `  store      ${this.storePath ?? 'off'}`,
        ...(opts.forwardTo ?? []).map((u) => `  forward    ${u}`),
        ...(uiUrl ? [`  dashboard  ${uiUrl} (loopback only)`] : []),
        ...(tunnel
          ? [`  Give the gateway the notifyUrl above; callbacks arrive here unchanged.`]
          : [`  The emulator (paycli sandbox) can call this URL directly;`, `  the real gateway needs a public URL: --tunnel cloudflared (or ngrok).`]),
        `  Times are WIB (Asia/Jakarta). Ctrl-C to stop`,
        '',
      ].join('\n'),
    );
  }

  stopped(summary: ListenerSummary): void {
    const { out, ctx } = this.env;
    this.flush();
    if (out.json) ctx.stderr.write(JSON.stringify({ event: 'stopped', ...summary }) + '\n');
    else
      ctx.stderr.write(
        `\nstopped: ${summary.total} request${summary.total === 1 ? '' : 's'} — ${summary.valid} valid, ${summary['valid-variant']} valid with a variant, ${summary.invalid} invalid, ${summary.malformed} malformed, ${summary.duplicates} duplicates${summary.unstored ? `, ${summary.unstored} not stored (answered 503)` : ''}\n`,
      );
  }
}
