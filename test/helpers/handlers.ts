import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A free loopback port (the OS picks one; closed again before it is used). */
export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

export interface ExampleApp {
  base: string;
  child: ChildProcess;
  stop: () => Promise<void>;
}

/**
 * Starts one of examples/handlers/ as its own process on a free port, with a fresh orders store:
 * `php -S` (several workers, so copies run at once) or `node`. Resolves once it answers.
 */
export async function startExampleApp(kind: 'php' | 'laravel' | 'express', env: Record<string, string>): Promise<ExampleApp> {
  const dir = new URL(`../../examples/handlers/${kind}/`, import.meta.url).pathname;
  const data = mkdtempSync(join(tmpdir(), 'paycli-app-'));
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const childEnv = {
      PATH: process.env.PATH ?? '',
      ORDERS_FILE: join(data, 'orders.json'),
      ALLOW_TEST_ORDERS: '1',
      PHP_CLI_SERVER_WORKERS: '8',
      PORT: String(port),
      ...env,
    };
    const child =
      kind === 'express'
        ? spawn(process.execPath, [join(dir, 'server.mjs')], { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
        : spawn('php', ['-S', `127.0.0.1:${port}`, '-t', dir, join(dir, 'index.php')], { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let log = '';
    child.stdout!.on('data', (c: Buffer) => (log += c));
    child.stderr!.on('data', (c: Buffer) => (log += c));
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    // Its own process group, stopped whole: `php -S` with workers leaves them running when only it is stopped.
    const stop = async () => {
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        child.kill('SIGTERM');
      }
      await exited;
      rmSync(data, { recursive: true, force: true });
    };
    for (let i = 0; i < 200 && child.exitCode === null; i++) {
      try {
        const res = await fetch(`${base}/orders/none`);
        if (res.status === 404) return { base, child, stop };
      } catch {
        /* not up yet */
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    await stop();
    if (attempt >= 2) throw new Error(`the ${kind} example did not start: ${log}`);
  }
}
