import { decodeFormValue } from '../callback/form-value.js';
import { encodeJsonString, ESCAPES_PHP, JsonInteger, PHP_DEFAULT, type JsonEncodeOptions } from './php-json.js';
import { phpIntOfDouble, phpIntOfString, phpJsonDouble, phpNumber, phpShapeOf, phpStringOfDouble } from './php-values.js';

/** A callback field value as parsed from a form body (strings, arrays of strings) or a JSON body. */
export type CallbackValue = string | number | boolean | null | CallbackValue[] | { [key: string]: CallbackValue };
export type CallbackFields = Record<string, CallbackValue>;

/** Fields that the gateway signs as integers (docs/gateway.md, "Callback signatures"). */
export const INTEGER_FIELDS: readonly string[] = ['trx_id', 'status_code', 'transaction_status_code', 'paid_off'];
const INTEGER_SET = new Set(INTEGER_FIELDS);
/** Amount fields that stay strings in the canonical form but that a common mistake makes integers. */
export const AMOUNT_FIELDS: readonly string[] = ['sub_total', 'total', 'amount', 'fee'];
const AMOUNT_SET = new Set(AMOUNT_FIELDS);

/** How the canonical form is built. The defaults are the gateway's rules; the rest model mistakes. */
export interface CanonicalOptions {
  /** Apply the type rules (docs/gateway.md, "Callback signatures"); false keeps every value as received (strings). */
  normalizeTypes: boolean;
  /** Write sub_total, total, amount and fee as integers (a common mistake). */
  amountsAsIntegers: boolean;
  /** Write is_escrow as 0/1 instead of a boolean (a common mistake). */
  escrowAsNumber: boolean;
  /** Add `additional_info: []` when absent (the rule); false leaves it out. */
  addMissingAdditionalInfo: boolean;
  /** Key order: code-unit order (the rule) or `localeCompare` (a JavaScript mistake). */
  sort: 'code-unit' | 'locale';
  /** How a JSON null is written: the rule is an empty string. */
  nullAs: 'empty-string' | 'null' | 'string-null';
  /** Keep a body field named `signature` (the rule drops it). */
  keepSignatureField: boolean;
  json: JsonEncodeOptions;
}

export const GATEWAY_CANONICAL: CanonicalOptions = {
  normalizeTypes: true,
  amountsAsIntegers: false,
  escrowAsNumber: false,
  addMissingAdditionalInfo: true,
  sort: 'code-unit',
  nullAs: 'empty-string',
  keepSignatureField: false,
  json: PHP_DEFAULT,
};

/** PHP's `(int)` of a decoded value (`container[key]`, for the number's PHP type). */
export function phpIntOf(value: CallbackValue, container?: object, key = ''): JsonInteger {
  if (typeof value === 'boolean') return new JsonInteger(value ? '1' : '0');
  if (typeof value === 'number') {
    const n = phpNumber(value, container, key);
    return new JsonInteger('int' in n ? n.int : phpIntOfDouble(n.float));
  }
  if (typeof value === 'string') return new JsonInteger(phpIntOfString(value));
  if (value === null) return new JsonInteger('0');
  return new JsonInteger((Array.isArray(value) ? value.length : Object.keys(value).length) > 0 ? '1' : '0');
}

/** PHP's `(string)` cast of a scalar; arrays and objects are kept as structures. */
function phpString(value: CallbackValue, container: object, key: string): CallbackValue {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') {
    const n = phpNumber(value, container, key);
    return 'int' in n ? n.int : phpStringOfDouble(n.float);
  }
  if (typeof value === 'boolean') return value ? '1' : '';
  return value;
}

/** The reference handler's boolean: `true`, the integer 1, or the text `1` or `true` (any case). */
function toBoolean(value: CallbackValue, container: object, key: string): boolean {
  if (value === true) return true;
  if (typeof value === 'number') {
    const n = phpNumber(value, container, key);
    return 'int' in n && n.int === '1';
  }
  return typeof value === 'string' && (value === '1' || (value.length === 4 && value.toLowerCase() === 'true'));
}

function normalizeValue(key: string, value: CallbackValue, o: CanonicalOptions, fields: CallbackFields): unknown {
  if (value === null) {
    if (o.normalizeTypes) {
      // PHP: (int) null is 0; the boolean test fails; additional_info null is [].
      if (INTEGER_SET.has(key)) return new JsonInteger('0');
      if (key === 'is_escrow') return o.escrowAsNumber ? new JsonInteger('0') : false;
      if (key === 'additional_info') return [];
    }
    if (o.nullAs === 'null') return null;
    return o.nullAs === 'string-null' ? 'null' : '';
  }
  if (!o.normalizeTypes) return value;
  if (INTEGER_SET.has(key)) return phpIntOf(value, fields, key);
  if (key === 'is_escrow') {
    const b = toBoolean(value, fields, key);
    return o.escrowAsNumber ? new JsonInteger(b ? '1' : '0') : b;
  }
  if (key === 'additional_info') return value === '' || value === '[]' ? [] : value;
  if (o.amountsAsIntegers && AMOUNT_SET.has(key)) return phpIntOf(value, fields, key);
  return phpString(value, fields, key);
}

