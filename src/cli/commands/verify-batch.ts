import { availableParallelism } from 'node:os';
import type { Readable } from 'node:stream';
import { Worker } from 'node:worker_threads';
import { closeSync, openSync, readSync } from 'node:fs';
import { MalformedPayloadError } from '../../core/callback/parse.js';
import { checkCallback } from '../../core/callback/check.js';
import { CallbackVerifier, type CallbackVerification } from '../../core/callback/verifier.js';
import type { CallbackFields } from '../../core/signing/callback-canonical.js';

/** What the fast path makes of one JSONL line. Mismatches go on to diagnosis. */
export type LineOutcome =
  | { line: number; kind: 'valid' }
  | { line: number; kind: 'malformed'; reason: string }
  | { line: number; kind: 'mismatch'; fields: CallbackFields; received: string };

/** A verifier for the batch: a capture's signature is its X-Signature header, else its body's `signature` field. */
export function batchVerifier(): CallbackVerifier {
  return new CallbackVerifier({ signatureFrom: 'header-or-body' });
}

/**
 * Checks one `{headers, body}` line with the batch's verifier (the listener's check: the fast path
 * for a form body of a recent shape, else parse, canonical form and one HMAC).
 */
export function verifyLine(text: string, line: number, va: string, verifier: CallbackVerifier): LineOutcome {
  let v: CallbackVerification;
  try {
    const obj = JSON.parse(text) as { headers?: Record<string, unknown>; body?: unknown };
    if (obj === null || typeof obj !== 'object' || typeof obj.body !== 'string') throw new MalformedPayloadError('the line is not a {headers, body} object');
    v = verifier.verify(obj.body, obj.headers, va);
  } catch (err) {
    return { line, kind: 'malformed', reason: err instanceof SyntaxError ? `not JSON: ${err.message}` : (err as Error).message };
  }
  if (v.verdict === 'valid') return { line, kind: 'valid' };
  if (v.verdict === 'malformed') return { line, kind: 'malformed', reason: v.error instanceof Error ? v.error.message : String(v.error) };
  return { line, kind: 'mismatch', fields: v.fields!, received: v.signature };
}

/**
 * A line that did not verify, as the batch's summary takes it. A mismatch found on a worker thread
 * comes as its text instead of its fields (which would lose the PHP shape the parsers attach, a
 * symbol property that structured cloning drops); `mismatchOf` parses it again where it is needed.
 * `variant`, when known, is the verdict of `checkCallback` without a diagnosis: whether one of the
 * gateway's undocumented encodings explains the mismatch.
 */
export type Failure =
  | { line: number; kind: 'malformed'; reason: string }
  | { line: number; kind: 'mismatch'; fields: CallbackFields; received: string; variant?: boolean }
  | { line: number; kind: 'mismatch'; text: string; variant: boolean };

export interface BatchResult {
  /** Valid lines are only counted; the other outcomes are kept in line order. */
  valid: number;
  total: number;
  others: Failure[];
}

/** The fields and received signature of a mismatch (parsed again from its text when it came from a worker). */
export function mismatchOf(f: Extract<Failure, { kind: 'mismatch' }>, va: string): { fields: CallbackFields; received: string } {
  if (!('text' in f)) return f;
  const o = verifyLine(f.text, f.line, va, batchVerifier());
  if (o.kind !== 'mismatch') throw new Error(`line ${f.line} verified differently on the main thread (${o.kind})`);
  return o;
}

/** Whether an undocumented encoding of the gateway explains a mismatch (checkCallback without a diagnosis). */
export function isVariant(fields: CallbackFields, received: string, va: string): boolean {
  return checkCallback(fields, received, va, { diagnose: false, otherKeys: [] }).verdict === 'valid-variant';
}

/**
 * Verifies the lines of one stream here, counting lines from `firstLine`. The lines of each chunk
 * are checked in a plain loop (an async generator would cost a promise per line).
 */
