import { encodeJsonString, JsonInteger, PHP_DEFAULT, type JsonEncodeOptions } from './php-json.js';
import { phpIntOfDouble, phpIntOfString, phpJsonDouble, phpNumber, phpShapeOf, phpStringOfDouble } from './php-values.js';
import { deepFreeze } from '../freeze.js';

/** A callback field value as parsed from a form body (strings, arrays of strings) or a JSON body. */
export type CallbackValue = string | number | boolean | null | CallbackValue[] | { [key: string]: CallbackValue };
export type CallbackFields = Record<string, CallbackValue>;

/** Fields that the gateway signs as integers (docs/gateway.md, "Callback signatures"). */
export const INTEGER_FIELDS: readonly string[] = deepFreeze(['trx_id', 'status_code', 'transaction_status_code', 'paid_off']);
const INTEGER_SET = new Set(INTEGER_FIELDS);
/** Amount fields that stay strings in the canonical form but that a common mistake makes integers. */
export const AMOUNT_FIELDS: readonly string[] = deepFreeze(['sub_total', 'total', 'amount', 'fee']);
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

export const GATEWAY_CANONICAL: Readonly<CanonicalOptions> = deepFreeze({
  normalizeTypes: true,
  amountsAsIntegers: false,
  escrowAsNumber: false,
  addMissingAdditionalInfo: true,
  sort: 'code-unit',
  nullAs: 'empty-string',
  keepSignatureField: false,
  json: PHP_DEFAULT,
});

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
 * strings, keys in code-unit order, PHP-default JSON escaping. This is the reference: the fast
 * path of callback/verifier.ts writes the same bytes (the unit and PHP oracle tests check both).
 */
export function canonicalizeCallback(fields: CallbackFields, options?: Partial<CanonicalOptions>): string {
  return canonicalize(fields, options === undefined ? GATEWAY_CANONICAL : { ...GATEWAY_CANONICAL, ...options });
}

/** The keys of the canonical form, in order, for a body with these keys (what canonicalize writes). */
function keyOrder(keys: readonly string[], o: CanonicalOptions): string[] {
  const order = o.keepSignatureField ? [...keys] : keys.filter((k) => k !== 'signature');
  if (o.addMissingAdditionalInfo && !keys.includes('additional_info')) order.push('additional_info');
  if (o.sort === 'locale') order.sort((a, b) => a.localeCompare(b));
  else byteOrder(order);
  return order;
}

/** The gateway's key order for a body with these keys: `signature` dropped, `additional_info` added when missing, byte order. */
export function gatewayKeyOrder(keys: readonly string[]): string[] {
  return keyOrder(keys, GATEWAY_CANONICAL);
}

/** Nothing: a string value's PHP type never depends on its container. */
const NO_CONTAINER: CallbackFields = Object.freeze(Object.create(null) as CallbackFields);

/** The JSON of one field's value in the canonical form, under the options (fields: the value's container). */
function valueJson(key: string, raw: CallbackValue, o: CanonicalOptions, fields: CallbackFields): string {
  const value = normalizeValue(key, raw, o, fields);
  return typeof value === 'string' ? encodeJsonString(value, o.json) : encodePhpJson(value, o.json, fields, key);
}

/** The JSON the gateway's canonical form writes for a field whose value is a (decoded form) string. */
export function canonicalValueJson(key: string, value: string): string {
  return valueJson(key, value, GATEWAY_CANONICAL, NO_CONTAINER);
}

/** The canonical form under any options (the diagnosis tries the common mistakes this way). */
function canonicalize(fields: CallbackFields, o: CanonicalOptions): string {
  const keys = keyOrder(Object.keys(fields), o);
  let out = '{';
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const raw = key in fields ? fields[key]! : o.normalizeTypes ? [] : '[]';
    out += (i === 0 ? '' : ',') + encodeJsonString(key, o.json) + ':' + valueJson(key, raw, o, fields);
  }
  return out + '}';
}
