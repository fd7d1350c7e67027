// The turns the WAL checkpointer and the listener's writer thread take (src/core/wal-hold.ts): a hold
// waits for the writer to leave its transaction, a writer waits while held, and every wait is bounded.
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { enterWrite, holdWriter, leaveWrite, releaseWriter, SLOTS, walHoldBuffer } from '../../src/core/wal-hold.js';

const workers: Worker[] = [];
afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.terminate()));
});

/** A worker thread running `body` (a function's text, called with the slots, a flag array and its port). */
function thread(buffer: SharedArrayBuffer, flags: SharedArrayBuffer, body: string): Worker {
  const source = `
    const { parentPort, workerData } = require('node:worker_threads');
    const enterWrite = ${enterWrite.toString()};
    const leaveWrite = ${leaveWrite.toString()};
    (${body})(new Int32Array(workerData.buffer), new Int32Array(workerData.flags), parentPort);
  `;
  const w = new Worker(source, { eval: true, workerData: { buffer, flags } });
  workers.push(w);
  return w;
}

const message = (w: Worker) => new Promise<unknown>((resolve) => w.once('message', resolve));

describe('holding the writer thread', () => {
  it('holds a writer that is not in a transaction at once, and lets it go', () => {
    const slots = new Int32Array(walHoldBuffer());
    expect(holdWriter(slots, 1000)).toBe(true);
    expect(slots[SLOTS.HOLD]).toBe(1);
    releaseWriter(slots);
    expect(slots[SLOTS.HOLD]).toBe(0);
  });

  it('gives up (and holds nothing) when the writer stays in its transaction', () => {
    const slots = new Int32Array(walHoldBuffer());
    enterWrite(slots, 1000, 0);
    expect(holdWriter(slots, 20)).toBe(false);
    expect(slots[SLOTS.HOLD]).toBe(0);
    expect(slots[SLOTS.WRITING]).toBe(1);
    leaveWrite(slots);
    expect(slots[SLOTS.WRITING]).toBe(0);
  });

  it('lets a held writer go on by itself once its wait is over', () => {
    const slots = new Int32Array(walHoldBuffer());
    expect(holdWriter(slots, 1000)).toBe(true);
    enterWrite(slots, 20, 0); // nobody releases it
    expect(slots[SLOTS.WRITING]).toBe(1);
  });

  it('waits out a stuck hold once, not before every transaction, and waits for the next hold again', () => {
    const slots = new Int32Array(walHoldBuffer());
    expect(holdWriter(slots, 1000)).toBe(true); // never released: a pass stuck in a sync
    const stuck = enterWrite(slots, 20, 0);
    expect(stuck).toBe(slots[SLOTS.GENERATION]);
    leaveWrite(slots);
    // The same hold: no wait at all (a minute's would time the test out).
    expect(enterWrite(slots, 60_000, stuck)).toBe(stuck);
    leaveWrite(slots);
    releaseWriter(slots);
    expect(holdWriter(slots, 1000)).toBe(true);
    // A new hold is waited for again (and waited out: nobody releases it here either).
    expect(enterWrite(slots, 20, stuck)).toBe(stuck + 1);
  });

  it('keeps a writer out of its next transaction until the hold ends', async () => {
    const buffer = walHoldBuffer();
    const flags = new SharedArrayBuffer(4);
    const slots = new Int32Array(buffer);
    expect(holdWriter(slots, 1000)).toBe(true);
    const w = thread(
      buffer,
      flags,
      `(slots, flags, port) => {
        port.postMessage('started');
        enterWrite(slots, 60000, 0);
        Atomics.store(flags, 0, 1);
        port.postMessage('entered');
      }`,
    );
    const entered = new Promise((resolve) => w.on('message', (m) => m === 'entered' && resolve(m)));
    expect(await message(w)).toBe('started');
    await new Promise((r) => setTimeout(r, 100));
    expect(Atomics.load(new Int32Array(flags), 0)).toBe(0); // still waiting
    releaseWriter(slots);
    await entered;
    expect(slots[SLOTS.WRITING]).toBe(1);
  });

  it('waits for a writer inside its transaction to leave it before holding', async () => {
    const buffer = walHoldBuffer();
    const flags = new SharedArrayBuffer(4);
    const w = thread(
      buffer,
      flags,
      `(slots, flags, port) => {
        enterWrite(slots, 60000, 0);
        port.postMessage('in');
        setTimeout(() => {
          Atomics.store(flags, 0, 1);
          leaveWrite(slots);
        }, 100);
      }`,
    );
    expect(await message(w)).toBe('in');
    const slots = new Int32Array(buffer);
    expect(holdWriter(slots, 60000)).toBe(true);
    // Held only after the writer said it was done.
    expect(Atomics.load(new Int32Array(flags), 0)).toBe(1);
    releaseWriter(slots);
  });
});
