/**
 * PHP's view of a decoded callback: which numbers are integers and which are doubles, integers
 * beyond 2^53 digit for digit, the insertion order of array keys, and PHP's `(int)` and
 * `(string)` casts (docs/gateway.md, "PHP semantics"). The parsers attach what JavaScript values
 * cannot carry as a non-enumerable symbol property, so the fields stay plain objects and arrays
 * for every other use, and a copy made with spread simply loses the extra precision.
 */

/** What a parsed object or array knows beyond its JavaScript value. */
export interface PhpShape {
  /** The keys in PHP's insertion order, when JavaScript enumerates them differently. */
  order?: string[];
  /** Per key: a double (`'float'`) or the exact digits of an integer beyond 2^53. */
  numbers?: Map<string, 'float' | string>;
}

export const PHP_SHAPE: unique symbol = Symbol('paycli.phpShape');

type Shaped = { [PHP_SHAPE]?: PhpShape };

export function phpShapeOf(container: object): PhpShape | undefined {
  return (container as Shaped)[PHP_SHAPE];
}

export function attachPhpShape(container: object, shape: PhpShape): void {
  Object.defineProperty(container, PHP_SHAPE, { value: shape, enumerable: false, configurable: true, writable: true });
}

/** A PHP number: an integer by its decimal digits, or a double. */
export type PhpNumber = { int: string } | { float: number };

/** How PHP holds the number `value` found at `key` of `container`. */
export function phpNumber(value: number, container: object | undefined, key: string): PhpNumber {
  const mark = container ? phpShapeOf(container)?.numbers?.get(key) : undefined;
  if (mark === 'float') return { float: value };
  if (mark !== undefined && Number(mark) === value) return { int: mark };
  // Numbers made in JavaScript: integers within 2^53 are PHP integers, anything else a double.
  return Number.isSafeInteger(value) ? { int: String(value === 0 ? 0 : value) } : { float: value };
}

const INT64_MAX = 9223372036854775807n;
const INT64_MIN = -9223372036854775808n;
const TWO_64 = 18446744073709551616n;
const TWO_63_FLOAT = 2 ** 63; // (double) ZEND_LONG_MAX

/** Whether a key is a PHP integer key: a canonical decimal integer within 64 bits. */
export function isPhpIntKey(key: string): boolean {
  if (!/^(?:0|-?[1-9]\d{0,18})$/.test(key)) return false;
  if (key.length < 19) return true;
  const n = BigInt(key);
  return n <= INT64_MAX && n >= INT64_MIN;
}

/** Whether decimal integer digits fit PHP's 64-bit integer. */
export function fitsInt64(digits: string): boolean {
  const plain = digits.replace(/^-/, '');
  if (plain.length < 19) return true;
  const n = BigInt(digits);
  return n <= INT64_MAX && n >= INT64_MIN;
}

/** PHP's `(int)` of a double: truncation; beyond 64 bits, modulo 2^64 (two's complement); NaN and infinities are 0. */
export function phpIntOfDouble(d: number): string {
  if (!Number.isFinite(d)) return '0';
  const t = BigInt(Math.trunc(d));
  if (d < TWO_63_FLOAT && d >= -TWO_63_FLOAT) return t.toString();
  let m = ((t % TWO_64) + TWO_64) % TWO_64;
  if (m > INT64_MAX) m -= TWO_64;
  return m.toString();
}

