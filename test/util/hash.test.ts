import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/util/hash.js';

describe('sha256Hex', () => {
  it('is the sha256 hex digest of a text (UTF-8) and of bytes, as createHash gives it', () => {
    for (const text of ['', 'abc', 'path\0src/a.ts', 'héllo wörld ✓ 𝒳', 'x'.repeat(100_000)]) {
      expect(sha256Hex(text)).toBe(createHash('sha256').update(text).digest('hex'));
      const bytes = Buffer.from(text, 'utf8');
      expect(sha256Hex(bytes)).toBe(createHash('sha256').update(bytes).digest('hex'));
    }
  });

  it('keeps the digest of known inputs', () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
