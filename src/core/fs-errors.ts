import { UsageError, type PaycliError } from './errors.js';

const REASONS: Record<string, string> = {
  ENOENT: 'no such file or directory',
  ENOTDIR: 'a part of the path is not a directory',
  EISDIR: 'it is a directory',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on the device',
  EEXIST: 'it already exists',
  ELOOP: 'it is a symbolic link (refused)',
};

/**
 * Turns a file-system error into a one-line typed error naming the path and what it is for
 * (`the event store /x/events.jsonl: permission denied`). Other errors pass through unchanged.
 */
export function fsError(err: unknown, what: string, make: (message: string) => PaycliError = (m) => new UsageError(m)): unknown {
  const code = (err as NodeJS.ErrnoException)?.code;
  if (!code || !(code in REASONS)) return err;
  return make(`cannot use ${what}: ${REASONS[code]}`);
}