const NUMERIC_PREFIX = /^[ \t\n\r\v\f]*([+-]?)(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?/;

/**
 * PHP's `(int)` of a string: leading white space, then the longest numeric prefix (sign, digits,
 * fraction, exponent); none is 0. An integer within 64 bits is exact; anything else goes through
 * a double, which saturates at the 64-bit limits and is 0 when infinite.
 */
export function phpIntOfString(value: string): string {
  const m = NUMERIC_PREFIX.exec(value);
  if (!m) return '0';
  const sign = m[1] === '-' ? '-' : '';
  if (m[3] === undefined && m[4] === undefined && m[2]![0] !== '.') {
    const digits = m[2]!.replace(/^0+(?=\d)/, '');
    if (digits === '0') return '0';
    if (fitsInt64(sign + digits)) return sign + digits;
  }
  const d = Number(sign + m[2]! + (m[4] ?? ''));
  if (!Number.isFinite(d)) return '0';
  if (d >= TWO_63_FLOAT) return INT64_MAX.toString();
  if (d < -TWO_63_FLOAT) return INT64_MIN.toString();
  return BigInt(Math.trunc(d)).toString();
}

/**
 * The exact decimal expansion of a finite, non-zero |d|: its significant digits (no leading or
 * trailing zeros) and the position of the decimal point (`0.d1d2… × 10^decpt`).
 */
function exactDecimal(d: number): { digits: string; decpt: number } {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, Math.abs(d));
  const hi = view.getUint32(0);
  const lo = view.getUint32(4);
  const exp = (hi >>> 20) & 0x7ff;
  let mant = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  let e2: number;
  if (exp === 0) e2 = -1074;
  else {
    mant |= 1n << 52n;
    e2 = exp - 1075;
  }
  let digits: string;
  let point: number; // number of digits before the decimal point in `digits`
  if (e2 >= 0) {
    digits = (mant << BigInt(e2)).toString();
    point = digits.length;
  } else {
    digits = (mant * 5n ** BigInt(-e2)).toString();
    point = digits.length + e2; // divided by 10^(-e2)
  }
  const lead = digits.length - digits.replace(/^0+/, '').length;
  digits = digits.slice(lead).replace(/0+$/, '');
  return { digits, decpt: point - lead };
}

/** Rounds significant digits to `n`, half to even on exact ties (zend_dtoa mode 2). */
function roundDigits(digits: string, decpt: number, n: number): { digits: string; decpt: number } {
  if (digits.length <= n) return { digits, decpt };
  const head = digits.slice(0, n);
  const next = digits.charCodeAt(n) - 48;
  const tail = digits.slice(n + 1);
  const up = next > 5 || (next === 5 && (/[1-9]/.test(tail) || (head.charCodeAt(n - 1) - 48) % 2 === 1));
  if (!up) return { digits: head.replace(/0+$/, ''), decpt };
  const bumped = (BigInt(head) + 1n).toString();
  if (bumped.length > n) return { digits: bumped.slice(0, n).replace(/0+$/, ''), decpt: decpt + 1 };
  return { digits: bumped.replace(/0+$/, ''), decpt };
}

/** zend_gcvt's layout of significant digits: plain between 10^-4 and 10^ndigit, else `d.dddE+x`. */
function gcvtLayout(negative: boolean, digits: string, decpt: number, ndigit: number, expChar: string): string {
  let out = negative ? '-' : '';
  if (decpt < 0 ? decpt < -3 : decpt > ndigit) {
    const e = decpt - 1;
    out += digits[0] + '.' + (digits.length > 1 ? digits.slice(1) : '0') + expChar + (e < 0 ? '-' : '+') + Math.abs(e);
  } else if (decpt < 0) {
    out += '0.' + '0'.repeat(-decpt) + digits;
  } else if (decpt === 0) {
    out += '0.' + digits;
  } else {
    out += digits.length <= decpt ? digits + '0'.repeat(decpt - digits.length) : digits.slice(0, decpt) + '.' + digits.slice(decpt);
  }
  return out;
}

/** PHP's `(string)` of a double (precision 14): `0.3`, `1.0E+25`, `-0`, `INF`. */
export function phpStringOfDouble(d: number): string {
  if (Number.isNaN(d)) return 'NAN';
  if (!Number.isFinite(d)) return d > 0 ? 'INF' : '-INF';
  if (d === 0) return Object.is(d, -0) ? '-0' : '0';
  const exact = exactDecimal(d);
  const r = roundDigits(exact.digits, exact.decpt, 14);
  return gcvtLayout(d < 0, r.digits, r.decpt, 14, 'E');
}

/** `json_encode` of a double (serialize_precision -1): the shortest exact digits, `1.0e+25` style. */
export function phpJsonDouble(d: number): string {
  if (!Number.isFinite(d)) return '0'; // json_encode fails on these; a callback cannot carry them
  if (d === 0) return Object.is(d, -0) ? '-0' : '0';
  // toExponential() without an argument gives the shortest digits that read back as d.
  const m = /^(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(Math.abs(d).toExponential())!;
  const digits = (m[1]! + (m[2] ?? '')).replace(/0+$/, '') || '0';
  return gcvtLayout(d < 0, digits, Number(m[3]) + 1, 17, 'e');
}
