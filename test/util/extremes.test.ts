import { describe, expect, it } from 'vitest';
import { maxOf, minOf } from '../../src/util/extremes.js';

describe('maxOf and minOf', () => {
  it('take any number of values, as Math.max and Math.min do a few', () => {
    const many = Array.from({ length: 300_000 }, (_, i) => (i * 7919) % 300_007);
    expect(() => Math.max(...many)).toThrow(RangeError);
    expect(maxOf(many)).toBe(many.reduce((a, b) => (a > b ? a : b)));
    expect(minOf(many)).toBe(0);
    expect(maxOf([3, -1, 2])).toBe(Math.max(3, -1, 2));
    expect(minOf(new Set([3, -1, 2]))).toBe(-1);
  });

  it('give the empty value for none, and NaN for a NaN among them', () => {
    expect(maxOf([])).toBe(-Infinity);
    expect(minOf([], 0)).toBe(0);
    expect(maxOf([1, Number.NaN, 2])).toBeNaN();
    expect(minOf([1, Number.NaN, 0])).toBeNaN();
  });
});
