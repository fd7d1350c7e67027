import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

export const BIN = new URL('../../bin/paycli.js', import.meta.url).pathname;

export interface Spawned {
  child: ChildProcess;
  /** Resolves with the first stdout line that parses as JSON and matches. */
  waitForJson: (match: (o: Record<string, unknown>) => boolean, ms?: number) => Promise<Record<string, unknown>>;
  lines: string[];
  exited: Promise<number | null>;
}

/** Spawns the built bin with a clean environment plus `env`. */
export function spawnPaycli(args: string[], env: Record<string, string> = {}): Spawned {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: env.HOME ?? '/nonexistent', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const waiters: { match: (o: Record<string, unknown>) => boolean; resolve: (o: Record<string, unknown>) => void }[] = [];
  createInterface({ input: child.stdout! }).on('line', (line) => {
    lines.push(line);
    try {
      const o = JSON.parse(line) as Record<string, unknown>;
      for (const w of [...waiters])
        if (w.match(o)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(o);
        }
    } catch {
      /* not JSON */
    }
  });
  child.stderr!.resume();
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  return {
    child,
    lines,
    exited,
    waitForJson: (match, ms = 10_000) =>
      new Promise((resolve, reject) => {
        for (const line of lines) {
          try {
            const o = JSON.parse(line) as Record<string, unknown>;
            if (match(o)) return resolve(o);
          } catch {
            /* skip */
          }
        }
        const t = setTimeout(() => reject(new Error(`no matching line within ${ms} ms; got: ${lines.join(' | ')}`)), ms);
        waiters.push({ match, resolve: (o) => (clearTimeout(t), resolve(o)) });
      }),
  };
}

/** Runs the built bin to completion. */
export function runPaycli(args: string[], env: Record<string, string> = {}, input?: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH ?? '', HOME: env.HOME ?? '/nonexistent', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c));
    child.stderr.on('data', (c: Buffer) => (stderr += c));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input ?? '');
  });
}
