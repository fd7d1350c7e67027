/**
 * The emulator's business clock: a base clock (the machine's, or a test's) plus an offset the user
 * moves forward (`paycli sandbox clock advance 25h`, `clock set …`), never backwards. Everything
 * time-based in the emulator reads it: payment times, expiry, deferred settlement, the callback
 * retry schedule, X-Timestamp, check transaction and history. The offset is stored through
 * SandboxState (one setting) so that a restart keeps the time the user set.
 */
import type { SandboxState } from './state.js';

export const CLOCK_SETTING = 'clock.offsetMs';

/**
 * `sandbox reset`: empties the ledger and, unless `keepClock`, sets the clock back to real time,
 * so that a reset is a known state (as LocalStack's state reset and WireMock's reset drop
 * everything they hold). `clock` is the running emulator's; on a stopped data dir only its stored
 * offset is reset. The ledger is emptied first: a crash between the two leaves an empty ledger
 * with the clock still ahead, and a second reset finishes the job.
 */
export async function resetSandbox(state: SandboxState, clock: SandboxClock | undefined, keepClock: boolean): Promise<{ removed: number; offsetMs: number }> {
  const removed = await state.reset();
  if (!keepClock) {
    if (clock) await clock.reset();
    else await state.setSetting(CLOCK_SETTING, '0');
  }
  const offsetMs = clock ? clock.offsetMs : Number(state.setting(CLOCK_SETTING) ?? 0);
  return { removed, offsetMs };
}

export type ClockResult = { ok: true; now: Date; offsetMs: number; movedMs: number } | { ok: false; status: number; message: string };

export class SandboxClock {
  private offset = 0;
  /** Called after the clock moved (the emulator expires, settles and reschedules retries). */
  onMove?: (movedMs: number) => Promise<void>;
  /** Stores the offset durably before it takes effect (throws StoreError when it cannot). */
  persist?: (offsetMs: number) => Promise<void>;
  private moving: Promise<unknown> = Promise.resolve();

  constructor(private readonly base: () => Date = () => new Date()) {}

  now(): Date {
    return new Date(this.base().getTime() + this.offset);
  }

  nowMs(): number {
    return this.base().getTime() + this.offset;
  }

  get offsetMs(): number {
    return this.offset;
  }

  /** Restores an offset read from the data dir (at start-up, before anything reads the clock). */
  restore(offsetMs: number): void {
    if (Number.isSafeInteger(offsetMs) && offsetMs >= 0) this.offset = offsetMs;
  }

  /**
   * Back to the base clock (offset 0), after whatever move is under way. Only `sandbox reset` does
   * it, once the ledger is empty: nothing stored refers to a time the clock had reached.
   */
  reset(): Promise<void> {
    const run = this.moving.then(async () => {
      await this.persist?.(0);
      this.offset = 0;
    });
    this.moving = run.catch(() => undefined);
    return run;
  }

  /** Moves the clock forward by `ms` (> 0). */
  advance(ms: number): Promise<ClockResult> {
    if (!Number.isSafeInteger(ms) || ms <= 0)
      return Promise.resolve({ ok: false, status: 400, message: 'the clock moves forward only: give a positive duration' });
    return this.move(() => ms);
  }

  /** Sets the clock to `at`; a time before the clock's now is refused (409). */
  set(at: Date): Promise<ClockResult> {
    if (Number.isNaN(at.getTime())) return Promise.resolve({ ok: false, status: 400, message: 'invalid time' });
    return this.move(() => at.getTime() - this.nowMs());
  }

  /** One move at a time: each is checked, persisted, applied, then the due work runs. */
  private move(delta: () => number): Promise<ClockResult> {
    const run = this.moving.then(async (): Promise<ClockResult> => {
      const ms = Math.round(delta());
      if (ms < 0)
        return {
          ok: false,
          status: 409,
          message: `the clock never goes backwards: it is ${this.now().toISOString()}, ${Math.ceil(-ms / 1000)} s after the time asked`,
        };
      const next = this.offset + ms;
      await this.persist?.(next);
      this.offset = next;
      await this.onMove?.(ms);
      return { ok: true, now: this.now(), offsetMs: this.offset, movedMs: ms };
    });
    this.moving = run.catch(() => undefined);
    return run;
  }
}
