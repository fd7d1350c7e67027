import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, describe, expect } from 'vitest';
import { sandboxAndHome } from './sandbox.js';
import { BIN } from './spawn.js';

const exec = promisify(execFile);

export const haveTmux = (() => {
  try {
    execFileSync('tmux', ['-V']);
    return true;
  } catch {
    return false;
  }
})();

/** A program running in a real terminal (tmux), driven by keys and read from the screen. */
export class Terminal {
  private constructor(private socket: string) {}

  static async start(command: string, env: Record<string, string>, size: { width?: number; height?: number } = {}): Promise<Terminal> {
    const socket = `paycli-test-${process.pid}-${Math.random().toString(36).slice(2)}`;
    const t = new Terminal(socket);
    const envArgs = Object.entries(env)
      .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
      .join(' ');
    // The shell stays a moment after the command so that its exit code can be read from the screen.
    await exec('tmux', [
      '-L',
      socket,
      '-f',
      '/dev/null',
      'new-session',
      '-d',
      '-x',
      String(size.width ?? 140),
      '-y',
      String(size.height ?? 50),
      `env -i PATH="$PATH" TERM=xterm-256color ${envArgs} ${command}; echo "EXIT=$?"; sleep 30`,
    ]);
    return t;
  }

  /**
   * The screen; `joined` (default) joins lines the terminal wrapped, false shows rows as they are;
   * `escapes` keeps the colours of each cell as SGR sequences, and the cells of trailing spaces
   * (capture-pane -e -N): what the terminal shows, cell by cell.
   */
  async screen(joined = true, escapes = false): Promise<string> {
    const { stdout } = await exec('tmux', ['-L', this.socket, 'capture-pane', '-p', ...(joined ? ['-J'] : []), ...(escapes ? ['-e', '-N'] : []), '-S', '-200']);
    return stdout;
  }

  /** Waits until the screen matches; throws with the screen when it does not in time. */
  async waitFor(pattern: RegExp, ms = 15_000): Promise<string> {
    const until = Date.now() + ms;
    let last = '';
    while (Date.now() < until) {
      last = await this.screen();
      if (pattern.test(last)) return last;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`screen never matched ${pattern}:\n${last}`);
  }

  async keys(...keys: string[]): Promise<void> {
    for (const k of keys) {
      await exec('tmux', ['-L', this.socket, 'send-keys', k]);
      await new Promise((r) => setTimeout(r, 60));
    }
  }

  async type(text: string): Promise<void> {
    await exec('tmux', ['-L', this.socket, 'send-keys', '-l', text]);
    await new Promise((r) => setTimeout(r, 60));
  }

  /** Answers a prompt: waits for it, types `text` (if any) and presses Enter. */
  async answer(prompt: RegExp, text?: string): Promise<void> {
    await this.waitFor(prompt);
    if (text !== undefined) await this.type(text);
    await this.keys('Enter');
  }

  async exitCode(): Promise<number> {
    const s = await this.waitFor(/EXIT=\d+/);
    return Number(/EXIT=(\d+)/.exec(s)![1]);
  }

  async close(): Promise<void> {
    await exec('tmux', ['-L', this.socket, 'kill-server']).catch(() => undefined);
  }
}

/**
 * The set-up every terminal test file shares: an emulator on port 0, a temporary HOME, and `term()`
 * that runs the built bin in a fresh tmux pane against them (closed after the file). `run` is
 * `describe`, or a skip that names tmux when it is missing outside CI (in CI, `term()` fails instead).
 */
export function terminalSuite(defaultWidth = 140) {
  const terminals: Terminal[] = [];
  const fixture = sandboxAndHome();
  const suite = {
    get sb() {
      return fixture.sb;
    },
    get home() {
      return fixture.home;
    },
    run: haveTmux || process.env.CI ? describe : (name: string, body: () => void) => describe.skip(`${name} (skipped: apt-get install tmux)`, body),
    async term(args: string, env: Record<string, string> = {}, width = defaultWidth): Promise<Terminal> {
      expect(haveTmux, 'tmux is needed for the terminal tests (.ci/run installs it)').toBe(true);
      const t = await Terminal.start(
        `"${process.execPath}" "${BIN}" ${args}`,
        { HOME: suite.home.home, PAYCLI_ENV: 'local', PAYCLI_BASE_URL: suite.sb.apiUrl, ...env },
        { width },
      );
      terminals.push(t);
      return t;
    },
  };
  afterAll(async () => {
    await Promise.all(terminals.map((t) => t.close()));
  });
  return suite;
}