export async function verifyStream(input: Readable, va: string, firstLine = 1): Promise<BatchResult & { lines: number }> {
  const result = { valid: 0, total: 0, others: [] as Failure[], lines: 0 };
  const verifier = batchVerifier();
  const take = (raw: string) => {
    const line = firstLine + result.lines++;
    const text = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (text.trim() === '') return;
    result.total++;
    const o = verifyLine(text, line, va, verifier);
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

// ── Large files: blocks shared out between threads ───────────────────────────────────────────────

/**
 * A large file is cut into blocks of this many bytes; the threads (the main thread and the worker
 * threads) take the next block from a shared counter until none is left, so a thread that starts
 * later (a worker's start-up) or runs slower (a busy core) simply takes fewer blocks. 64 KiB: the
 * text of a block then fits V8's young generation (a string over 128 KiB goes to the large-object
 * space and brings full collections: 512 KiB blocks cost ~4% more CPU).
 */
export const BLOCK_BYTES = 64 * 1024;

/** The outcome of one block: its lines are numbered from 1 within it, made global afterwards. */
export interface BlockResult {
  block: number;
  /** Lines in the block, blank ones included. */
  lines: number;
  valid: number;
  total: number;
  others: Failure[];
}

/** What a worker thread of the batch is given (workerData). */
export interface BatchWorkerData {
  path: string;
  size: number;
  va: string;
  blockBytes: number;
  /** An Int32Array's buffer: [0] is the next block to take. */
  next: SharedArrayBuffer;
}

/** Reads `length` bytes at `position` (fewer only at the end of the file). */
function readFully(fd: number, buf: Buffer, length: number, position: number): number {
  let got = 0;
  while (got < length) {
    const n = readSync(fd, buf, got, length - got, position + got);
    if (n === 0) break;
    got += n;
  }
  return got;
}

/**
 * The text of the lines that start in block `block`: from the first line start at or after its
 * first byte to the end of the last line that starts before its end (which may reach into the next
 * blocks). Undefined when no line starts in it (one long line covers it). A line start is byte 0 or
 * the byte after a `\n`; a `\n` never occurs inside a UTF-8 sequence, so each text decodes alone.
 */
function blockText(fd: number, size: number, blockBytes: number, block: number, buf: Buffer): string | undefined {
  const lo = block * blockBytes;
  const hi = Math.min(lo + blockBytes, size);
  // One byte before the block tells whether a line starts at its first byte.
  const from = block === 0 ? 0 : lo - 1;
  const got = readFully(fd, buf, hi - from, from);
  let start = 0;
  if (block > 0) {
    const nl = buf.subarray(0, got).indexOf(10);
    if (nl < 0) return undefined;
    start = nl + 1;
  }
  if (start >= got) return undefined; // the first line start is in the next block (or past the end of a shorter file)
  if (got < hi - from || hi === size || buf[got - 1] === 10) return buf.toString('utf8', start, got);
  // The last line goes on past the block: read up to its line break (or the size the file had).
  const parts: Buffer[] = [buf.subarray(start, got)];
  let pos = hi;
  const more = Buffer.allocUnsafe(64 * 1024);
  while (pos < size) {
    const n = readSync(fd, more, 0, Math.min(more.length, size - pos), pos);
    if (n === 0) break;
    const nl = more.subarray(0, n).indexOf(10);
    parts.push(Buffer.from(more.subarray(0, nl < 0 ? n : nl + 1)));
    if (nl >= 0) break;
    pos += n;
  }
  return Buffer.concat(parts).toString('utf8');
}

/**
 * Verifies the lines of one block's text (numbered from 1). A mismatch is classified here with
 * `checkCallback` without a diagnosis (the summary needs that verdict for every failure past the
 * listed ones); `portable` keeps a mismatch as its text, to be posted from a worker thread.
 */
function verifyBlock(text: string, block: number, va: string, portable: boolean, verifier: CallbackVerifier): BlockResult {
  const r: BlockResult = { block, lines: 0, valid: 0, total: 0, others: [] };
  const n = text.length;
  let start = 0;
  while (start < n) {
    let nl = text.indexOf('\n', start);
    if (nl < 0) nl = n;
    const line = ++r.lines;
    const end = nl > start && text.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
    const raw = text.slice(start, end);
    start = nl + 1;
    // A capture starts with `{`; anything else may be a blank line.
    if (raw.charCodeAt(0) !== 123 && raw.trim() === '') continue;
    r.total++;
    const o = verifyLine(raw, line, va, verifier);
    if (o.kind === 'valid') r.valid++;
    else if (o.kind === 'malformed') r.others.push(o);
    else {
      const variant = isVariant(o.fields, o.received, va);
      r.others.push(portable ? { line, kind: 'mismatch', text: raw, variant } : { ...o, variant });
    }
  }
  return r;
}

/** Takes blocks from the shared counter and verifies them until none is left (main thread and workers alike). */
export function verifyBlocks(data: BatchWorkerData, portable: boolean): BlockResult[] {
  const next = new Int32Array(data.next);
  const results: BlockResult[] = [];
  const fd = openSync(data.path, 'r');
  try {
    const buf = Buffer.allocUnsafe(data.blockBytes + 1);
    const verifier = batchVerifier();
    for (;;) {
      const block = Atomics.add(next, 0, 1);
      if (block * data.blockBytes >= data.size) break;
      const text = blockText(fd, data.size, data.blockBytes, block, buf);
      if (text !== undefined) results.push(verifyBlock(text, block, data.va, portable, verifier));
    }
  } finally {
    closeSync(fd);
  }
  return results;
}

/**
 * Verifies a JSONL file of `size` bytes on `threads` threads: this one and `threads - 1` worker
 * threads (none for 1), started first, which share out its blocks (no line is copied between
 * threads); line numbers are made global afterwards from each block's line count. Only the first
 * `size` bytes are read, even if the file grows meanwhile.
 */
export async function verifyFileParallel(path: string, size: number, va: string, threads: number): Promise<BatchResult> {
  const data: BatchWorkerData = { path, size, va, blockBytes: BLOCK_BYTES, next: new SharedArrayBuffer(4) };
  const started: Worker[] = [];
  const workers: Promise<BlockResult[]>[] = [];
  for (let i = 1; i < threads; i++) {
    workers.push(
      new Promise<BlockResult[]>((resolve, reject) => {
        const w = new Worker(new URL('./verify-batch-worker.js', import.meta.url), { workerData: data });
        started.push(w);
        let done = false;
        w.once('message', (r: BlockResult[]) => {
          done = true;
          resolve(r);
          void w.terminate();
        });
        w.once('error', reject);
        w.once('exit', (code) => {
          if (!done) reject(new Error(`a verify-callback worker thread stopped (exit code ${code}) before it reported`));
        });
      }),
    );
  }
  // A worker that fails is reported once this thread is done with its own blocks.
  const all = Promise.all(workers);
  let mine: BlockResult[];
  try {
    mine = verifyBlocks(data, false);
  } catch (err) {
    all.catch(() => undefined);
    for (const w of started) void w.terminate();
    throw err;
  }
  const blocks = mine.concat(...(await all));
  blocks.sort((a, b) => a.block - b.block);
  const result: BatchResult = { valid: 0, total: 0, others: [] };
  let offset = 0;
  for (const b of blocks) {
    result.valid += b.valid;
    result.total += b.total;
    for (const o of b.others) result.others.push({ ...o, line: o.line + offset });
    offset += b.lines;
  }
  return result;
}

/**
 * Files from this size on are read in blocks by verifyFileParallel (synchronous reads, ~3-10% less
 * CPU than a stream), on as many threads as workersFor gives; smaller ones and stdin as a stream.
 */
export const BLOCKS_FROM_BYTES = 4 * 1024 * 1024;

/** Threads worth using for an input of this size (this one alone for small or unknown sizes, or one core). */
export function workersFor(bytes: number | undefined): number {
  if (bytes === undefined || bytes < BLOCKS_FROM_BYTES) return 1;
  return Math.min(4, availableParallelism());
}
