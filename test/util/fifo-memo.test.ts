import { describe, expect, it } from 'vitest';
import { FifoMemo, TRIM_TO } from '../../src/util/fifo-memo.js';

describe('FifoMemo', () => {
  it('past its count bound keeps the newest entries, down to a quarter below the bound', () => {
    const memo = new FifoMemo<string, number>({ maxEntries: 8 });
    for (let i = 0; i < 9; i++) memo.set(`k${i}`, i);
    expect(memo.size).toBe(Math.floor(8 * TRIM_TO));
    expect(memo.get('k0')).toBeUndefined();
    expect(memo.get('k2')).toBeUndefined();
    expect(memo.get('k3')).toBe(3);
    expect(memo.get('k8')).toBe(8);
    for (let i = 9; i < 1000; i++) {
      memo.set(`k${i}`, i);
      expect(memo.size).toBeLessThanOrEqual(8);
      expect(memo.get(`k${i}`)).toBe(i);
    }
  });

  it('keeps the total weight within its bound, dropping the oldest first', () => {
    const memo = new FifoMemo<string, string>({ maxWeight: 100, weigh: (key, value) => key.length + value.length });
    const seen: string[] = [];
    for (let i = 0; i < 200; i++) {
      const key = `key-${i}`;
      memo.set(key, 'v'.repeat(i % 7));
      seen.push(key);
      expect(memo.totalWeight).toBeLessThanOrEqual(100);
      // what is held is a run of the newest keys
      const held = seen.filter((k) => memo.get(k) !== undefined);
      expect(held).toEqual(seen.slice(seen.length - held.length));
    }
    const sum = seen.filter((k) => memo.get(k) !== undefined).reduce((total, k) => total + k.length + memo.get(k)!.length, 0);
    expect(memo.totalWeight).toBe(sum);
  });

  it('setting a key again replaces its weight instead of adding to it', () => {
    const memo = new FifoMemo<string, string>({ maxWeight: 1_000, weigh: (_key, value) => value.length });
    memo.set('a', 'xxxx');
    memo.set('a', 'xx');
    memo.set('b', '');
    expect(memo.totalWeight).toBe(2);
    expect(memo.size).toBe(2);
    expect(memo.get('a')).toBe('xx');
  });
});
