import { randomBytes } from 'node:crypto';

/**
 * Makes sortable, unique event ids: `evt_`, the time in base 36, a tag random per generator (so that
 * several writers of one store, listen and trigger, never collide) and a counter. Each writer owns
 * one; the tag is made on the first id, so that making a generator does not load node:crypto.
 */
export class EventIds {
  private tag: string | undefined;
  private sequence = 0;
  /** `evt_`, the time and the tag, for the last millisecond an id was made in (a listener makes many per ms). */
  private lastMs = Number.NaN;
  private lastPrefix = '';

  next(now: Date): string {
    this.sequence = (this.sequence + 1) % 1_679_616; // 36^4
    const ms = now.getTime();
    if (ms !== this.lastMs) {
      this.lastPrefix = `evt_${ms.toString(36)}${(this.tag ??= randomBytes(3).toString('hex'))}`;
      this.lastMs = ms;
    }
    return `${this.lastPrefix}${this.sequence.toString(36).padStart(4, '0')}`;
  }
}
