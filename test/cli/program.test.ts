import { describe, expect, it } from 'vitest';
import { Help, type Command } from 'commander';
import { buildProgram, needsOnlyHeads, topLevelCommandOf } from '../../src/cli/program.js';
import { REGISTRY, TOP_LEVEL_COMMANDS } from '../../src/cli/commands/index.js';
import { HEADS, headTerm } from '../../src/cli/commands/heads.js';
import { runCli, testContext } from '../helpers/cli.js';

function commandPaths(cmd: Command, prefix: string[] = []): string[][] {
  return cmd.commands
    .filter((c) => c.name() !== 'help' && !(c as unknown as { _hidden: boolean })._hidden)
    .flatMap((c) => [[...prefix, c.name()], ...commandPaths(c, [...prefix, c.name()])]);
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
    expect(e).toMatchObject({ code: 'ERR_USAGE', kind: 'usage', exitCode: 2 });
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
      expect(
        partial.commands.map((c) => c.name()),
        name,
      ).toEqual([name]);
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

  it('the root help, a bare `paycli` and a typo need no command module: the shallow tree from heads.ts says the same, byte for byte', async () => {
    const values = new Set(['--env', '--profile', '--va', '--api-key', '--api-key-file', '--base-url']);
    for (const argv of [['--help'], ['-h'], [], ['--json'], ['--env', 'local', '--help', 'areas'], ['verfy-callback'], ['--va', 'areas', '--help']])
      expect(needsOnlyHeads(argv, values), argv.join(' ')).toBe(true);
    for (const argv of [['areas', '--help'], ['help'], ['help', 'pay'], ['--', 'areas'], ['--json', 'verify-callback', 'x.json']])
      expect(needsOnlyHeads(argv, values), argv.join(' ')).toBe(false);
    const rootHelp = (program: Command) => {
      let text = '';
      program.configureOutput({ ...program.configureOutput(), writeOut: (s) => (text += s), writeErr: (s) => (text += s) });
      program.outputHelp();
      return text;
    };
    for (const columns of [40, 80, 120]) {
      for (const env of [{}, { FORCE_COLOR: '1' }]) {
        const ctx = { ...testContext({ env, tty: true }).ctx, columns };
        const full = await buildProgram(ctx, { code: 0 });
        const shallow = await buildProgram(ctx, { code: 0 }, ['--help']);
        expect(shallow.commands.map((c) => c.name())).toEqual(full.commands.map((c) => c.name()));
        expect(shallow.commands.every((c) => c.commands.length === 0 && c.options.length === 0)).toBe(true); // no module was defined
        const text = rootHelp(shallow);
        expect(text).toContain('verify-callback [options] [file]');
        expect(text, `${columns} columns ${JSON.stringify(env)}`).toBe(rootHelp(full));
      }
    }
    // Through run(): the same bytes and exit codes as before for the root help, a bare paycli and a typo.
    const help = await runCli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toBe(rootHelp(await buildProgram(testContext().ctx, { code: 0 })));
    const bare = await runCli([]);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toBe(help.stdout);
  });

  it("each module's definition of its command agrees with heads.ts (name, arguments, [options], description, hidden)", async () => {
    expect(Object.keys(HEADS).sort()).toEqual([...TOP_LEVEL_COMMANDS].sort());
    const full = await buildProgram(testContext().ctx, { code: 0 });
    const help = new Help();
    for (const entry of REGISTRY) {
      const cmd = full.commands.find((c) => c.name() === entry.name)!;
      const head = HEADS[entry.name];
      expect(help.subcommandTerm(cmd), entry.name).toBe(headTerm(head));
      expect(help.subcommandDescription(cmd), entry.name).toBe(head.description);
      expect((cmd as unknown as { _hidden: boolean })._hidden, entry.name).toBe('hidden' in head);
      expect(cmd.aliases(), entry.name).toEqual([]);
    }
  });
});
