import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { mismatchOf, verifyBlocks, verifyFileParallel, verifyStream, type BlockResult, type Failure } from '../../src/cli/commands/verify-batch.js';
import { signCallbackRequest } from '../../src/core/callback/build.js';
import { parseJsonBody } from '../../src/core/callback/parse.js';
import { sampleCallbackFields } from '../../src/core/callback/sample.js';
import { canonicalizeCallback } from '../../src/core/signing/callback-canonical.js';
import { hmacHex } from '../../src/core/signing/callback-signature.js';

const VA = '1179000899';
const at = new Date('2026-11-22T07:07:01Z');
const dir = mkdtempSync(join(tmpdir(), 'paycli-blocks-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function capture(trxId: number, format: 'form' | 'json', url = 'https://shop.example/cb?a=1&b=2'): string {
  const s = signCallbackRequest(
    sampleCallbackFields({ status: 'berhasil', method: 'qris', channel: 'mpm', now: at, url, trxId }),
    VA,
    format,
    at,
    String(trxId),
  );
  return JSON.stringify({ headers: s.headers, body: s.body });
}

/** Authentic only through an undocumented encoding (non-ASCII left raw), with an integer beyond 2^53 that JavaScript numbers cannot hold. */
function variantCapture(): string {
  const body = '{"trx_id":9007199254740993,"status":"berhasil","buyer_name":"Ayú","url":"https://x.example/a"}';
  const sig = hmacHex(VA, canonicalizeCallback(parseJsonBody(body), { json: { escapeSlash: true, escapeUnicode: false } }));
  return JSON.stringify({ headers: { 'content-type': 'application/json', 'x-signature': sig }, body });
}

const lines = [
  capture(1, 'form'),
  '',
  capture(2, 'json', 'https://shop.example/é/ü'),
  'not json',
  capture(3, 'form').replace('berhasil', 'pending'),
  '   ',
  variantCapture(),
  JSON.stringify({ headers: {}, body: '{"a":1}', pad: 'x'.repeat(3000) }), // longer than the small blocks below
  capture(4, 'json'),
  '\t',
  capture(5, 'form'),
];

/** The blocks of a file taken by one thread (the counter is shared, so one thread takes them all), merged as verifyFileParallel does. */
function merged(path: string, size: number, blockBytes: number, portable: boolean) {
  const blocks: BlockResult[] = verifyBlocks({ path, size, va: VA, blockBytes, next: new SharedArrayBuffer(4) }, portable);
  let lines = 0;
  let valid = 0;
  let total = 0;
  const others: Failure[] = [];
  for (const b of blocks) {
    for (const o of b.others) others.push({ ...o, line: o.line + lines });
    lines += b.lines;
    valid += b.valid;
    total += b.total;
  }
  return { lines, valid, total, others };
}

describe('verifyBlocks: a file cut into blocks reads as one stream', () => {
  it.each([
    ['LF, a final line break', lines.join('\n') + '\n'],
    ['CRLF, no final line break', lines.join('\r\n')],
    ['a blank last line without a line break', lines.join('\n') + '\n  '],
  ])('%s, in blocks of every size', async (_, text) => {
    const path = join(dir, 'captures.jsonl');
    writeFileSync(path, text);
    const size = Buffer.byteLength(text);
    const stream = await verifyStream(Readable.from([Buffer.from(text)]), VA);
    expect(stream.others.map((o) => [o.line, o.kind])).toEqual([
      [4, 'malformed'],
      [5, 'mismatch'],
      [7, 'mismatch'],
      [8, 'mismatch'],
    ]);
    for (const blockBytes of [1, 2, 7, 64, 333, 1000, 4096, size - 1, size, size + 10]) {
      for (const portable of [false, true]) {
        const r = merged(path, size, blockBytes, portable);
        const where = `blocks of ${blockBytes}, portable ${portable}`;
        expect({ lines: r.lines, valid: r.valid, total: r.total }, where).toEqual({ lines: stream.lines, valid: stream.valid, total: stream.total });
        expect(
          r.others.map((o) => [o.line, o.kind]),
          where,
        ).toEqual(stream.others.map((o) => [o.line, o.kind]));
        // A mismatch keeps what its diagnosis needs: the same fields (PHP shape included) as on the stream path.
        const variants = r.others.map((o) => (o.kind === 'mismatch' ? o.variant : null));
        expect(variants, where).toEqual([null, false, true, false]);
        for (const [i, o] of r.others.entries()) {
          const s = stream.others[i]!;
          if (o.kind === 'malformed' && s.kind === 'malformed') expect(o.reason).toBe(s.reason);
          else if (o.kind === 'mismatch' && s.kind === 'mismatch') {
            const m = mismatchOf(o, VA);
            const expected = mismatchOf(s, VA);
            expect('text' in s).toBe(false);
            expect(canonicalizeCallback(m.fields), where).toBe(canonicalizeCallback(expected.fields));
            expect(m.received).toBe(expected.received);
            expect('text' in o, where).toBe(portable);
          } else throw new Error(`${where}: line ${o.line} is ${o.kind} but ${s.kind} on the stream path`);
        }
      }
    }
  });

  it('verifyFileParallel on one thread (one core) reads a large file as one stream', async () => {
    const path = join(dir, 'large.jsonl');
    const many: string[] = [];
    for (let i = 0; i < 300; i++) many.push(...lines);
    const text = many.join('\n');
    writeFileSync(path, text);
    const size = Buffer.byteLength(text);
    expect(size).toBeGreaterThan(2 * 64 * 1024); // several blocks
    const stream = await verifyStream(Readable.from([Buffer.from(text)]), VA);
    const r = await verifyFileParallel(path, size, VA, 1);
    expect({ valid: r.valid, total: r.total }).toEqual({ valid: stream.valid, total: stream.total });
    expect(r.others.map((o) => [o.line, o.kind, o.kind === 'mismatch' ? o.variant : null])).toEqual(
      stream.others.map((o) => [o.line, o.kind, o.kind === 'mismatch' ? o.line % lines.length === 7 : null]),
    );
  });

  it('an empty file has no lines', () => {
    const path = join(dir, 'empty.jsonl');
    writeFileSync(path, '');
    expect(merged(path, 0, 64, false)).toEqual({ lines: 0, valid: 0, total: 0, others: [] });
  });
});
