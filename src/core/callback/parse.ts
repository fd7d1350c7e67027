import { UsageError } from '../errors.js';
import type { CallbackFields, CallbackValue } from '../signing/callback-canonical.js';
import { attachPhpShape, isPhpIntKey } from '../signing/php-values.js';
import { decodeFormValue } from './form-value.js';
import { readPhpJsonObject, scanJson } from './php-json-reader.js';

export { decodeFormValue } from './form-value.js';

/** A callback body or capture that cannot be read. Exit 2 in the CLI; 400 in the listener. */
export class MalformedPayloadError extends UsageError {
  constructor(message: string, hint?: string) {
    super(message, { hint, code: 'ERR_MALFORMED_PAYLOAD' });
    this.name = 'MalformedPayloadError';
  }
}

export type BodyFormat = 'form' | 'json';

/** A name or value decoded (decodeFormValue); a malformed escape is an error naming the pair. */
function decodeComponent(text: string, pair: number, part: 'name' | 'value'): string {
  const decoded = decodeFormValue(text);
  if (decoded !== undefined) return decoded;
  const plus = text.replaceAll('+', ' ');
  const bad = /%(?![0-9a-fA-F]{2})|%[0-9a-fA-F]{2}/.exec(plus);
  throw new MalformedPayloadError(`invalid percent-encoding in the ${part} of pair ${pair}${bad ? ` near "${plus.slice(bad.index, bad.index + 6)}"` : ''}`);
}

/** PHP's `max_input_vars`: parse_str reads this many pairs and ignores the rest. */
export const FORM_MAX_PAIRS = 1000;
/** PHP's `max_input_nesting_level`: a name nested deeper is dropped with its whole variable. */
export const FORM_MAX_NESTING = 64;
/** Containers nested deeper than this are refused, as PHP's `json_decode` (default depth 512) does. */
export const JSON_MAX_NESTING = 511;

/** A PHP array while it is being built: keys in insertion order, and the next index `[]` takes. */
class PhpArray {
  readonly map = new Map<string, string | PhpArray>();
  next: bigint | undefined;

  /** Sets `key` (`null` appends); false when PHP cannot append (the next index is taken at 2^63 − 1). */
  set(key: string | null, value: string | PhpArray): boolean {
    if (key === null) {
      const k = this.next ?? 0n;
      if (this.map.has(k.toString())) return false;
      this.map.set(k.toString(), value);
      this.next = k < INT64_MAX ? k + 1n : INT64_MAX;
      return true;
    }
    if (isPhpIntKey(key)) {
      const k = BigInt(key);
      if (this.next === undefined || k >= this.next) this.next = k < INT64_MAX ? k + 1n : INT64_MAX;
    }
    this.map.set(key, value);
    return true;
  }

  /** The array at `key` (created, or replacing a plain value); `null` appends a new one (null when it cannot). */
  child(key: string | null): PhpArray | null {
    const current = key === null ? undefined : this.map.get(key);
    if (current instanceof PhpArray) return current;
    const created = new PhpArray();
    return this.set(key, created) ? created : null;
  }
}

const INT64_MAX = 9223372036854775807n;

/** Turns a finished PHP array into a JavaScript list (keys 0, 1, 2, … in order) or an object that remembers PHP's key order. */
function fromPhpArray(a: PhpArray): CallbackValue {
  const keys = [...a.map.keys()];
  if (keys.every((k, i) => k === String(i))) return keys.map((k) => materialize(a.map.get(k)!));
  const obj = Object.create(null) as Record<string, CallbackValue>;
  for (const k of keys) obj[k] = materialize(a.map.get(k)!);
  const enumerated = Object.keys(obj);
  if (enumerated.some((k, i) => k !== keys[i])) attachPhpShape(obj, { order: keys });
  return obj;
}

function materialize(v: string | PhpArray): CallbackValue {
  return typeof v === 'string' ? v : fromPhpArray(v);
}

/**
 * Registers one decoded pair as PHP's parse_str does (php_register_variable_ex): leading spaces
 * of the name dropped, `.` and space before the first `[` turned into `_`, `a[b][]` nesting, a
 * `[` without `]` turned into `_`, text after a `]` ignored, too deep a nesting drops the variable.
 */
function registerPhpVariable(fields: Record<string, string | PhpArray>, rawName: string, value: string): void {
  let name = rawName;
  const nul = name.indexOf('\0');
  if (nul >= 0) name = name.slice(0, nul); // PHP reads the name as a C string
  if (name.charCodeAt(0) === 32) name = name.replace(/^ +/, '');
  const open = name.indexOf('[');
  let base = open < 0 ? name : name.slice(0, open);
  if (base.indexOf(' ') >= 0 || base.indexOf('.') >= 0) base = base.replace(/[ .]/g, '_');
  if (base === '') return;
  if (open < 0) {
    fields[base] = value;
    return;
  }
  const indices: (string | null)[] = [];
  let pos = open;
  for (let level = 1; ; level++) {
    if (level > FORM_MAX_NESTING) {
      delete fields[base];
      return;
    }
    const start = pos + 1;
    let close: number;
    if (name.charCodeAt(start) === 93 /* ] */) {
      indices.push(null);
      close = start;
    } else {
      close = name.indexOf(']', start);
      if (close < 0) {
        if (indices.length === 0) {
          // Not an index after all: the `[` and what follows become part of a plain name.
          fields[`${base}_${name.slice(start).replace(/[ .[]/g, '_')}`] = value;
          return;
        }
        break;
      }
      indices.push(name.slice(start, close));
    }
    pos = close + 1;
    if (name.charCodeAt(pos) !== 91 /* [ */) break;
  }
  const top = fields[base];
  let container: PhpArray;
  if (top instanceof PhpArray) container = top;
  else {
    container = new PhpArray();
    fields[base] = container;
  }
  for (let i = 0; i < indices.length - 1; i++) {
    const next = container.child(indices[i]!);
    if (next === null) return; // PHP drops the pair
    container = next;
  }
  container.set(indices[indices.length - 1]!, value);
}

