import type { Readable } from 'node:stream';

/**
 * How much of a peer's answer paycli reads by default: a callback handler's, a forward target's or a
 * replay target's answer is shown (its first KiB) and its status used, never more; a handler that
 * answers gigabytes costs this much memory, not gigabytes.
 */
export const ANSWER_PREFIX_BYTES = 64 * 1024;

/**
 * The largest answer paycli reads whole because it must parse it (a gateway's JSON, the emulator's
 * admin API): a larger one is an error (AnswerTooLarge), never read on.
 */
export const WHOLE_ANSWER_MAX_BYTES = 64 * 1024 * 1024;

/** The first bytes of a stream, and whether it had more (then the rest was not read). */
export interface Prefix {
  bytes: Buffer;
  /** The stream had more than `limit` bytes; reading stopped at the limit. */
  truncated: boolean;
}

/** An answer went over the limit of a reader that must have it whole (an API answer). */
export class AnswerTooLarge extends Error {
  readonly code = 'EANSWERTOOLARGE';
  constructor(readonly limit: number) {
    super(`the answer is over ${limit} bytes; paycli reads no more`);
  }
}

/**
 * The one bounded reader of answer bodies: collects at most `limit` bytes of `stream`. When it has
 * more, reading stops at once and the stream is destroyed (the peer cannot make paycli read, or keep,
 * more): `over: 'truncate'` resolves with the prefix and `truncated: true`, `over: 'fail'` rejects with
 * AnswerTooLarge. Rejects with the stream's error, or when it closes before its end (a truncated answer
 * from the peer is never taken for a complete one).
 */
export function readPrefix(stream: Readable, limit: number, over: 'truncate' | 'fail' = 'truncate'): Promise<Prefix> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const done = (fn: () => void) => {
      if (settled) return;
      settled = true;
      stream.off('data', onData);
      fn();
    };
    const onData = (chunk: Buffer | string) => {
      const c = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      if (size + c.length > limit) {
        const room = limit - size;
        if (room > 0) chunks.push(c.subarray(0, room));
        size = limit;
        done(() => {
          stream.destroy();
          if (over === 'fail') reject(new AnswerTooLarge(limit));
          else resolve({ bytes: Buffer.concat(chunks, size), truncated: true });
        });
        return;
      }
      size += c.length;
      chunks.push(c);
    };
    stream.on('data', onData);
    stream.on('end', () => done(() => resolve({ bytes: Buffer.concat(chunks, size), truncated: false })));
    stream.on('error', (err) => done(() => reject(err)));
    stream.on('close', () => done(() => reject(Object.assign(new Error('the connection closed before the answer was complete'), { code: 'ECONNRESET' }))));
  });
}
