import { describe, expect, it } from 'vitest';
import type { Command } from 'commander';
import { buildProgram, topLevelCommandOf } from '../../src/cli/program.js';
import { TOP_LEVEL_COMMANDS } from '../../src/cli/commands/index.js';
import { runCli, testContext } from '../helpers/cli.js';

function commandPaths(cmd: Command, prefix: string[] = []): string[][] {
  return cmd.commands.filter((c) => c.name() !== 'help' && !(c as unknown as { _hidden: boolean })._hidden).flatMap((c) => [[...prefix, c.name()], ...commandPaths(c, [...prefix, c.name()])]);
}

describe('the command tree', () => {
  it('suggests the right command for a typo (exit 2)', async () => {
    const r = await runCli(['verfy-callback']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown command 'verfy-callback'");
    expect(r.stderr).toContain('Did you mean verify-callback?');
    expect(r.stdout).toBe('');
  });

  it('suggests flags and reports errors as JSON with --json', async () => {
    const r = await runCli(['areas', 'province', '--no-cach', '--json']);
    expect(r.code).toBe(2);
    const e = JSON.parse(r.stderr).error;
    expect(e).toMatchObject({ code: 'usage', exitCode: 2 });
    expect(e.hint).toContain('--no-cache');
    expect(r.stdout).toBe('');
  });

  it('prints help on stdout with exit 0, and the exit codes in the root help', async () => {
    const r = await runCli(['--help']);
    expect(r.code).toBe(0);
    for (const group of ['API commands:', 'Callback commands:', 'Emulator commands:', 'Setup commands:']) expect(r.stdout).toContain(group);
    expect(r.stdout).toMatch(/Exit codes:[\s\S]*130 interrupted/);
  });

  it('gives every command a description and at least two examples', async () => {
    const program = await buildProgram(testContext().ctx, { code: 0 });
    const paths = commandPaths(program);
    expect(paths.length).toBeGreaterThan(25);
    const find = (path: string[]) => path.reduce<Command>((c, name) => c.commands.find((x) => x.name() === name)!, program);
    for (const path of paths) {
      const cmd = find(path);
      expect(cmd.description(), path.join(' ')).not.toBe('');
      if (cmd.commands.length > 0 && path.join(' ') !== 'sandbox') continue; // groups: their subcommands carry the examples
      let help = '';
      cmd.configureOutput({ writeOut: (s) => (help += s), writeErr: (s) => (help += s) });
      cmd.outputHelp();
      const examples = help.split('Examples:')[1] ?? '';
      expect(examples.match(/\$ paycli/g)?.length ?? 0, `${path.join(' ')} examples`).toBeGreaterThanOrEqual(2);
    }
  });

  it('a group without its subcommand prints its help on stderr and exits 2', async () => {
    const r = await runCli(['areas']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('Usage: paycli areas');
  });

  it('--version prints the package version', async () => {
    const r = await runCli(['--version']);
    expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('a run defines only the top-level command it names, with the same help and parsing as the whole tree', async () => {
    const full = await buildProgram(testContext().ctx, { code: 0 });
    expect(full.commands.map((c) => c.name()).sort()).toEqual([...TOP_LEVEL_COMMANDS].sort());
    const values = new Set(['--env', '--profile', '--va', '--api-key', '--api-key-file', '--base-url']);
    expect(topLevelCommandOf(['--env', 'local', '--va', '1179000899', 'areas', 'province'], values)).toBe('areas');
    expect(topLevelCommandOf(['--json', 'verify-callback', 'x.json'], values)).toBe('verify-callback');
    expect(topLevelCommandOf(['--help', 'areas'], values)).toBeUndefined(); // the root help lists everything
    expect(topLevelCommandOf(['--va', 'areas'], values)).toBeUndefined(); // "areas" is the VA here
    expect(topLevelCommandOf(['verfy-callback'], values)).toBeUndefined(); // a typo needs every name
    expect(topLevelCommandOf(['help', 'pay'], values)).toBeUndefined();
    for (const name of TOP_LEVEL_COMMANDS.filter((n) => n !== '__complete')) {
      const partial = await buildProgram(testContext().ctx, { code: 0 }, ['--env', 'local', name]);
      expect(partial.commands.map((c) => c.name()), name).toEqual([name]);
      const help = (cmd: Command) => {
        let text = '';
        cmd.configureOutput({ writeOut: (s) => (text += s), writeErr: (s) => (text += s) });
        cmd.outputHelp();
        return text;
      };
      expect(help(partial.commands[0]!), name).toBe(help(full.commands.find((c) => c.name() === name)!));
    }
    // Through run(): the global options before the command still apply, and an unknown flag still gets its suggestion.
    const r = await runCli(['--json', 'areas', 'province', '--no-cach']);
    expect(JSON.parse(r.stderr).error.hint).toContain('--no-cache');
  });
});
