import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { createInterface } from 'node:readline';
import { NetworkError, UsageError } from '../core/errors.js';
import { escapeControl } from '../core/terminal-text.js';
import { childEnv } from './child-env.js';

/**
 * `paycli listen --tunnel`: a public HTTPS URL for the local listener, made by a tunnel program the
 * user installed (paycli never downloads one). Each program says its URL its own way:
 * - cloudflared (`cloudflared tunnel --url http://127.0.0.1:PORT`, a quick tunnel) prints a
 *   `https://….trycloudflare.com` URL in its log on stderr;
 * - ngrok (`ngrok http URL --log stdout --log-format json`) logs JSON lines, among them the address
 *   of its local API ("starting web service") and the tunnel ("started tunnel"); the URL is read
 *   from that API, `GET http://127.0.0.1:4040/api/tunnels`, as ngrok documents it.
 * Both pass the request through as sent (method, path, headers, body), so the listener checks the
 * gateway's exact bytes.
 */
export const TUNNELS = ['cloudflared', 'ngrok'] as const;
export type TunnelKind = (typeof TUNNELS)[number];

const INSTALL: Record<TunnelKind, string> = {
  cloudflared:
    'install cloudflared (https://developers.cloudflare.com/cloudflare-one/connections/connect-networks/downloads/; brew install cloudflared) and put it on PATH; quick tunnels need no account',
  ngrok: 'install ngrok (https://ngrok.com/download; brew install ngrok) and run `ngrok config add-authtoken TOKEN` once',
};

export interface Tunnel {
  kind: TunnelKind;
  /** The public base URL, https://…, without a trailing slash. */
  publicUrl: string;
  /** Resolves when the program exits (by itself or after stop). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Ends the program (SIGTERM, then SIGKILL after 5 s) and waits for it. */
  stop: () => Promise<void>;
}

/** The program's path on PATH, or undefined. */
export function findProgram(name: string, pathVar: string | undefined): string | undefined {
  for (const dir of (pathVar ?? '').split(delimiter)) {
    if (!dir) continue;
    const file = join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** Checks a `--tunnel` value and that its program is installed: a usage error (exit 2) with an install hint otherwise. */
export function tunnelProgram(kind: string, pathVar: string | undefined): { kind: TunnelKind; file: string } {
  if (!(TUNNELS as readonly string[]).includes(kind)) throw new UsageError(`invalid --tunnel "${kind}": cloudflared or ngrok`);
  const file = findProgram(kind, pathVar);
  if (!file) throw new UsageError(`${kind} is not installed (not found on PATH); paycli never downloads it`, { hint: INSTALL[kind as TunnelKind] });
  return { kind: kind as TunnelKind, file };
}

/** A quick tunnel's hostname (one label under trycloudflare.com); not its API (api.trycloudflare.com, named in its errors). */
const TRYCLOUDFLARE = /https:\/\/(?!api\.)[a-z0-9-]+\.trycloudflare\.com\b/i;

/**
 * Starts the tunnel program towards `localUrl` and resolves once it has told its public URL; a
 * network error (exit 5) when it exits first or says nothing within `timeoutMs`, with its last line.
 */
export async function startTunnel(o: {
  kind: TunnelKind;
  file: string;
  localUrl: string;
  env: Record<string, string | undefined>;
  secrets: (string | undefined)[];
  timeoutMs?: number;
}): Promise<Tunnel> {
  const args = o.kind === 'cloudflared' ? ['tunnel', '--no-autoupdate', '--url', o.localUrl] : ['http', o.localUrl, '--log', 'stdout', '--log-format', 'json'];
  const child: ChildProcess = spawn(o.file, args, { env: childEnv(o.env, o.secrets), stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    child.once('error', () => resolve({ code: null, signal: null }));
  });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  };
  let last = '';
  const lines: ((line: string) => void)[] = [];
  for (const stream of [child.stdout!, child.stderr!]) {
    createInterface({ input: stream }).on('line', (line) => {
      if (line.trim()) last = line.trim();
      for (const f of lines) f(line);
    });
  }
  const found = new Promise<string>((resolve, reject) => {
    let ngrokApi: string | undefined;
    let ngrokLogUrl: string | undefined;
    lines.push((line) => {
      if (o.kind === 'cloudflared') {
        if (/\sERR\s/.test(line)) return; // an error line may name trycloudflare.com's API
        const m = TRYCLOUDFLARE.exec(line);
        if (m) resolve(m[0].replace(/\/+$/, ''));
        return;
      }
      let rec: Record<string, unknown>;
      try {
        rec = JSON.parse(line) as Record<string, unknown>;
      } catch {
        return;
      }
      if (rec.msg === 'starting web service' && typeof rec.addr === 'string') ngrokApi = rec.addr;
      if ((rec.lvl === 'crit' || rec.lvl === 'eror') && typeof rec.err === 'string') last = rec.err;
      if (rec.msg === 'started tunnel' && typeof rec.url === 'string' && rec.url.startsWith('https://')) {
        ngrokLogUrl = rec.url;
        void ngrokPublicUrl(ngrokApi ?? '127.0.0.1:4040', o.localUrl).then((api) => resolve((api ?? ngrokLogUrl!).replace(/\/+$/, '')), reject);
      }
    });
    void exited.then(({ code, signal }) =>
      reject(
        new NetworkError(`${o.kind} exited (${signal ?? `code ${code}`}) before it gave a public URL${last ? `: ${escapeControl(last).slice(0, 300)}` : ''}`, {
          hint: INSTALL[o.kind],
        }),
      ),
    );
  });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new NetworkError(
            `${o.kind} gave no public URL within ${Math.round((o.timeoutMs ?? 30_000) / 1000)} s${last ? `; its last line: ${escapeControl(last).slice(0, 300)}` : ''}`,
            { hint: 'check its output by running it yourself' },
          ),
        ),
      o.timeoutMs ?? 30_000,
    );
  });
  try {
    const publicUrl = await Promise.race([found, timeout]);
    return { kind: o.kind, publicUrl, exited, stop };
  } catch (err) {
    await stop();
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

/** The https public URL of the tunnel to `localUrl` from ngrok's local API, or undefined when the API does not answer. */
async function ngrokPublicUrl(apiAddr: string, localUrl: string): Promise<string | undefined> {
  const { sendRaw } = await import('../core/http/raw-post.js');
  try {
    const res = await sendRaw(`http://${apiAddr}/api/tunnels`, { method: 'GET', headers: { accept: 'application/json' }, timeoutMs: 5000 });
    const body = JSON.parse(res.body) as { tunnels?: { public_url?: string; proto?: string; config?: { addr?: string } }[] };
    const https = (body.tunnels ?? []).filter((t) => typeof t.public_url === 'string' && t.public_url.startsWith('https://'));
    const mine = https.find((t) => t.config?.addr === localUrl || t.config?.addr === localUrl.replace(/^http:\/\//, '')) ?? https[0];
    return mine?.public_url;
  } catch {
    return undefined;
  }
}
