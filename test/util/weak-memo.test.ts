import { describe, expect, it } from 'vitest';
import { weakMemo } from '../../src/util/weak-memo.js';

describe('weakMemo', () => {
  it('makes a value once per key object, and again for another object with the same contents', () => {
    const made: string[][] = [];
    const joined = weakMemo((list: string[]) => (made.push(list), list.join(',')));
    const a = ['x', 'y'];
    expect(joined(a)).toBe('x,y');
    expect(joined(a)).toBe('x,y');
    expect(made).toEqual([a]);
    const b = ['x', 'y'];
    expect(joined(b)).toBe('x,y');
    expect(made).toHaveLength(2);
  });
});
