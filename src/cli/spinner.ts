import type { CommandEnv } from './command-env.js';

/**
 * Runs a task under an ora spinner on stderr, only when stderr is a TTY and not --json. The task
 * may change the spinner's text through `update` (a no-op without a spinner).
 */
export async function withSpinner<T>(env: CommandEnv, text: string, task: (update: (text: string) => void) => Promise<T>): Promise<T> {
  if (!env.ctx.stderrIsTTY || env.out.json) return task(() => undefined);
  const { default: ora } = await import('ora');
  // discardStdin off: ora's discarder puts the terminal in raw mode but never starts reading stdin,
  // so Ctrl-C became a byte nobody read and was ignored until the request ended. In the terminal's
  // normal mode Ctrl-C is SIGINT, which aborts the request (ctx.interrupts()).
  const spinner = ora({ text, stream: env.ctx.stderr as NodeJS.WriteStream, isEnabled: true, color: 'cyan', discardStdin: false }).start();
  try {
    return await task((next) => void (spinner.text = next));
  } finally {
    spinner.stop();
  }
}
