// How the listener's thread hands a group of rows to the writer thread (writer-thread.ts), and the
// count of settled groups both threads share.

/**
 * A group of rows as one string (one message to copy, whatever the number of values): `n` for null,
 * `i<digits>;` for an integer, `s<length>:<text>` for a string (length in UTF-16 units),
 * `b<length>:<bytes as latin1>` for bytes (a body that is not UTF-8). Only these kinds occur in an
 * event's row.
 */
export function encodeRows(rows: readonly (readonly unknown[])[]): string {
  let s = '';
  for (const row of rows) {
    for (const v of row) {
      if (v === null || v === undefined) s += 'n';
      else if (typeof v === 'number' && Number.isSafeInteger(v)) s += `i${v};`;
      else if (typeof v === 'string') s += `s${v.length}:${v}`;
      else if (Buffer.isBuffer(v)) s += `b${v.length}:${v.toString('latin1')}`;
      else throw new TypeError(`cannot hand a ${typeof v} to the writer thread`);
    }
  }
  return s;
}

/** The inverse of encodeRows (self-contained: the worker gets its source text). */
export function decodeRows(text: string, width: number): unknown[][] {
  const rows: unknown[][] = [];
  let i = 0;
  while (i < text.length) {
    const row: unknown[] = new Array(width);
    for (let c = 0; c < width; c++) {
      const kind = text.charCodeAt(i);
      if (kind === 110) {
        row[c] = null;
        i++;
      } else if (kind === 105) {
        const end = text.indexOf(';', i);
        row[c] = Number(text.slice(i + 1, end));
        i = end + 1;
      } else if (kind === 115 || kind === 98) {
        const colon = text.indexOf(':', i);
        const n = Number(text.slice(i + 1, colon));
        const value = text.slice(colon + 1, colon + 1 + n);
        row[c] = kind === 115 ? value : Buffer.from(value, 'latin1');
        i = colon + 1 + n;
      } else throw new Error(`bad row encoding at ${i}`);
    }
    rows.push(row);
  }
  return rows;
}

/** The whole count, from the last one known and the shared slot's value (the count modulo `wrap`, which moved less than `wrap` since). */
export function advanceCount(last: number, slot: number, wrap: number): number {
  return last + ((slot - (last % wrap) + wrap) % wrap);
}
