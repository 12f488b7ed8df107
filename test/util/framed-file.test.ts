import { closeSync, openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { serialize } from 'node:v8';
import { crc32 } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { encodeFramed, readLeadingFrameSync } from '../../src/util/framed-file.js';
import { makeTempDir } from '../helpers/fixture-repo.js';

const MAGIC = Buffer.from('AIWGTST1', 'latin1');

describe('encodeFramed', () => {
  it('writes the header, then exactly what v8.serialize gives (frames written before it was one buffer read the same)', () => {
    const value = { map: new Map([['k', [1, 'two']]]), bytes: Buffer.from('raw'), floats: new Float32Array([0.5, 2]), text: 'é\u{1F600}' };
    const payload = serialize(value);
    const frame = encodeFramed(MAGIC, 7, value);
    expect(frame.subarray(0, 8).equals(MAGIC)).toBe(true);
    expect([frame.readUInt32LE(8), frame.readUInt32LE(12), frame.readUInt32LE(16)]).toEqual([7, payload.length, crc32(payload)]);
    expect(frame.subarray(20).equals(payload)).toBe(true);
  });
});

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
