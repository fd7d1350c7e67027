import { timingSafeEqual } from 'node:crypto';
import { canonicalizeCallback, canonicalValueJson, gatewayKeyOrder, INTEGER_FIELDS, type CallbackFields } from '../signing/callback-canonical.js';
import { requireVa } from '../signing/callback-signature.js';
import { HMAC_BLOCK, HmacSha256, hexDigestsEqual, hmacSha256Hex, isEvenHex } from '../signing/digest.js';
import { encodeJsonString, PHP_DEFAULT } from '../signing/php-json.js';
import { decodeFormValue } from './form-value.js';
import { boundsByShape, isPlainIntegerAt, plainNames, putFormValueJson } from './form-bytes.js';
import { captureHeader } from './capture.js';
import { type BodyFormat, detectBodyFormat, parseCallbackBody } from './parse.js';

/**
 * The one home of a callback's check from its raw body: the fast path (a form body with the names
 * of a recent one, checked from its bytes) and, for anything else, the reference path
 * (parse → canonical JSON → HMAC → comparison). The listener and `verify-callback --jsonl` both
 * call `CallbackVerifier.verify`; each owns its verifier (its remembered shapes and buffers).
 */

/** The fields shown with a callback (null when the body has none, or was not read). */
export interface CallbackSummary {
  trx_id: string | null;
  status: string | null;
  via: string | null;
  channel: string | null;
  amount: string | null;
}

/**
 * `valid`: the signature is the gateway's; `mismatch`: it is not; `unsigned`: there is none to
 * check; `malformed`: the body cannot be read (`error` says why).
 */
export type CallbackVerdict = 'valid' | 'mismatch' | 'unsigned' | 'malformed';

export interface CallbackVerification {
  verdict: CallbackVerdict;
  summary: CallbackSummary;
  /** The signature that was checked ('' when there was none). */
  signature: string;
  /** The parsed fields (the reference path only: a mismatch or an unsigned body always has them). */
  fields?: CallbackFields;
  format?: BodyFormat;
  /** Why the body could not be read (verdict `malformed`). */
  error?: unknown;
}

export interface CallbackVerifierOptions {
  /**
   * Where the signature is read: the `X-Signature` header only (what the gateway sends; the
   * listener), or the header and else the body's own `signature` field (captures of other senders).
   */
  signatureFrom?: 'header' | 'header-or-body';
}

export const NO_SUMMARY: Readonly<CallbackSummary> = Object.freeze({ trx_id: null, status: null, via: null, channel: null, amount: null });

const SUMMARY_NAMES = ['trx_id', 'status', 'via', 'channel', 'amount'] as const;
const INTEGER_SET = new Set(INTEGER_FIELDS);

/** Remembered shapes per verifier: a listener sees one or two; a handful is enough. */
const MAX_SHAPES = 8;
const MAX_SHAPE_KEYS = 256;
/** The canonical bytes' buffer: its first size, and the size above which it is not kept after a body. */
const OUT_SIZE = 16 * 1024;
const OUT_KEPT = 64 * 1024;

/** How one key of the canonical form is written from a body of a shape. */
interface ShapeEntry {
  key: string;
  /** `"key":` (after a comma but for the first), escaped, as bytes (ASCII). */
  prefix: Buffer;
  /** 0: a string written as it is; 1: a typed field (canonicalValueJson); 2: missing additional_info, `[]`; 3: an integer field. */
  kind: 0 | 1 | 2 | 3;
  /** The value's place among the body's pairs (-1 for a missing additional_info). */
  index: number;
}

/** The names of a recent form body (all plain, distinct) and how its canonical form is written. */
interface Shape {
  keys: readonly string[];
  entries: readonly ShapeEntry[];
  /** Where the summary's names and `signature` are among the pairs (-1: absent). */
  summaryAt: readonly number[];
  signatureAt: number;
}

function makeShape(keys: readonly string[]): Shape {
  const present = new Set(keys);
  const entries = gatewayKeyOrder(keys).map((key, i): ShapeEntry => {
    const kind = !present.has(key) ? 2 : INTEGER_SET.has(key) ? 3 : key === 'is_escrow' || key === 'additional_info' ? 1 : 0;
    return { key, prefix: Buffer.from((i === 0 ? '' : ',') + encodeJsonString(key, PHP_DEFAULT) + ':', 'latin1'), kind, index: keys.indexOf(key) };
  });
  return { keys, entries, summaryAt: SUMMARY_NAMES.map((n) => keys.indexOf(n)), signatureAt: keys.indexOf('signature') };
}

