import { availableParallelism } from 'node:os';
import type { Readable } from 'node:stream';
import { Worker } from 'node:worker_threads';
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { captureHeader, MalformedPayloadError, parseCallbackBody } from '../../core/callback/parse.js';
import { canonicalizeCallback, type CallbackFields } from '../../core/signing/callback-canonical.js';
import { hmacHex, signaturesEqual } from '../../core/signing/callback-signature.js';

/** What the fast path makes of one JSONL line. Mismatches go on to diagnosis. */
export type LineOutcome =
  | { line: number; kind: 'valid' }
  | { line: number; kind: 'malformed'; reason: string }
  | { line: number; kind: 'mismatch'; fields: CallbackFields; received: string };

/** Parses one `{headers, body}` line and checks its signature with one canonicalisation and one HMAC. */
export function verifyLine(text: string, line: number, va: string): LineOutcome {
  let fields: CallbackFields;
  let headerSignature: string | undefined;
  try {
    const obj = JSON.parse(text) as { headers?: Record<string, unknown>; body?: unknown };
    if (obj === null || typeof obj !== 'object' || typeof obj.body !== 'string') throw new MalformedPayloadError('the line is not a {headers, body} object');
    // Only two headers matter here; reading them directly keeps the per-line cost down.
    fields = parseCallbackBody(obj.body, captureHeader(obj.headers, 'content-type')).fields;
    headerSignature = captureHeader(obj.headers, 'x-signature');
  } catch (err) {
    return { line, kind: 'malformed', reason: err instanceof SyntaxError ? `not JSON: ${err.message}` : (err as Error).message };
  }
  const received = headerSignature ?? (typeof fields.signature === 'string' ? fields.signature : '');
  if (received && signaturesEqual(hmacHex(va, canonicalizeCallback(fields)), received)) return { line, kind: 'valid' };
  return { line, kind: 'mismatch', fields, received };
}

export interface BatchResult {
  /** Valid lines are only counted; the other outcomes are kept in line order. */
  valid: number;
  total: number;
  others: Exclude<LineOutcome, { kind: 'valid' }>[];
}

/**
 * Verifies the lines of one stream here, counting lines from `firstLine`. The lines of each chunk
 * are checked in a plain loop (an async generator would cost a promise per line).
 */
export async function verifyStream(input: Readable, va: string, firstLine = 1): Promise<BatchResult & { lines: number }> {
  const result = { valid: 0, total: 0, others: [] as BatchResult['others'], lines: 0 };
  const take = (raw: string) => {
    const line = firstLine + result.lines++;
    const text = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (text.trim() === '') return;
    result.total++;
    const o = verifyLine(text, line, va);
    if (o.kind === 'valid') result.valid++;
    else result.others.push(o);
  };
  input.setEncoding('utf8');
  let rest = '';
  for await (const chunk of input as AsyncIterable<string>) {
    const text = rest + chunk;
    let start = 0;
    for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
      take(text.slice(start, nl));
      start = nl + 1;
    }
    rest = text.slice(start);
  }
  if (rest !== '') take(rest);
  return result;
}

/** Byte offsets that split a file into `parts` ranges at line boundaries. */
async function lineAlignedRanges(path: string, size: number, parts: number): Promise<[number, number][]> {
  const fh = await open(path, 'r');
  try {
    const cuts = [0];
    const buf = Buffer.alloc(64 * 1024);
    for (let i = 1; i < parts; i++) {
      let pos = Math.max(cuts[cuts.length - 1]!, Math.floor((size * i) / parts));
      let found = -1;
      while (found < 0 && pos < size) {
        const { bytesRead } = await fh.read(buf, 0, buf.length, pos);
        if (bytesRead === 0) break;
        const nl = buf.subarray(0, bytesRead).indexOf(10);
        if (nl >= 0) found = pos + nl + 1;
        else pos += bytesRead;
      }
      cuts.push(found < 0 ? size : found);
    }
    cuts.push(size);
    return cuts.slice(0, -1).map((c, i) => [c, cuts[i + 1]!] as [number, number]).filter(([a, b]) => b > a);
  } finally {
    await fh.close();
  }
}

/**
 * Verifies a JSONL file on worker threads: each reads and verifies its own line-aligned byte range,
 * so no line is copied between threads; line numbers are made global afterwards.
 */
export async function verifyFileParallel(path: string, size: number, va: string, workers: number): Promise<BatchResult> {
  const ranges = await lineAlignedRanges(path, size, workers);
  const parts = await Promise.all(
    ranges.map((range, i) => {
      const [start, end] = range;
      // The first range is read here, on the main thread, which would otherwise only wait: one
      // worker's start-up (loading and compiling its module) fewer before the work begins.
      if (i === 0) return verifyStream(createReadStream(path, { start, end: end - 1 }), va, 1);
      return new Promise<BatchResult & { lines: number }>((resolve, reject) => {
        const w = new Worker(new URL('./verify-batch-worker.js', import.meta.url), { workerData: { va, path, start, end } });
        w.once('message', (r: BatchResult & { lines: number }) => {
          resolve(r);
          void w.terminate();
        });
        w.once('error', reject);
      });
    }),
  );
  const result: BatchResult = { valid: 0, total: 0, others: [] };
  let offset = 0;
  for (const p of parts) {
    result.valid += p.valid;
    result.total += p.total;
    for (const o of p.others) result.others.push({ ...o, line: o.line + offset });
    offset += p.lines;
  }
  return result;
}

/** Worker threads worth starting for an input of this size (none for small or unknown sizes). */
export function workersFor(bytes: number | undefined): number {
  if (bytes === undefined || bytes < 4 * 1024 * 1024) return 1;
  return Math.min(4, availableParallelism());
}
