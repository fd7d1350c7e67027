import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { exitCodeOf } from '../../src/cli/exit-codes.js';
import { ERROR_CODES, type ErrorCode, PaycliError, UsageError } from '../../src/core/errors.js';
import { MalformedPayloadError } from '../../src/core/callback/parse.js';
import { MissingVaError } from '../../src/core/signing/callback-signature.js';

describe('error codes: stable names, one mapping to exit codes', () => {
  it('docs/errors.md lists every code with the exit code the CLI gives it, and nothing else', () => {
    const doc = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
    const rows = [...doc.matchAll(/^\| `(ERR_[A-Z_]+)` \| (\d+) \|/gm)].map((m) => [m[1], Number(m[2])]);
    const want = Object.entries(ERROR_CODES).map(([code, kind]) => [code, exitCodeOf(kind)]);
    expect(rows.sort()).toEqual(want.sort());
  });

  it("an error takes its kind's general code unless it names a precise one of the same kind", () => {
    expect(new UsageError('x').code).toBe('ERR_USAGE');
    expect(new MalformedPayloadError('x').code).toBe('ERR_MALFORMED_PAYLOAD');
    expect(new MissingVaError().code).toBe('ERR_MISSING_VA');
    // A code of another kind cannot make a usage error look like a network one.
    expect(new PaycliError('usage', 'x', { code: 'ERR_NETWORK' as ErrorCode }).code).toBe('ERR_USAGE');
  });

  it('the code table and the exit codes cannot be changed at run time', () => {
    expect(Object.isFrozen(ERROR_CODES)).toBe(true);
    expect(() => {
      (ERROR_CODES as Record<string, string>).ERR_USAGE = 'internal';
    }).toThrow(TypeError);
  });
});
