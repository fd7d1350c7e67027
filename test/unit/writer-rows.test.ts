// The rows the listener hands to its writer thread travel as one string (src/core/listener/writer-thread.ts).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { advanceCount, decodeRows, encodeRows } from '../../src/core/listener/writer-rows.js';

const value = fc.oneof(
  fc.constant(null),
  fc.integer({ min: -(2 ** 40), max: 2 ** 40 }),
  fc.string({ unit: 'binary' }),
  fc.constantFrom('', 'n', 'i1;', 's3:abc', 'b1:x', ':', ';'),
  // A body that is not UTF-8: its bytes.
  fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b)),
);

describe('writer thread rows', () => {
  it('come back as they went, whatever the strings hold', () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 1, max: 16 })
          .chain((width) => fc.tuple(fc.constant(width), fc.array(fc.array(value, { minLength: width, maxLength: width }), { maxLength: 20 }))),
        ([width, rows]) => {
          expect(decodeRows(encodeRows(rows), width)).toEqual(rows);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('refuse a value that is not null, a safe integer, a string or bytes', () => {
    expect(() => encodeRows([[1.5]])).toThrow(TypeError);
    expect(() => encodeRows([[{}]])).toThrow(TypeError);
    expect(() => decodeRows('x', 1)).toThrow(/bad row encoding/);
  });

  it('keep counting groups past the wrap of the shared slot', () => {
    const wrap = 2 ** 31;
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 40 }), fc.integer({ min: 0, max: wrap - 1 }), (last, moved) => {
        expect(advanceCount(last, (last + moved) % wrap, wrap)).toBe(last + moved);
      }),
    );
    expect(advanceCount(wrap - 2, 3, wrap)).toBe(wrap + 3);
  });
});
