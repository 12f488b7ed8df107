import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatCount } from '../../src/util/format.js';

describe('formatCount', () => {
  it.each([
    [0, '0'],
    [7, '7'],
    [999, '999'],
    [1000, '1,000'],
    [131072, '131,072'],
    [-1234567, '-1,234,567'],
    [1.5, '1.5'],
  ])('%d -> %s', (n, text) => expect(formatCount(n)).toBe(text));

  it('writes any number as toLocaleString("en-US") does', () => {
    fc.assert(
      fc.property(fc.oneof(fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }), fc.nat(100_000_000), fc.double({ noNaN: true })), (n) => {
        expect(formatCount(n)).toBe(n.toLocaleString('en-US'));
      }),
      { numRuns: 2000 },
    );
  });
});
