import { readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { dataDir } from '../core/config/paths.js';
import { writeSecureFile } from '../core/config/secure-file.js';
import { UsageError } from '../core/errors.js';
import { isLoopbackHost } from '../core/dashboard/html.js';
import { processAlive } from '../process-alive.js';

/**
 * The running listener, for `paycli pay --notify-url auto`: `paycli listen` writes where it
 * receives callbacks (its local URL, the tunnel's public URL, the path) to a state file (0600 in a
 * 0700 directory) and removes it when it stops; `pay` reads it. A file left by a listener that was
 * killed names a process that is gone and is ignored.
 */
export interface ListenerState {
  pid: number;
  url: string;
  publicUrl: string | null;
  tunnel: string | null;
  path: string;
  startedAt: string;
}

export function listenerStatePath(env: Record<string, string | undefined>, homedir: string): string {
  return join(dataDir(env, homedir), 'listener.json');
}

export async function writeListenerState(file: string, state: ListenerState): Promise<void> {
  await writeSecureFile(file, `${JSON.stringify(state, null, 2)}\n`);
}

/** Removes the state file if it is still this listener's (a later listener may have replaced it). */
export async function removeListenerState(file: string, pid: number, url: string): Promise<void> {
  const now = await readListenerState(file);
  if (now && now.pid === pid && now.url === url) await unlink(file).catch(() => undefined);
}

export async function readListenerState(file: string): Promise<ListenerState | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const s = JSON.parse(text) as Partial<ListenerState>;
    if (typeof s.pid !== 'number' || typeof s.url !== 'string' || typeof s.path !== 'string') return undefined;
    return {
      pid: s.pid,
      url: s.url,
      publicUrl: typeof s.publicUrl === 'string' ? s.publicUrl : null,
      tunnel: typeof s.tunnel === 'string' ? s.tunnel : null,
      path: s.path,
      startedAt: String(s.startedAt ?? ''),
    };
  } catch {
    return undefined;
  }
}

/**
 * `--notify-url auto`: the running listener's public URL (with its path), or its local URL when the
 * payment goes to a loopback base URL (the emulator calls it directly). A usage error when no
 * listener runs, or when only a local one does and the gateway could not reach it.
 */
export async function autoNotifyUrl(env: Record<string, string | undefined>, homedir: string, baseUrl: string): Promise<string> {
  const state = await readListenerState(listenerStatePath(env, homedir));
  if (!state || !processAlive(state.pid)) {
    throw new UsageError('--notify-url auto: no `paycli listen` is running', {
      hint: 'start one first: `paycli listen --tunnel cloudflared` (or `paycli listen` for the emulator)',
    });
  }
  const path = state.path === '*' ? '/' : state.path;
  if (state.publicUrl) return state.publicUrl + path;
  let loopback = false;
  try {
    loopback = isLoopbackHost(new URL(baseUrl).hostname);
  } catch {
    // not a URL: not loopback
  }
  if (!loopback) {
    throw new UsageError(`--notify-url auto: the running listener has no public URL (${state.url}), and the gateway at ${baseUrl} cannot reach this machine`, {
      hint: 'restart it with `paycli listen --tunnel cloudflared` (or ngrok)',
    });
  }
  return new URL(path, state.url).toString();
}

/** The notify URL a payment sends: `auto` resolved through the running listener, anything else as given. */
export async function notifyUrlOf(
  env: { ctx: { env: Record<string, string | undefined>; homedir: string } },
  value: string | undefined,
  baseUrl: string,
): Promise<string | undefined> {
  return value === 'auto' ? autoNotifyUrl(env.ctx.env, env.ctx.homedir, baseUrl) : value;
}
