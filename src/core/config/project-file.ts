import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { AuthError } from '../errors.js';
import type { ProjectConfig } from './resolve.js';

/**
 * Project config files paycli reads, in the order they are tried within one directory. Data only:
 * JSON, YAML (`.payclirc` is YAML, which also reads JSON) and the `paycli` key of package.json.
 */
export const PROJECT_CONFIG_FILES = [
  'package.json',
  '.paycli.json',
  '.paycli.yaml',
  '.paycli.yml',
  '.payclirc',
  '.payclirc.json',
  '.payclirc.yaml',
  '.payclirc.yml',
] as const;

/**
 * Code configs other tools of this kind would execute. paycli holds API keys and never runs code
 * from the directory it is started in: such a file is reported as ignored, never loaded.
 */
export const IGNORED_CODE_CONFIGS = [
  '.paycli.js',
  '.paycli.cjs',
  '.paycli.mjs',
  '.paycli.ts',
  '.paycli.cts',
  '.paycli.mts',
  '.payclirc.js',
  '.payclirc.cjs',
  '.payclirc.mjs',
  '.payclirc.ts',
  '.payclirc.cts',
  '.payclirc.mts',
  'paycli.config.js',
  'paycli.config.cjs',
  'paycli.config.mjs',
  'paycli.config.ts',
  'paycli.config.cts',
  'paycli.config.mts',
] as const;

/** Project configs above this size are refused (settings fit in a few hundred bytes). */
export const MAX_PROJECT_CONFIG_BYTES = 64 * 1024;
/** YAML alias uses allowed in a project config (the `yaml` package's maxAliasCount). */
export const MAX_YAML_ALIASES = 20;

export interface ProjectConfigSearch {
  project: ProjectConfig | null;
  /** One-line notes for stderr: code configs that were found and ignored. */
  notes: string[];
}

function names(dir: string): Set<string> {
  try {
    return new Set(readdirSync(dir));
  } catch {
    return new Set();
  }
}

/** A one-line, bounded excerpt of an error message (a parser's message can quote the whole input). */
function oneLine(message: string, max = 160): string {
  const line = message.split('\n')[0]!.trim();
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

/**
 * The directories searched for a project config, nearest first: from `cwd` up to the first
 * directory that is a repository root (holds `.git`), holds `package.json`, or is the home
 * directory — whichever comes first. When none of these is met before the filesystem root (a
 * directory outside any project, such as /tmp), only `cwd` itself is searched, so a file planted
 * in a shared parent directory is never read.
 */
export function projectSearchDirs(cwd: string, homedir: string, list: (dir: string) => Set<string> = names): string[] {
  const home = resolve(homedir);
  const dirs: string[] = [];
  let dir = resolve(cwd);
  for (;;) {
    dirs.push(dir);
    const here = list(dir);
    if (dir === home || here.has('.git') || here.has('package.json')) return dirs;
    const parent = dirname(dir);
    if (parent === dir) return dirs.slice(0, 1);
    dir = parent;
  }
}

function refuse(filepath: string, why: string): AuthError {
  return new AuthError(`the project config ${filepath} ${why}`, {
    hint: 'fix or remove it; project configs hold a few non-secret settings (env, va, notifyUrl, timeout, profile)',
  });
}

function readBounded(filepath: string): string | undefined {
  let size: number;
  try {
    const st = statSync(filepath);
    if (!st.isFile()) return undefined;
    size = st.size;
  } catch {
    return undefined;
  }
  if (size > MAX_PROJECT_CONFIG_BYTES) throw refuse(filepath, `is ${size} bytes; paycli reads project configs up to ${MAX_PROJECT_CONFIG_BYTES / 1024} KiB`);
  let text: string;
  try {
    text = readFileSync(filepath, 'utf8');
  } catch {
    return undefined;
  }
  if (Buffer.byteLength(text) > MAX_PROJECT_CONFIG_BYTES)
    throw refuse(filepath, `is over ${MAX_PROJECT_CONFIG_BYTES / 1024} KiB; paycli reads project configs up to that size`);
  return text;
}

async function parseYaml(text: string, filepath: string): Promise<unknown> {
  const { parseDocument } = await import('yaml');
  try {
    // Plain data only: errors and warnings (such as an unknown tag like !!js/function) refuse the
    // file, and aliases are bounded (an alias bomb is refused, not expanded).
    const doc = parseDocument(text, { prettyErrors: false, uniqueKeys: true, merge: false, logLevel: 'silent' });
    const problem = doc.errors[0] ?? doc.warnings[0];
    if (problem) throw problem;
    return doc.toJS({ maxAliasCount: MAX_YAML_ALIASES });
  } catch (err) {
    const message = (err as Error).message ?? String(err);
    if (/alias/i.test(message) && /count|exceed|resource/i.test(message)) {
      throw refuse(filepath, `uses YAML aliases beyond the limit of ${MAX_YAML_ALIASES}; write the values out`);
    }
    throw refuse(filepath, `is not valid YAML: ${oneLine(message)}`);
  }
}

function parseJson(text: string, filepath: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw refuse(filepath, `is not valid JSON: ${oneLine((err as Error).message)}`);
  }
}

/**
 * Finds and reads the project config (see projectSearchDirs for where it looks). Synchronous
 * directory reads: the common case (no project config) costs a few readdir calls; the YAML parser
 * is loaded only for a YAML file. Throws an AuthError (exit 4) for a file that is too large, not
 * valid, or not an object.
 */
export async function findProjectConfig(cwd: string, homedir: string): Promise<ProjectConfigSearch> {
  const cache = new Map<string, Set<string>>();
  const list = (dir: string) => {
    let s = cache.get(dir);
    if (!s) cache.set(dir, (s = names(dir)));
    return s;
  };
  const notes: string[] = [];
  for (const dir of projectSearchDirs(cwd, homedir, list)) {
    const here = list(dir);
    for (const name of IGNORED_CODE_CONFIGS) {
      if (here.has(name)) notes.push(`${join(dir, name)} ignored: paycli never runs code configs; put the settings in .paycli.json or .paycli.yaml`);
    }
    for (const name of PROJECT_CONFIG_FILES) {
      if (!here.has(name)) continue;
      const filepath = join(dir, name);
      const text = readBounded(filepath);
      if (text === undefined) continue;
      let config: unknown;
      if (name === 'package.json') {
        const pkg = parseJson(text, filepath);
        if (!pkg || typeof pkg !== 'object' || (pkg as Record<string, unknown>).paycli === undefined) continue;
        config = (pkg as Record<string, unknown>).paycli;
      } else if (name.endsWith('.json')) {
        config = parseJson(text, filepath);
      } else {
        config = await parseYaml(text, filepath);
      }
      if (config === undefined || config === null) continue;
      if (typeof config !== 'object' || Array.isArray(config)) throw refuse(filepath, 'is not an object of settings');
      return { project: { filepath, config: config as Record<string, unknown>, text }, notes };
    }
  }
  return { project: null, notes };
}
