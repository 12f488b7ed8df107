import { closeSync, openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { encodeFramed, readLeadingFrameSync } from '../../src/util/framed-file.js';
import { makeTempDir } from '../helpers/fixture-repo.js';

const MAGIC = Buffer.from('AIWGTST1', 'latin1');

describe('readLeadingFrameSync', () => {
  const tmp = makeTempDir('aiwg-framed-');
  afterAll(() => tmp.cleanup());
  /** The leading frame of a file holding `bytes`. */
  const readLeading = (name: string, bytes: Buffer) => {
    const path = join(tmp.root, name);
    writeFileSync(path, bytes);
    const fd = openSync(path, 'r');
    try {
      return readLeadingFrameSync(fd, MAGIC, 3, 'test file');
    } finally {
      closeSync(fd);
    }
  };
  const flipped = () => {
    const bytes = encodeFramed(MAGIC, 3, { words: ['a', 'b', 'c'] });
    bytes[bytes.length - 2]! ^= 0xff;
    return bytes;
  };

  it('reads the first frame and says where it ends, leaving what follows unread', () => {
    const frame = encodeFramed(MAGIC, 3, { words: ['a', 'b'] });
    expect(readLeading('good', Buffer.concat([frame, Buffer.alloc(4096, 7)]))).toEqual({ value: { words: ['a', 'b'] }, end: frame.length });
  });

  it.each([
    ['another version, whose body is not read', encodeFramed(MAGIC, 2, { big: 'x'.repeat(10_000) }), /format 2, this version reads 3/],
    ['a length past the end of the file', Buffer.concat([MAGIC, Buffer.from([3, 0, 0, 0, 0xff, 0xff, 0xff, 0x7f, 0, 0, 0, 0])]), /truncated/],
    ['a body cut short', encodeFramed(MAGIC, 3, { words: ['a'] }).subarray(0, 24), /truncated/],
    ['a flipped byte in the body', flipped(), /checksum mismatch/],
    ['another kind of file', Buffer.from('{"json": true}\n'), /not an test file/],
  ])('%s is a miss with its reason', (name, bytes, reason) => {
    expect(readLeading(name.replace(/\W+/g, '-'), bytes)).toEqual({ problem: expect.stringMatching(reason) });
  });
});
