import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { fileListDigest, sha256Hex } from '../../src/util/hash.js';

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

describe('fileListDigest', () => {
  it('digests every path and hash in order, once per list object', () => {
    const files = [
      { path: 'a.ts', hash: '1' },
      { path: 'b.ts', hash: '2' },
    ];
    const digest = fileListDigest(files);
    expect(digest).toBe(createHash('sha256').update('a.ts\x001\nb.ts\x002\n').digest('hex'));
    // the same list object: the digest made then (a changed entry in place is not seen; lists are not changed in place)
    expect(fileListDigest(files)).toBe(digest);
    expect(fileListDigest([...files].reverse())).not.toBe(digest);
    expect(fileListDigest([{ path: 'a.ts', hash: '1' }, { path: 'b.ts', hash: '3' }])).not.toBe(digest);
    // a path may hold a newline (never a NUL): the fields stay apart
    expect(fileListDigest([{ path: 'a.ts', hash: '1\nb.ts' }, { path: '2', hash: '' }])).not.toBe(digest);
  });
});
