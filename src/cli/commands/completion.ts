import { UsageError } from '../../core/errors.js';
import { completionScript, SHELLS, type Shell } from '../completion.js';
import type { Handler } from '../command-env.js';
import { examples, type Define } from '../command-kit.js';
import { topCommand } from './heads.js';

/** `paycli completion bash|zsh|fish`: prints the script (the same as completions/). */
export const completionCommand: Handler = async (env, shell: string) => {
  if (!(SHELLS as readonly string[]).includes(shell)) throw new UsageError(`unknown shell "${shell}"`, { hint: `shells: ${SHELLS.join(', ')}` });
  const script = completionScript(shell as Shell, await env.tree());
  if (env.out.json) env.out.data({ shell, script });
  else env.ctx.stdout.write(script);
  return 'ok';
};

// ── Definitions ─────────────────────────────────────────────────────────────────────────────────

const defineCompletion: Define = (program, bind) =>
  bind(
    examples(topCommand(program, 'completion'), [
      'paycli completion bash > /etc/bash_completion.d/paycli',
      'paycli completion fish > ~/.config/fish/completions/paycli.fish',
      'paycli completion zsh > ~/.zsh/completions/_paycli',
    ]),
    completionCommand,
  );

export const commands = { completion: defineCompletion };
