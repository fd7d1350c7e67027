import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { verifyStream } from '../../src/cli/commands/verify-batch.js';
import { signCallbackRequest } from '../../src/core/callback/build.js';
import { sampleCallbackFields } from '../../src/core/callback/sample.js';

const VA = '1179000899';
const at = new Date('2026-11-22T07:07:01Z');
function capture(trxId: number, format: 'form' | 'json'): string {
  const s = signCallbackRequest(
    sampleCallbackFields({ status: 'berhasil', method: 'qris', channel: 'mpm', now: at, url: 'https://shop.example/cb?a=1&b=2', trxId }),
    VA,
    format,
    at,
    String(trxId),
  );
  return JSON.stringify({ headers: s.headers, body: s.body });
}

describe('verifyStream reads lines across chunks', () => {
  const lines = [capture(1, 'form'), '', capture(2, 'json'), 'not json', capture(3, 'form').replace('berhasil', 'pending'), '   ', capture(4, 'form')];

  it.each([
    ['LF, a final line break', lines.join('\n') + '\n'],
    ['CRLF, no final line break', lines.join('\r\n')],
  ])('%s, in chunks of every size', async (_, text) => {
    for (const size of [1, 7, 64, 1000, text.length]) {
      const chunks: string[] = [];
      for (let i = 0; i < text.length; i += size) chunks.push(text.slice(i, i + size));
      const r = await verifyStream(Readable.from(chunks.map((c) => Buffer.from(c))), VA, 10);
      expect(r.total, `chunks of ${size}`).toBe(5);
      expect(r.valid).toBe(3);
      expect(r.lines).toBe(7);
      expect(r.others.map((o) => [o.line, o.kind])).toEqual([
        [13, 'malformed'],
        [14, 'mismatch'],
      ]);
    }
  });
});
