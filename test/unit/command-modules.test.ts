import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import type { CommandEnv } from '../../src/cli/command-env.js';
import { type Bind, typed } from '../../src/cli/command-kit.js';
import { REGISTRY } from '../../src/cli/commands/index.js';

describe('command modules (a definition next to its handler)', () => {
  it('a handler is bound only if its option type matches the definition (checked by tsc on this file)', () => {
    const bound: string[] = [];
    const bind: Bind = (cmd) => {
      bound.push(cmd.name());
    };
    const cmd = typed(new Command('paycli'))
      .command('x <id>')
      .option('--port <port>', 'port', '8080')
      .option('--dry-run', 'send nothing')
      .option('--no-cache', 'bypass the cache');
    bind(cmd, async (env: CommandEnv<{ port: string; dryRun?: true; cache: boolean }>) => (env.opts.port === '8080' ? 'ok' : 'usage'));
    // @ts-expect-error the handler reads --host, which the definition does not declare
    bind(cmd, async (env: CommandEnv<{ host: string }>) => (env.opts.host ? 'ok' : 'usage'));
    // @ts-expect-error --port is a string, not a number
    bind(cmd, async (env: CommandEnv<{ port: number }>) => env.opts.port);
    expect(bound).toEqual(['x', 'x', 'x']);
  });

  it('each module defines exactly the top-level commands the registry assigns to it', async () => {
    const byModule = new Map<object, { names: string[]; defined: string[] }>();
    for (const entry of REGISTRY) {
      const mod = await entry.load();
      const seen = byModule.get(mod) ?? { names: [], defined: Object.keys(mod.commands).sort() };
      seen.names.push(entry.name);
      byModule.set(mod, seen);
    }
    expect(byModule.size).toBeGreaterThan(10);
    for (const { names, defined } of byModule.values()) expect(defined, names.join(', ')).toEqual(names.sort());
  });

  it('every top-level command has a module of its own (one command per module)', async () => {
    const modules = await Promise.all(REGISTRY.map((entry) => entry.load()));
    expect(new Set(modules).size).toBe(REGISTRY.length);
    expect(modules.map((m) => Object.keys(m.commands))).toEqual(REGISTRY.map((entry) => [entry.name]));
  });
});