const LIST_KEY = (k: string, i: number) => k === String(i);

/**
 * `json_encode` of a decoded value as PHP holds it: PHP arrays whose keys are 0, 1, 2, … in order
 * (and empty ones) are lists, others objects in insertion order; integers exact, doubles in PHP's
 * shortest form.
 */
export function encodePhpJson(value: unknown, json: JsonEncodeOptions, container?: object, key = ''): string {
  if (value === null || value === undefined) return 'null';
  if (value instanceof JsonInteger) return value.digits;
  switch (typeof value) {
    case 'string':
      return encodeJsonString(value, json);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number': {
      const n = phpNumber(value, container, key);
      return 'int' in n ? n.int : phpJsonDouble(n.float);
    }
    case 'bigint':
      return value.toString();
    default:
      break;
  }
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i === 0 ? '' : ',') + encodePhpJson(value[i], json, value, String(i));
    return out + ']';
  }
  const obj = value as Record<string, unknown>;
  const keys = (phpShapeOf(obj)?.order ?? Object.keys(obj)).filter((k) => obj[k] !== undefined);
  if (keys.every(LIST_KEY)) return '[' + keys.map((k) => encodePhpJson(obj[k], json, obj, k)).join(',') + ']';
  return '{' + keys.map((k) => encodeJsonString(k, json) + ':' + encodePhpJson(obj[k], json, obj, k)).join(',') + '}';
}

const SURROGATE = /[\ud800-\udfff]/;

/** Byte order of the UTF-8 forms (PHP's `ksort(…, SORT_STRING)`); code-unit order differs only around surrogates. */
function byteOrder(keys: string[]): void {
  keys.sort();
  if (SURROGATE.test(keys.join(''))) keys.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
}

/**
 * Builds the canonical JSON text that the gateway signs for a callback (docs/gateway.md,
 * "Callback signatures" and "PHP semantics"):
 * `signature` dropped, integer and boolean fields typed, `additional_info` an array, other values
 * strings, keys in code-unit order, PHP-default JSON escaping.
 */
export function canonicalizeCallback(fields: CallbackFields, options?: Partial<CanonicalOptions>): string {
  if (options === undefined) return canonicalByPlan(fields);
  return canonicalize(fields, { ...GATEWAY_CANONICAL, ...options });
}

/** One key of a plan: its place in the canonical text and the rule its value follows. */
interface PlanEntry {
  key: string;
  /** `"key":` (with the comma before it after the first entry), escaped once. */
  prefix: string;
  /** 0: a string value stays as it is; 1: a typed field (normalizeValue); 2: additional_info missing, `[]`; 3: an integer field. */
  kind: 0 | 1 | 2 | 3;
  /** Where the key is in the plan's key list (-1 for a missing additional_info). */
  index: number;
  /** The prefix's bytes (ASCII), made on the first canonicalizeFormBytes. */
  prefixBytes?: Buffer;
}

interface Plan {
  /** The object's own keys in enumeration order, as Object.keys gave them when the plan was made. */
  keys: readonly string[];
  entries: PlanEntry[];
}

/**
 * Plans of the gateway's canonical form, by key list: the sort, the dropped `signature`, the escaped
 * keys and which rule each value follows depend only on the keys, and a merchant's callbacks share a
 * few key lists. Most recently used first; a handful is enough (a listener sees one or two shapes).
 */
const plans: Plan[] = [];
const MAX_PLANS = 8;

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function makePlan(keys: readonly string[]): Plan {
  const o = GATEWAY_CANONICAL;
  const present = new Set(keys);
  const order = keys.filter((k) => k !== 'signature');
  if (!present.has('additional_info')) order.push('additional_info');
  byteOrder(order);
  const entries = order.map((key, i): PlanEntry => {
    const kind = !present.has(key) ? 2 : INTEGER_SET.has(key) ? 3 : key === 'is_escrow' || key === 'additional_info' ? 1 : 0;
    return { key, prefix: (i === 0 ? '' : ',') + encodeJsonString(key, o.json) + ':', kind, index: keys.indexOf(key) };
  });
  return { keys, entries };
}