/**
 * Parses an `application/x-www-form-urlencoded` body exactly as PHP's `parse_str` does
 * (docs/gateway.md, "PHP semantics"): `+` is a space, repeated names keep the last value, `a[]`
 * lists, `a[k]` and `a[b][c]` nested arrays, `.` and space in names become `_`, only the first
 * 1 000 pairs count. A malformed percent-escape is an error (PHP would keep it literally).
 * `fromFile`: a file's final line break is not part of the body (an editor adds one); a body from
 * the network is taken byte for byte, as PHP takes it. This is the reference parse: the fast path
 * of callback/verifier.ts reads bodies of known names without it, and the tests compare the two.
 */
export function parseFormBody(body: string, options: { fromFile?: boolean } = {}): CallbackFields {
  if (body.trim() === '') throw new MalformedPayloadError('the form body is empty');
  const end = !options.fromFile ? body.length : body.endsWith('\r\n') ? body.length - 2 : body.endsWith('\n') ? body.length - 1 : body.length;
  return parseFormPairs(end === body.length ? body : body.slice(0, end)) as CallbackFields;
}

/** The pairs of a form body, each name and value percent-decoded on its own. */
function parseFormPairs(body: string): Record<string, string | PhpArray | CallbackValue> {
  const fields = Object.create(null) as Record<string, string | PhpArray>;
  const end = body.length;
  let nested = false;
  let n = 1;
  for (let start = 0; start <= end && n <= FORM_MAX_PAIRS; ) {
    let amp = body.indexOf('&', start);
    if (amp < 0) amp = end;
    if (amp > start) {
      let eq = body.indexOf('=', start);
      if (eq > amp) eq = -1;
      const rawValue = eq < 0 ? '' : body.slice(eq + 1, amp);
      const rawKey = body.slice(start, eq < 0 ? amp : eq);
      const value = rawValue !== '' ? decodeComponent(rawValue, n, 'value') : rawValue;
      const key = decodeComponent(rawKey, n, 'name');
      if (key.indexOf('[') >= 0) {
        nested = true;
        registerPhpVariable(fields, key, value);
      } else if (key.indexOf('.') >= 0 || key.indexOf(' ') >= 0 || key.indexOf('\0') >= 0) registerPhpVariable(fields, key, value);
      else if (key !== '') fields[key] = value;
      n++;
    }
    start = amp + 1;
  }
  if (nested) {
    for (const k in fields) if (fields[k] instanceof PhpArray) (fields as Record<string, CallbackValue>)[k] = fromPhpArray(fields[k]);
  }
  for (const _ in fields) return fields;
  throw new MalformedPayloadError('the form body has no fields');
}

/**
 * Parses a JSON callback body: it must be an object, nested at most 511 levels (PHP's json_decode
 * refuses deeper ones). JSON.parse reads it unless it holds something JSON.parse would lose for
 * PHP (doubles, integers beyond 2^53, nested objects); those are read keeping PHP's view.
 */
export function parseJsonBody(body: string): CallbackFields {
  const scan = scanJson(body);
  if (scan.depth > JSON_MAX_NESTING) throw new MalformedPayloadError(`the JSON body is nested ${scan.depth} levels deep (at most ${JSON_MAX_NESTING})`);
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (err) {
    throw new MalformedPayloadError(`the JSON body does not parse: ${(err as Error).message}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new MalformedPayloadError('the JSON body is not an object of callback fields');
  }
  if (scan.exact) return value as CallbackFields;
  try {
    return readPhpJsonObject(body) as CallbackFields;
  } catch (err) {
    if (err instanceof SyntaxError) throw new MalformedPayloadError(`the JSON body does not parse: ${err.message}`);
    throw err;
  }
}

/** Picks the body format from a Content-Type header, or sniffs it from the body. */
export function detectBodyFormat(body: string, contentType?: string): BodyFormat {
  const ct = (contentType ?? '').toLowerCase();
  if (ct.includes('json')) return 'json';
  if (ct.includes('x-www-form-urlencoded')) return 'form';
  return /^\s*\{/.test(body) ? 'json' : 'form';
}

/** Parses a body in the given (or detected) format (`fromFile`: see parseFormBody). */
export function parseCallbackBody(body: string, contentType?: string, options: { fromFile?: boolean } = {}): { fields: CallbackFields; format: BodyFormat } {
  const format = detectBodyFormat(body, contentType);
  return { fields: format === 'json' ? parseJsonBody(body) : parseFormBody(body, options), format };
}