function str(v: unknown): string | null {
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : null;
}

/**
 * Checks callbacks from their raw bodies. One per listener or batch verifier: it remembers the
 * names of recent form bodies (checked on the fast path), reuses one buffer for their canonical
 * bytes (after the HMAC key's inner pad: hashed where they lie) and keeps the last VA's pads. Not
 * shared between threads; verify is synchronous.
 */
export class CallbackVerifier {
  readonly #bodySignature: boolean;
  /** Most recently used first. */
  readonly #shapes: Shape[] = [];
  /** Made on the first fast-path check (a verifier used once never needs it). */
  #out: Buffer | undefined;
  #key: { va: string; hmac: HmacSha256 } | undefined;
  readonly #received = Buffer.alloc(32);
  /** Where the values of the body being checked lie (boundsByShape's), refilled for each body. */
  readonly #bounds: number[] = [];

  constructor(options: CallbackVerifierOptions = {}) {
    this.#bodySignature = options.signatureFrom === 'header-or-body';
  }

  /** The size of the canonical bytes' buffer now: what the verifier keeps between bodies. */
  get bufferBytes(): number {
    return this.#out?.length ?? 0;
  }

  /**
   * The verdict and summary of one callback: raw body, its headers (any case; `content-type` and
   * `x-signature` are read) and the merchant VA (missing or empty throws MissingVaError).
   */
  verify(rawBody: string, headers: Readonly<Record<string, unknown>> | undefined, va: string | undefined): CallbackVerification {
    const key = requireVa(va);
    const contentType = captureHeader(headers, 'content-type');
    const headerSignature = captureHeader(headers, 'x-signature');
    return this.#fast(rawBody, contentType, headerSignature, key) ?? this.#reference(rawBody, contentType, headerSignature, key);
  }

  /** The fast path: only a valid form body of a remembered shape; undefined for anything else. */
  #fast(body: string, contentType: string | undefined, headerSignature: string | undefined, va: string): CallbackVerification | undefined {
    if (headerSignature === undefined && !this.#bodySignature) return undefined;
    if (detectBodyFormat(body, contentType) !== 'form') return undefined;
    const found = this.#locate(body);
    if (found === undefined) return undefined;
    const { shape, bounds } = found;
    const value = (i: number): string | null | undefined => (i < 0 ? null : decodeFormValue(body.slice(bounds[2 * i], bounds[2 * i + 1])));
    // The one value the canonical form leaves out must decode too (the reference parse refuses the body otherwise).
    const bodySignature = value(shape.signatureAt);
    if (bodySignature === undefined) return undefined;
    const signature = headerSignature ?? bodySignature;
    if (signature === null || signature.trim() === '') return undefined;
    const summary = {
      trx_id: value(shape.summaryAt[0]!),
      status: value(shape.summaryAt[1]!),
      via: value(shape.summaryAt[2]!),
      channel: value(shape.summaryAt[3]!),
      amount: value(shape.summaryAt[4]!),
    };
    if (
      summary.trx_id === undefined ||
      summary.status === undefined ||
      summary.via === undefined ||
      summary.channel === undefined ||
      summary.amount === undefined
    )
      return undefined;
    const hmac = this.#hmacOf(va);
    const end = this.#canonicalBytes(shape, body, bounds, hmac);
    if (end === undefined || !this.#hmacMatches(hmac, end, signature)) return undefined;
    return { verdict: 'valid', summary: summary as CallbackSummary, signature, format: 'form' };
  }

  /** The reference path: parse, canonical JSON, HMAC, comparison. Learns the shape of a form body. */
  #reference(body: string, contentType: string | undefined, headerSignature: string | undefined, va: string): CallbackVerification {
    let fields: CallbackFields;
    let format: BodyFormat;
    try {
      ({ fields, format } = parseCallbackBody(body, contentType));
    } catch (error) {
      // MalformedPayloadError, but also whatever else a hostile body provokes (RangeError, …).
      return { verdict: 'malformed', summary: { ...NO_SUMMARY }, signature: '', error };
    }
    if (format === 'form') this.#learn(body);
    const summary = { trx_id: str(fields.trx_id), status: str(fields.status), via: str(fields.via), channel: str(fields.channel), amount: str(fields.amount) };
    const signature = headerSignature ?? (this.#bodySignature && typeof fields.signature === 'string' ? fields.signature : '');
    if (signature.trim() === '') return { verdict: 'unsigned', summary, signature, fields, format };
    const valid = hexDigestsEqual(hmacSha256Hex(va, canonicalizeCallback(fields)), signature);
    return { verdict: valid ? 'valid' : 'mismatch', summary, signature, fields, format };
  }

  /** The remembered shape a body has, and where its values lie (the shape moves to the front). */
  #locate(body: string): { shape: Shape; bounds: number[] } | undefined {
    const shapes = this.#shapes;
    for (let i = 0; i < shapes.length; i++) {
      const shape = shapes[i]!;
      const bounds = boundsByShape(body, shape.keys, this.#bounds);
      if (bounds === undefined) continue;
      if (i > 0) shapes.unshift(shapes.splice(i, 1)[0]!);
      return { shape, bounds };
    }
    return undefined;
  }

  /** Remembers the names of a form body the reference path read, when they are all plain and distinct. */
  #learn(body: string): void {
    const names = plainNames(body, MAX_SHAPE_KEYS);
    if (names === undefined) return;
    const shapes = this.#shapes;
    for (const known of shapes) if (known.keys.length === names.length && known.keys.every((k, i) => k === names[i])) return;
    shapes.unshift(makeShape(names));
    if (shapes.length > MAX_SHAPES) shapes.pop();
  }