/** `0`, or 1 to 18 digits without a leading zero: PHP's `(int)` gives the same digits. */
function isPlainInteger(s: string): boolean {
  const n = s.length;
  if (n === 0 || n > 18) return false;
  const first = s.charCodeAt(0);
  if (first === 48 /* 0 */) return n === 1;
  if (first < 49 || first > 57) return false;
  for (let i = 1; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/**
 * The gateway's canonical form through a cached plan for the fields' key list: the same text as
 * `canonicalize` with the default options (the PHP oracle and the unit tests check both), without
 * sorting and escaping the keys of every callback again.
 */
function canonicalByPlan(fields: CallbackFields): string {
  const plan = planFor(Object.keys(fields));
  const json = GATEWAY_CANONICAL.json;
  let out = '{';
  const entries = plan.entries;
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]!;
    if (e.kind === 2) {
      out += e.prefix + '[]';
      continue;
    }
    const raw = fields[e.key]!;
    if (e.kind === 0 && typeof raw === 'string') {
      out += e.prefix + encodeJsonString(raw, json);
      continue;
    }
    if (e.kind === 3 && typeof raw === 'string' && isPlainInteger(raw)) {
      out += e.prefix + raw;
      continue;
    }
    const value = normalizeValue(e.key, raw, GATEWAY_CANONICAL, fields);
    out += e.prefix + (typeof value === 'string' ? encodeJsonString(value, json) : encodePhpJson(value, json, fields, e.key));
  }
  return out + '}';
}

/** The plan for a key list (made and cached when new; most recently used first). */
function planFor(keys: readonly string[]): Plan {
  let plan: Plan | undefined;
  for (let i = 0; i < plans.length; i++) {
    const p = plans[i]!;
    if (p.keys === keys || sameKeys(p.keys, keys)) {
      plan = p;
      if (i > 0) {
        plans.splice(i, 1);
        plans.unshift(plan);
      }
      break;
    }
  }
  if (plan === undefined) {
    plan = makePlan(keys);
    plans.unshift(plan);
    if (plans.length > MAX_PLANS) plans.pop();
  }
  return plan;
}

/** Nothing: a string value's PHP type never depends on its container. */
const NO_CONTAINER: CallbackFields = Object.freeze(Object.create(null) as CallbackFields);

/** A hexadecimal digit's value by character code (ASCII), -1 for anything else. */
const HEX_DIGIT = (() => {
  const t = new Int8Array(128).fill(-1);
  for (let c = 0; c < 10; c++) t[48 + c] = c;
  for (let c = 0; c < 6; c++) t[65 + c] = t[97 + c] = 10 + c;
  return t;
})();
const HEX_LOWER = '0123456789abcdef';

/** Where canonicalizeFormBytes writes: grown when a body needs more, back to its size after one above FORM_OUT_KEPT. */
const FORM_OUT_SIZE = 16 * 1024;
const FORM_OUT_KEPT = 64 * 1024;
let formOut = Buffer.allocUnsafe(FORM_OUT_SIZE);

/** The size of the buffer canonicalizeFormBytes writes into now (for tests). */
export function formOutputSize(): number {
  return formOut.length;
}

/** formOut with room for `extra` more bytes after the first `used`. */
function roomFor(used: number, extra: number): Buffer {
  if (used + extra > formOut.length) {
    const bigger = Buffer.allocUnsafe(Math.max(2 * formOut.length, used + extra));
    formOut.copy(bigger, 0, 0, used);
    formOut = bigger;
  }
  return formOut;
}

/** Writes an ASCII text at `n`; returns the end. */
function putAscii(out: Buffer, n: number, text: string): number {
  for (let i = 0; i < text.length; i++) out[n++] = text.charCodeAt(i);
  return n;
}

/**
 * A raw form value (body[start, end)) written as encodeJsonString(decodeFormValue(value), PHP_DEFAULT)
 * writes it, when that can be done byte by byte: every character ASCII, every escape `%XX` below
 * `%80`. Returns the end, or -1 for any other value (the caller decodes it as a string).
 */
