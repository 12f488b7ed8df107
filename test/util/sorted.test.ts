import { describe, expect, it } from 'vitest';
import { sameInOrder } from '../../src/util/sorted.js';

describe('sameInOrder', () => {
  it('is true only for the same items in the same order', () => {
    expect(sameInOrder(['a', 'b'], ['a', 'b'])).toBe(true);
    expect(sameInOrder(new Map([['a', 1], ['b', 2]]).keys(), ['a', 'b'])).toBe(true);
    expect(sameInOrder([], [])).toBe(true);
    expect(sameInOrder(['b', 'a'], ['a', 'b'])).toBe(false);
    expect(sameInOrder(['a'], ['a', 'b'])).toBe(false);
    expect(sameInOrder(['a', 'b', 'c'], ['a', 'b'])).toBe(false);
  });
});
