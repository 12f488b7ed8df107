import { fstatSync, readFileSync, readSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { DefaultSerializer, deserialize } from 'node:v8';
import { crc32 } from 'node:zlib';

/**
 * The frame of our one-file binary caches: magic (8 bytes) | u32 LE format version | u32 LE
 * payload bytes | u32 LE crc32(payload) | payload, a v8 structured-clone serialisation. A bad
 * magic, version, length, checksum or payload is a miss with a reason, never a crash.
 */
export function encodeFramed(magic: Buffer, version: number, value: unknown): Buffer {
  const headerBytes = magic.length + 12;
  // The header's room first, then the payload, in the serialiser's one buffer: a frame of a
  // 44 MB fact store is not held twice (as a payload and then header + payload) while it is written.
  const serializer = new DefaultSerializer();
  serializer.writeRawBytes(Buffer.alloc(headerBytes));
  serializer.writeHeader();
  serializer.writeValue(value);
  const frame = serializer.releaseBuffer();
  const body = frame.subarray(headerBytes);
  magic.copy(frame, 0);
  frame.writeUInt32LE(version, magic.length);
  frame.writeUInt32LE(body.length, magic.length + 4);
  frame.writeUInt32LE(crc32(body), magic.length + 8);
  return frame;
}

/** The value of a framed file, or the reason it is a miss (`what` names the kind of file). */
export function decodeFramed(data: Buffer, magic: Buffer, version: number, what: string): { value: unknown } | { problem: string } {
  const frame = decodeFrameAt(data, 0, magic, version, what);
  if ('problem' in frame) return frame;
  if (frame.end !== data.length) return { problem: `${data.length - frame.end} bytes after the end of the ${what}` };
  return { value: frame.value };
}

/**
 * The frame starting at `offset` of a file that holds several in a row (a base and the deltas
 * appended after it): its value and where it ends, or the reason it is a miss.
 */
export function decodeFrameAt(data: Buffer, offset: number, magic: Buffer, version: number, what: string): { value: unknown; end: number } | { problem: string } {
  const header = frameHeader(data, offset, magic, version, what);
  if ('problem' in header) return header;
  const { length } = header;
  const start = offset + magic.length + 12;
  if (data.length - start < length) return { problem: `truncated (${data.length - start} of ${length} bytes)` };
  const body = data.subarray(start, start + length);
  if (crc32(body) !== data.readUInt32LE(offset + magic.length + 8)) return { problem: 'checksum mismatch' };
  try {
    return { value: deserialize(body) as unknown, end: start + length };
  } catch (error) {
    return { problem: `unreadable (${error instanceof Error ? error.message : String(error)})` };
  }
}

/** The value of the framed file at `path`, read synchronously; undefined when it is missing, unreadable or a miss. */
export function readFramedSync(path: string, magic: Buffer, version: number, what: string): unknown {
  let data: Buffer;
  try {
    data = readFileSync(path);
  } catch {
    return undefined;
  }
  const framed = decodeFramed(data, magic, version, what);
  return 'problem' in framed ? undefined : framed.value;
}

/**
 * The frames appended after a file's first frame, from `at` on, each handed to `use` (which says
 * whether its value is what it expects). A damaged frame, or one `use` refuses, is skipped: the
 * next starts at the next `magic`. `intact` is false when one was skipped.
 */
export function eachAppendedFrame(data: Buffer, at: number, magic: Buffer, version: number, what: string, use: (value: unknown) => boolean): { intact: boolean } {
  let intact = true;
  while (at < data.length) {
    const frame = decodeFrameAt(data, at, magic, version, what);
    if ('problem' in frame || !use(frame.value)) {
      intact = false;
      const next = data.indexOf(magic, at + 1);
      if (next < 0) break;
      at = next;
      continue;
    }
    at = frame.end;
  }
  return { intact };
}

/**
 * Append `record` (a frame) to the file at `path` in one write, when `accept` agrees given the
 * file's inode and size as found; false when it does not, or the file cannot be opened or
 * written (the caller rewrites the file whole).
 */
export async function appendFrame(path: string, record: Buffer, accept: (file: { ino: number; size: number }) => boolean): Promise<boolean> {
  let handle;
  try {
    handle = await open(path, 'a');
  } catch {
    return false;
  }
  try {
    const info = await handle.stat();
    if (!accept({ ino: info.ino, size: info.size })) return false;
    let written = 0;
    while (written < record.length) written += (await handle.write(record, written)).bytesWritten;
    return true;
  } catch {
    return false;
  } finally {
    await handle.close();
  }
}

/**
 * The first frame of an open file, read on its own (what follows it is left unread): its value
 * and the offset where it ends, or the reason it is a miss. The header is checked before the
 * body is read: a frame of another version, or one longer than the file, reads nothing more.
 */
export function readLeadingFrameSync(fd: number, magic: Buffer, version: number, what: string): { value: unknown; end: number } | { problem: string } {
  const header = Buffer.alloc(magic.length + 12);
  const checked = frameHeader(header.subarray(0, readSync(fd, header, 0, header.length, 0)), 0, magic, version, what);
  if ('problem' in checked) return checked;
  const { length } = checked;
  const available = fstatSync(fd).size - header.length;
  if (length > available) return { problem: `truncated (${available} of ${length} bytes)` };
  const frame = Buffer.alloc(header.length + length);
  header.copy(frame);
  for (let at = header.length; at < frame.length; ) {
    const read = readSync(fd, frame, at, frame.length - at, at);
    if (read === 0) return { problem: `truncated (${at - header.length} of ${length} bytes)` };
    at += read;
  }
  return decodeFrameAt(frame, 0, magic, version, what);
}

/** The payload length a frame's header at `offset` gives, or why it is no frame of this kind and version. */
function frameHeader(data: Buffer, offset: number, magic: Buffer, version: number, what: string): { length: number } | { problem: string } {
  if (data.length - offset < magic.length + 12 || !data.subarray(offset, offset + magic.length).equals(magic)) return { problem: `not an ${what}` };
  const found = data.readUInt32LE(offset + magic.length);
  if (found !== version) return { problem: `format ${found}, this version reads ${version}` };
  return { length: data.readUInt32LE(offset + magic.length + 4) };
}
