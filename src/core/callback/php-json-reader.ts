import type { CallbackValue } from '../signing/callback-canonical.js';
import { attachPhpShape, fitsInt64 } from '../signing/php-values.js';

// Reading a JSON callback body as PHP's json_decode holds it (parse.ts's parseJsonBody uses it
// when JSON.parse would lose what PHP keeps).

/**
 * One pass over a JSON text, outside its strings: the deepest nesting, and whether JSON.parse
 * would lose what PHP keeps (a number with a fraction or exponent, an integer of 16 digits or
 * more, an object inside the top-level one, whose key order PHP keeps).
 */
export function scanJson(text: string): { depth: number; exact: boolean } {
  let depth = 0;
  let max = 0;
  let exact = true;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      // Skip the string: the next quote not escaped by an odd run of backslashes.
      let j = i;
      for (;;) {
        j = text.indexOf('"', j + 1);
        if (j < 0) return { depth: max, exact }; // unterminated: JSON.parse reports it
        let k = j - 1;
        while (text.charCodeAt(k) === 92) k--;
        if ((j - 1 - k) % 2 === 0) break;
      }
      i = j;
    } else if (c === 123 /* { */ || c === 91 /* [ */) {
      depth++;
      if (depth > max) max = depth;
      if (c === 123 && depth > 1) exact = false;
    } else if (c === 125 || c === 93) depth--;
    else if (c === 45 || (c >= 48 && c <= 57)) {
      let j = i + 1;
      let digits = c === 45 ? 0 : 1;
      for (; j < text.length; j++) {
        const d = text.charCodeAt(j);
        if (d >= 48 && d <= 57) digits++;
        else if (d === 46 || d === 101 || d === 69 || d === 43 || d === 45) exact = false;
        else break;
      }
      if (digits >= 16) exact = false;
      i = j - 1;
    }
  }
  return { depth: max, exact };
}

const LITERALS: readonly [string, CallbackValue][] = [
  ['true', true],
  ['false', false],
  ['null', null],
];

/** A JSON reader that keeps what PHP's json_decode keeps: integer or double, exact 64-bit integers, key order. */
class PhpJsonReader {
  i = 0;
  constructor(readonly text: string) {}

  fail(what: string): never {
    // A SyntaxError, as JSON.parse throws: parseJsonBody makes it a MalformedPayloadError.
    throw new SyntaxError(`${what} at position ${this.i}`);
  }

  ws(): void {
    const t = this.text;
    while (this.i < t.length) {
      const c = t.charCodeAt(this.i);
      if (c === 32 || c === 9 || c === 10 || c === 13) this.i++;
      else break;
    }
  }

  value(holder: { numbers?: Map<string, 'float' | string> }, key: string): CallbackValue {
    this.ws();
    const t = this.text;
    const c = t[this.i];
    if (c === '{') return this.object();
    if (c === '[') return this.array();
    if (c === '"') return this.string();
    for (const [word, literal] of LITERALS) {
      if (t.startsWith(word, this.i)) {
        this.i += word.length;
        return literal;
      }
    }
    const m = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;
    m.lastIndex = this.i;
    const r = m.exec(t);
    if (!r) this.fail('unexpected character');
    this.i = m.lastIndex;
    const n = Number(r[0]);
    if (r[1] !== undefined || r[2] !== undefined || !fitsInt64(r[0])) {
      holder.numbers ??= new Map();
      holder.numbers.set(key, 'float');
    } else if (!Number.isSafeInteger(n)) {
      holder.numbers ??= new Map();
      holder.numbers.set(key, r[0]);
    }
    return n;
  }

  string(): string {
    const t = this.text;
    let j = this.i;
    for (;;) {
      j = t.indexOf('"', j + 1);
      if (j < 0) this.fail('unterminated string');
      let k = j - 1;
      while (t.charCodeAt(k) === 92) k--;
      if ((j - 1 - k) % 2 === 0) break;
    }
    let s: string;
    try {
      s = JSON.parse(t.slice(this.i, j + 1)) as string;
    } catch {
      this.fail('bad string');
    }
    this.i = j + 1;
    return s;
  }

  array(): CallbackValue[] {
    this.i++;
    const out: CallbackValue[] = [];
    const shape: { numbers?: Map<string, 'float' | string> } = {};
    this.ws();
    if (this.text[this.i] === ']') {
      this.i++;
      return out;
    }
    for (;;) {
      out.push(this.value(shape, String(out.length)));
      this.ws();
      const c = this.text[this.i++];
      if (c === ']') break;
      if (c !== ',') this.fail('expected , or ]');
    }
    if (shape.numbers) attachPhpShape(out, shape);
    return out;
  }

  /** An object, as PHP's array: a list when its keys are 0, 1, 2, … in order. */
  object(top = false): CallbackValue {
    this.i++;
    const a = new Map<string, CallbackValue>();
    const shape: { numbers?: Map<string, 'float' | string> } = {};
    this.ws();
    if (this.text[this.i] === '}') this.i++;
    else {
      for (;;) {
        this.ws();
        if (this.text[this.i] !== '"') this.fail('expected a key');
        const key = this.string();
        this.ws();
        if (this.text[this.i++] !== ':') this.fail('expected :');
        shape.numbers?.delete(key);
        a.set(key, this.value(shape, key));
        this.ws();
        const c = this.text[this.i++];
        if (c === '}') break;
        if (c !== ',') this.fail('expected , or }');
      }
    }
    const keys = [...a.keys()];
    if (!top && keys.every((k, i) => k === String(i))) {
      const list = keys.map((k) => a.get(k)!);
      if (shape.numbers) attachPhpShape(list, shape);
      return list;
    }
    const obj = Object.create(null) as Record<string, CallbackValue>;
    for (const k of keys) obj[k] = a.get(k)!;
    const order = Object.keys(obj).some((k, i) => k !== keys[i]) ? keys : undefined;
    if (order || shape.numbers) attachPhpShape(obj, { ...(order ? { order } : {}), ...(shape.numbers ? { numbers: shape.numbers } : {}) });
    return obj;
  }
}

/** The top-level object of a JSON text as PHP's json_decode(…, true) holds it (key order, exact integers, doubles). */
export function readPhpJsonObject(text: string): CallbackValue {
  const reader = new PhpJsonReader(text);
  reader.ws();
  return reader.object(true);
}
