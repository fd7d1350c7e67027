import { join } from 'node:path';
import type { Env } from '../env.js';

function xdg(env: Env, name: string, homedir: string, fallback: string[]): string {
  const base = env[name];
  return join(base?.startsWith('/') ? base : join(homedir, ...fallback), 'paycli');
}

/** `$XDG_CONFIG_HOME/paycli` (default `~/.config/paycli`). */
export function configDir(env: Env, homedir: string): string {
  return xdg(env, 'XDG_CONFIG_HOME', homedir, ['.config']);
}

/** `$XDG_CACHE_HOME/paycli` (default `~/.cache/paycli`). */
export function cacheDir(env: Env, homedir: string): string {
  return xdg(env, 'XDG_CACHE_HOME', homedir, ['.cache']);
}

/** `$XDG_DATA_HOME/paycli` (default `~/.local/share/paycli`): event store, emulator state. */
export function dataDir(env: Env, homedir: string): string {
  return xdg(env, 'XDG_DATA_HOME', homedir, ['.local', 'share']);
}

export function userConfigPath(env: Env, homedir: string): string {
  return join(configDir(env, homedir), 'config.json');
}
