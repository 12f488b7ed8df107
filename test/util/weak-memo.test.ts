import { describe, expect, it } from 'vitest';
import { weakMemo, weakMemoWith } from '../../src/util/weak-memo.js';

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

describe('weakMemoWith', () => {
  it('keeps a value per key while its inputs stay the same, and makes it again when one differs', () => {
    let made = 0;
    const scaled = weakMemoWith((list: number[], factor: number, label: string) => (made++, `${label}:${list.map((x) => x * factor).join(',')}`));
    const list = [1, 2];
    expect(scaled(list, 2, 'a')).toBe('a:2,4');
    expect(scaled(list, 2, 'a')).toBe('a:2,4');
    expect(made).toBe(1);
    expect(scaled(list, 3, 'a')).toBe('a:3,6');
    expect(scaled(list, 3, 'b')).toBe('b:3,6');
    expect(scaled([1, 2], 3, 'b')).toBe('b:3,6');
    expect(made).toBe(4);
  });
});
