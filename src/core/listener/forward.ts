import { describeSendError, sendRaw } from '../http/raw-post.js';

/** Where a valid callback was forwarded, and what came of it (`status` null: no answer). */
export interface ForwardResult {
  url: string;
  status: number | null;
  ms: number | null;
  error?: string;
}

/**
 * Hop-by-hop header fields (RFC 9110 §7.6.1): they describe one connection, not the message, and a
 * forwarder must not pass them on. Besides the fixed list, every field that `Connection` names is
 * hop-by-hop for that message. Content-Length is recomputed by the sender; Host is the target's.
 */
const HOP_BY_HOP = new Set([
  'connection',
  'proxy-connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'content-length',
]);

/** The headers (lower-cased names) a forwarder may pass on: hop-by-hop fields and the ones `Connection` names removed. */
export function forwardableHeaders(headers: Record<string, string>): Record<string, string> {
  const named = new Set<string>();
  for (const [k, v] of Object.entries(headers)) {
    if (k.toLowerCase() !== 'connection' && k.toLowerCase() !== 'proxy-connection') continue;
    for (const token of v.split(',')) {
      const t = token.trim().toLowerCase();
      if (t) named.add(t);
    }
  }
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) {
    const name = k.toLowerCase();
    if (!HOP_BY_HOP.has(name) && !named.has(name)) out[k] = v;
  }
  return out;
}

export type ForwardAnswer = ForwardResult & { body?: Buffer; contentType?: string };

/** The result of one forward as the listener reports it (without the target's answer). */
export function forwardResult(r: ForwardAnswer): ForwardResult {
  return { url: r.url, status: r.status, ms: r.ms, ...(r.error ? { error: r.error } : {}) };
}

/**
 * Forwards a valid callback's exact bytes to the merchant's app (`--forward-to`): the first target's
 * answer is the listener's; the others are fire-and-forget, each with its own time limit, their
 * results told to `onForward` once known. It holds those pending until `drain`.
 */
export class Forwarder {
  private readonly secondaries = new Set<Promise<void>>();

  constructor(
    readonly targets: string[],
    private readonly timeoutMs: number,
    private readonly onForward?: (e: { id: string; result: ForwardResult }) => void,
  ) {}

  /** Sends `body` to every target; resolves with the first target's result and answer. */
  send(id: string, headers: Record<string, string>, body: Buffer): Promise<ForwardAnswer> {
    const out = forwardableHeaders(headers);
    for (const url of this.targets.slice(1)) {
      const p = this.post(url, out, body)
        .then((result) => this.onForward?.({ id, result: forwardResult(result) }))
        .catch(() => undefined);
      this.secondaries.add(p);
      void p.finally(() => this.secondaries.delete(p));
    }
    return this.post(this.targets[0]!, out, body);
  }

  /** Forwards to other targets get a moment to finish; each has its own timeout anyway. */
  async drain(): Promise<void> {
    if (this.secondaries.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.allSettled([...this.secondaries]), new Promise((r) => (timer = setTimeout(r, 1000)))]);
    clearTimeout(timer);
  }

  private post(url: string, headers: Record<string, string>, body: Buffer): Promise<ForwardAnswer> {
    return sendRaw(url, { method: 'POST', headers, body, timeoutMs: this.timeoutMs }).then(
      (r) => ({ url, status: r.status, ms: r.ms, body: r.bytes, contentType: r.headers['content-type'] }),
      (err: unknown) => ({ url, status: null, ms: null, error: describeSendError(err) }),
    );
  }
}