  /** The buffer with room for `extra` more bytes after the first `used`. */
  #room(used: number, extra: number): Buffer {
    const out = (this.#out ??= Buffer.allocUnsafe(OUT_SIZE));
    if (used + extra <= out.length) return out;
    const bigger = Buffer.allocUnsafe(Math.max(2 * out.length, used + extra));
    out.copy(bigger, 0, 0, used);
    return (this.#out = bigger);
  }

  /** The HMAC pads of `va` (the last VA's are kept). */
  #hmacOf(va: string): HmacSha256 {
    if (this.#key?.va !== va) this.#key = { va, hmac: new HmacSha256(Buffer.from(va, 'utf8')) };
    return this.#key.hmac;
  }

  /**
   * The bytes of `canonicalizeCallback(parse(body))` for a body of a remembered shape (the text is
   * ASCII), written into the buffer after `hmac`'s inner pad: plain values decoded and escaped
   * straight into it, the others through the reference's canonicalValueJson. Returns where they end
   * (valid until the next call); undefined when a value does not decode.
   */
  #canonicalBytes(shape: Shape, body: string, bounds: readonly number[], hmac: HmacSha256): number | undefined {
    // A buffer grown for one large body is not kept for the life of the listener or batch.
    if (this.#out !== undefined && this.#out.length > OUT_KEPT) this.#out = Buffer.allocUnsafe(OUT_SIZE);
    let out = this.#room(0, HMAC_BLOCK + 1);
    hmac.writeInnerPad(out);
    let n = HMAC_BLOCK;
    out[n++] = 0x7b; // {
    for (const e of shape.entries) {
      const start = e.kind === 2 ? 0 : bounds[2 * e.index]!;
      const end = e.kind === 2 ? 0 : bounds[2 * e.index + 1]!;
      // A value's JSON takes at most 6 bytes per character of its raw text (\u00XX), plus its quotes.
      out = this.#room(n, e.prefix.length + 6 * (end - start) + 8);
      out.set(e.prefix, n);
      n += e.prefix.length;
      if (e.kind === 2) {
        out[n++] = 0x5b; // [
        out[n++] = 0x5d; // ]
        continue;
      }
      if (e.kind === 0) {
        const m = putFormValueJson(out, n, body, start, end);
        if (m >= 0) {
          n = m;
          continue;
        }
      } else if (e.kind === 3 && isPlainIntegerAt(body, start, end)) {
        for (let j = start; j < end; j++) out[n++] = body.charCodeAt(j);
        continue;
      }
      const raw = decodeFormValue(body.slice(start, end));
      if (raw === undefined) return undefined;
      const piece = canonicalValueJson(e.key, raw);
      out = this.#room(n, piece.length + 1);
      n += out.write(piece, n, 'latin1');
    }
    out = this.#room(n, 1);
    out[n++] = 0x7d; // }
    return n;
  }

  /** Whether a received hex signature is the HMAC of the canonical bytes (the buffer up to `end`), compared in constant time. */
  #hmacMatches(hmac: HmacSha256, end: number, received: string): boolean {
    const expected = hmac.digest(this.#out!, end);
    const b = received.trim();
    if (b.length !== 64 || !isEvenHex(b)) return false;
    this.#received.write(b, 'hex');
    return timingSafeEqual(expected, this.#received);
  }
}
