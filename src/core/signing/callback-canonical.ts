import { encodeJson, encodeJsonString, JsonInteger, PHP_DEFAULT, type JsonEncodeOptions } from './php-json.js';

/** A callback field value as parsed from a form body (strings, arrays of strings) or a JSON body. */
export type CallbackValue = string | number | boolean | null | CallbackValue[] | { [key: string]: CallbackValue };
export type CallbackFields = Record<string, CallbackValue>;

/** Fields that the gateway signs as integers (spec 5.2). */
export const INTEGER_FIELDS: readonly string[] = ['trx_id', 'status_code', 'transaction_status_code', 'paid_off'];
const INTEGER_SET = new Set(INTEGER_FIELDS);
/** Amount fields that stay strings in the canonical form but that a common mistake makes integers. */
export const AMOUNT_FIELDS: readonly string[] = ['sub_total', 'total', 'amount', 'fee'];
const AMOUNT_SET = new Set(AMOUNT_FIELDS);

/** How the canonical form is built. The defaults are the gateway's rules; the rest model mistakes. */
export interface CanonicalOptions {
  /** Apply the type rules of spec 5.2; false keeps every value as received (strings). */
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

const INT64_MAX = '9223372036854775807';
const INT64_MIN = '-9223372036854775808';

/** PHP's `(int)` cast of a string: leading whitespace, sign and digits; anything else is 0. */
export function phpIntDigits(value: CallbackValue): JsonInteger {
  if (typeof value === 'boolean') return new JsonInteger(value ? '1' : '0');
  if (typeof value === 'number') return new JsonInteger(Number.isFinite(value) ? String(Math.trunc(value)) : '0');
  if (typeof value !== 'string') return new JsonInteger(Array.isArray(value) && value.length > 0 ? '1' : '0');
  const m = /^[ \t\n\r\v\f]*([+-]?)(\d+(?:\.\d*)?|\.\d+)([eE][+-]?\d+)?/.exec(value);
  if (!m) return new JsonInteger('0');
  if (m[2]!.includes('.') || m[3]) {
    // A float-like numeric string: PHP converts it to a float, then truncates.
    const n = Math.trunc(Number(m[1]! + m[2]! + (m[3] ?? '')));
    return new JsonInteger(Number.isSafeInteger(n) ? String(n === 0 ? 0 : n) : n > 0 ? INT64_MAX : INT64_MIN.slice(0));
  }
  const digits = m[2]!.replace(/^0+(?=\d)/, '');
  const negative = m[1] === '-' && digits !== '0';
  // PHP saturates integer strings beyond the 64-bit range.
  if (digits.length > 19 || (digits.length === 19 && digits > (negative ? INT64_MIN.slice(1) : INT64_MAX))) return new JsonInteger(negative ? INT64_MIN : INT64_MAX);
  return new JsonInteger(negative ? `-${digits}` : digits);
}

/** PHP's `(string)` cast of a scalar. */
function phpString(value: CallbackValue): CallbackValue {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  if (typeof value === 'boolean') return value ? '1' : '';
  return value; // arrays and objects are kept as structures
}

function toBoolean(value: CallbackValue): boolean {
  if (value === true || value === 1) return true;
  return typeof value === 'string' && (value === '1' || value.toLowerCase() === 'true');
}

function toArray(value: CallbackValue): CallbackValue {
  if (Array.isArray(value) || (value !== null && typeof value === 'object')) return value;
  if (value === null || value === '' || value === '[]') return [];
  if (typeof value === 'string' && /^\s*[[{]/.test(value)) {
    try {
      return JSON.parse(value) as CallbackValue;
    } catch {
      return value;
    }
  }
  return value;
}

function normalizeValue(key: string, value: CallbackValue, o: CanonicalOptions): unknown {
  if (value === null) {
    if (key === 'additional_info' && o.normalizeTypes) return [];
    if (o.nullAs === 'null') return null;
    return o.nullAs === 'string-null' ? 'null' : '';
  }
  if (!o.normalizeTypes) return value;
  if (INTEGER_SET.has(key)) return phpIntDigits(value);
  if (key === 'is_escrow') {
    const b = toBoolean(value);
    return o.escrowAsNumber ? new JsonInteger(b ? '1' : '0') : b;
  }
  if (key === 'additional_info') return toArray(value);
  if (o.amountsAsIntegers && AMOUNT_SET.has(key)) return phpIntDigits(value);
  return phpString(value);
}

/**
 * Builds the canonical JSON text that the gateway signs for a callback (spec 5.2, cli.md section 1):
 * `signature` dropped, integer and boolean fields typed, `additional_info` an array, other values
 * strings, keys in code-unit order, PHP-default JSON escaping.
 */
export function canonicalizeCallback(fields: CallbackFields, options?: Partial<CanonicalOptions>): string {
  const o: CanonicalOptions = options ? { ...GATEWAY_CANONICAL, ...options } : GATEWAY_CANONICAL;
  const keys = Object.keys(fields);
  if (!o.keepSignatureField) {
    const i = keys.indexOf('signature');
    if (i >= 0) keys.splice(i, 1);
  }
  if (o.addMissingAdditionalInfo && !('additional_info' in fields)) keys.push('additional_info');
  // Default sort compares UTF-16 code units: byte order for the ASCII keys of callbacks.
  if (o.sort === 'locale') keys.sort((a, b) => a.localeCompare(b));
  else keys.sort();
  let out = '{';
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const raw = key in fields ? fields[key]! : o.normalizeTypes ? [] : '[]';
    const value = normalizeValue(key, raw, o);
    out += (i === 0 ? '' : ',') + encodeJsonString(key, o.json) + ':' + (typeof value === 'string' ? encodeJsonString(value, o.json) : encodeJson(value, o.json));
  }
  return out + '}';
}
