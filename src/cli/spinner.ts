import type { Ora } from 'ora';
import type { CliContext } from './context.js';
import type { CommandEnv } from './command-env.js';
import { terminalWidth } from './output.js';

/**
 * An ora spinner on stderr (callers start it only when stderr is a terminal and not --json). ora
 * reads the stream's `columns` to count the rows it redraws: it sees the width terminalWidth says
 * (80 for a terminal reporting 0 columns, which made it redraw forever).
 * discardStdin off: ora's discarder puts the terminal in raw mode but never starts reading stdin,
 * so Ctrl-C became a byte nobody read and was ignored until the request ended. In the terminal's
 * normal mode Ctrl-C is SIGINT, which aborts the request (ctx.interrupts()).
 */
export async function createSpinner(ctx: CliContext, text?: string): Promise<Ora> {
  const { default: ora } = await import('ora');
  const target = ctx.stderr as NodeJS.WriteStream;
  const stream = new Proxy(target, {
    get(t, prop) {
      if (prop === 'columns') return terminalWidth(t.columns);
      const value = Reflect.get(t, prop, t);
      return typeof value === 'function' ? value.bind(t) : value;
    },
  });
  return ora({ text, stream, isEnabled: true, color: 'cyan', discardStdin: false });
}

/**
 * Runs a task under an ora spinner on stderr, only when stderr is a TTY and not --json. The task
 * may change the spinner's text through `update` (a no-op without a spinner).
 */
export async function withSpinner<T>(env: CommandEnv, text: string, task: (update: (text: string) => void) => Promise<T>): Promise<T> {
  if (!env.ctx.stderrIsTTY || env.out.json) return task(() => undefined);
  const spinner = (await createSpinner(env.ctx, text)).start();
  try {
    return await task((next) => void (spinner.text = next));
  } finally {
    spinner.stop();
  }
}
