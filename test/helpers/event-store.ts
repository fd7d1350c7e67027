import type { EventStore, StoredEvent } from '../../src/core/listener/event-store.js';

/** Appends one event through the listener's group write: resolves once it committed, rejects with the store's error. */
export function appended(store: EventStore, event: StoredEvent): Promise<void> {
  return new Promise((resolve, reject) => store.appendWith(event, (err) => (err ? reject(err) : resolve())));
}

/** Appends events through the listener's group write, `group` at a time (one transaction per group, as under load). */
export async function fillStore(store: EventStore, events: StoredEvent[], group: number): Promise<void> {
  await store.prepare();
  for (let i = 0; i < events.length; i += group) await Promise.all(events.slice(i, i + group).map((e) => appended(store, e)));
}
