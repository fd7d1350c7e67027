// Runs one of scripts/container/*.sh for the container end-to-end tests. They need root and the
// tools named (.ci/run installs them); outside CI a machine without them skips the test, in CI the
// test fails instead (nothing skips in CI).
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = new URL('../..', import.meta.url).pathname;
const onPath = (cmd: string) =>
  (process.env.PATH ?? '')
    .split(':')
    .concat('/usr/sbin', '/sbin')
    .some((d) => d && existsSync(join(d, cmd)));

/** Why the machine cannot run the script ('' when it can): not root, or what to install. */
export function containerToolsMissing(commands: string[], files: Record<string, string> = {}): string {
  const missing = commands.filter((c) => !onPath(c));
  for (const [path, pkg] of Object.entries(files)) if (!existsSync(path)) missing.push(pkg);
  if (process.getuid?.() !== 0) return 'needs root';
  return missing.length > 0 ? `apt-get install ${missing.join(' ')}` : '';
}

/** Skip outside CI when tools are missing; in CI, run (and fail on the missing tools). */
export const skipContainerTest = (why: string) => why !== '' && !process.env.CI;

export function runContainerScript(script: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(
      'bash',
      [join(ROOT, 'scripts/container', script)],
      { env: { ...process.env, PATH: `${process.env.PATH ?? ''}:/usr/sbin:/sbin` }, encoding: 'utf8', timeout: 40 * 60_000, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, out: stdout + stderr }),
    );
  });
}
