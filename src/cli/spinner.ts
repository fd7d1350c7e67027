import type { CommandEnv } from './command-env.js';

/** Runs a task under an ora spinner on stderr, only when stderr is a TTY and not --json. */
export async function withSpinner<T>(env: CommandEnv, text: string, task: () => Promise<T>): Promise<T> {
  if (!env.ctx.stderrIsTTY || env.out.json) return task();
  const { default: ora } = await import('ora');
  const spinner = ora({ text, stream: env.ctx.stderr as NodeJS.WriteStream, isEnabled: true, color: 'cyan' }).start();
  try {
    return await task();
  } finally {
    spinner.stop();
  }
}