function putFormValueJson(out: Buffer, n: number, body: string, start: number, end: number): number {
  out[n++] = 0x22;
  for (let i = start; i < end; i++) {
    let c = body.charCodeAt(i);
    if (c === 0x2b /* + */) c = 0x20;
    else if (c === 0x25 /* % */) {
      if (i + 2 >= end) return -1;
      const a = body.charCodeAt(i + 1);
      const b = body.charCodeAt(i + 2);
      const high = a < 128 ? HEX_DIGIT[a]! : -1;
      const low = b < 128 ? HEX_DIGIT[b]! : -1;
      if (high < 0 || low < 0 || high > 7) return -1;
      c = high * 16 + low;
      i += 2;
    } else if (c >= 0x80) return -1;
    const e = ESCAPES_PHP[c]!;
    if (e === 0) out[n++] = c;
    else if (e === 1) {
      out[n++] = 0x5c;
      out[n++] = 0x75;
      out[n++] = 0x30;
      out[n++] = 0x30;
      out[n++] = HEX_LOWER.charCodeAt(c >> 4);
      out[n++] = HEX_LOWER.charCodeAt(c & 15);
    } else {
      out[n++] = 0x5c;
      out[n++] = e;
    }
  }
  out[n++] = 0x22;
  return n;
}

/** isPlainInteger of body[start, end), which holds no `+` or `%` when it is one. */
function isPlainIntegerAt(body: string, start: number, end: number): boolean {
  const n = end - start;
  if (n === 0 || n > 18) return false;
  const first = body.charCodeAt(start);
  if (first === 48 /* 0 */) return n === 1;
  if (first < 49 || first > 57) return false;
  for (let i = start + 1; i < end; i++) {
    const c = body.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/**
 * `canonicalizeCallback(parseFormBody(body))` of a form body read by locateFormShape (names `keys`,
 * value i still encoded at body[bounds[2i], bounds[2i+1])), as its bytes (the text is ASCII):
 * plain values are decoded and escaped straight into a reused buffer, without a decoded string per
 * value or a text of concatenated pieces; the others are decoded and encoded as canonicalByPlan does.
 * The bytes are valid until the next call. Undefined when a value (any, `signature` too) does not decode.
 */
export function canonicalizeFormBytes(keys: readonly string[], body: string, bounds: readonly number[]): Buffer | undefined {
  const plan = planFor(keys);
  const json = GATEWAY_CANONICAL.json;
  const entries = plan.entries;
  // The one value the canonical form leaves out must decode too (parseFormBody refuses the body otherwise).
  const dropped = keys.indexOf('signature');
  if (dropped >= 0 && decodeFormValue(body.slice(bounds[2 * dropped], bounds[2 * dropped + 1])) === undefined) return undefined;
  // A buffer grown for one large body is not kept for the life of the process (a listener, a worker).
  if (formOut.length > FORM_OUT_KEPT) formOut = Buffer.allocUnsafe(FORM_OUT_SIZE);
  let out = roomFor(0, 1);
  let n = 0;
  out[n++] = 0x7b; // {
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]!;
    const start = e.kind === 2 ? 0 : bounds[2 * e.index]!;
    const end = e.kind === 2 ? 0 : bounds[2 * e.index + 1]!;
    // A value's JSON takes at most 6 bytes per character of its raw text (\uXXXX), plus its quotes.
    out = roomFor(n, e.prefix.length + 6 * (end - start) + 8);
    const prefix = (e.prefixBytes ??= Buffer.from(e.prefix, 'latin1'));
    out.set(prefix, n);
    n += prefix.length;
    if (e.kind === 2) {
      out[n++] = 0x5b;
      out[n++] = 0x5d;
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
    let piece: string;
    if (e.kind === 0) piece = encodeJsonString(raw, json);
    else if (e.kind === 3 && isPlainInteger(raw)) piece = raw;
    else {
      const value = normalizeValue(e.key, raw, GATEWAY_CANONICAL, NO_CONTAINER);
      piece = typeof value === 'string' ? encodeJsonString(value, json) : encodePhpJson(value, json, NO_CONTAINER, e.key);
    }
    out = roomFor(n, piece.length + 1);
    n = putAscii(out, n, piece);
  }
  out = roomFor(n, 1);
  out[n++] = 0x7d; // }
  return out.subarray(0, n);
}

/** The canonical form under any options (the diagnosis tries the common mistakes this way). */
function canonicalize(fields: CallbackFields, o: CanonicalOptions): string {
  const keys = Object.keys(fields);
  if (!o.keepSignatureField) {
    const i = keys.indexOf('signature');
    if (i >= 0) keys.splice(i, 1);
  }
  if (o.addMissingAdditionalInfo && !('additional_info' in fields)) keys.push('additional_info');
  if (o.sort === 'locale') keys.sort((a, b) => a.localeCompare(b));
  else byteOrder(keys);
  let out = '{';
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const raw = key in fields ? fields[key]! : o.normalizeTypes ? [] : '[]';
    const value = normalizeValue(key, raw, o, fields);
    out += (i === 0 ? '' : ',') + encodeJsonString(key, o.json) + ':' + (typeof value === 'string' ? encodeJsonString(value, o.json) : encodePhpJson(value, o.json, fields, key));
  }
  return out + '}';
}
