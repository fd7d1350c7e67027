import type { EventStore, StoredEvent } from './event-store.js';

/** Events kept for the pages (the newest). */
export const UI_KEEP = 500;
/**
 * Of an event's body, the pages keep this much in memory (a real callback is 1 to 2 KiB); a longer
 * one is read back from the store when its page is opened.
 */
export const UI_BODY_KEEP_BYTES = 16 * 1024;
/** What the kept events may hold in all (bodies, headers, fields); the oldest go first. */
export const UI_MEMORY_BYTES = 16 * 1024 * 1024;

/** About what an event costs in memory: its strings (UTF-16) and a fixed overhead. */
function sizeOf(e: StoredEvent): number {
  let n = 256 + e.id.length + e.path.length + e.body.length + (e.bodyBase64?.length ?? 0) + (e.reason?.length ?? 0);
  for (const [k, v] of Object.entries(e.headers)) n += 32 + k.length + v.length;
  return 2 * n;
}

/**
 * The newest events, in memory for the pages: at most 2 × UI_KEEP and UI_MEMORY_BYTES (bodies cut
 * at UI_BODY_KEEP_BYTES; `cut` holds the events whose body was cut, read whole from the store).
 */
export class RecentEvents {
  private kept: StoredEvent[] = [];
  private bytes = 0;
  private readonly sizes = new WeakMap<StoredEvent, number>();
  private readonly cut = new WeakSet<StoredEvent>();

  constructor(private readonly store: EventStore | null) {}

  /** Seeded with the newest UI_KEEP from the end of the table (an index read, whatever the store's size). */
  async load(): Promise<void> {
    if (!this.store) return;
    for (const e of await this.store.list({ limit: UI_KEEP })) this.keep(e);
    while (this.kept.length > UI_KEEP) this.bytes -= this.sizes.get(this.kept.shift()!) ?? 0;
  }

  /** The events kept, oldest first. */
  get all(): readonly StoredEvent[] {
    return this.kept;
  }

  /** What the kept events hold in memory (about). */
  get retainedBytes(): number {
    return this.bytes;
  }

  keep(event: StoredEvent): void {
    let e = event;
    if (Buffer.byteLength(e.body) > UI_BODY_KEEP_BYTES) {
      const { bodyBase64: _exact, ...rest } = e;
      e = { ...rest, body: Buffer.from(e.body).subarray(0, UI_BODY_KEEP_BYTES).toString('utf8') };
      this.cut.add(e);
    }
    const size = sizeOf(e);
    this.sizes.set(e, size);
    this.kept.push(e);
    this.bytes += size;
    let drop = 0;
    while (this.kept.length - drop > 1 && (this.bytes > UI_MEMORY_BYTES || this.kept.length - drop > 2 * UI_KEEP))
      this.bytes -= this.sizes.get(this.kept[drop++]!) ?? 0;
    if (drop > 0) this.kept = this.kept.slice(drop);
  }

  /** An event, whole: from memory, or from the store when it is older or its body was cut in memory. */
  async find(id: string): Promise<StoredEvent | undefined> {
    const kept = this.kept.find((e) => e.id === id);
    if (kept && !this.cut.has(kept)) return kept;
    return (await this.store?.find(id)) ?? kept;
  }
}
