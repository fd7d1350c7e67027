import { describe, expect, it } from 'vitest';
import { DemoStopped, StepFailed, StepLog } from '../../src/cli/commands/demo.js';
import { exitCodeOf } from '../../src/cli/exit-codes.js';
import { Output } from '../../src/cli/output.js';
import { NetworkError } from '../../src/core/errors.js';
import { testContext } from '../helpers/cli.js';

describe('paycli demo: a failed step stops the demo with the outcome of what failed', () => {
  it('a failed check is exit 6, a network error 5, an unexpected exception 1 (a bug), and each step is recorded', async () => {
    const t = testContext();
    const log = new StepLog(await Output.create(t.ctx, {}));
    await log.run('works', async () => 'fine');
    const stopped = async (fn: () => Promise<string>) => {
      try {
        await log.run('step', fn);
      } catch (err) {
        return err instanceof DemoStopped ? exitCodeOf(err.outcome) : -1;
      }
      return 0;
    };
    expect(
      await stopped(async () => {
        throw new StepFailed('status pending, expected berhasil');
      }),
    ).toBe(6);
    expect(
      await stopped(async () => {
        throw new NetworkError('connection refused');
      }),
    ).toBe(5);
    expect(
      await stopped(async () => {
        throw new TypeError('x is undefined');
      }),
    ).toBe(1);
    expect(log.steps.map((s) => [s.ok, s.detail])).toEqual([
      [true, 'fine'],
      [false, 'status pending, expected berhasil'],
      [false, 'connection refused'],
      [false, 'unexpected: x is undefined'],
    ]);
    expect(t.out()).toMatch(/✗ step\s+status pending, expected berhasil/);
  });
});
