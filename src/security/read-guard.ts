import { closeSync, constants, fstatSync, openSync, readSync, realpathSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { formatCount } from '../util/format.js';

/**
 * The read-path guard every reader goes through (tree, manifests, handoffs, configs, history,
 * summarize): a path must stay inside its root after symlinks are resolved, must be a regular
 * file, and must be at most `maxBytes`, all checked on the open descriptor BEFORE a byte is
 * read. Opening is non-blocking, so a FIFO cannot hang the run; `/dev/zero` is a character
 * device and is refused by fstat, not read until memory runs out. Refusals are values with a
 * reason (never file content), so each caller decides whether to skip the file or fail.
 */

/** Config files, manifests, handoffs and histories are small; anything bigger is a mistake. */
export const MAX_INPUT_FILE_BYTES = 4 * 1024 * 1024;

export type RefusalCode = 'not-found' | 'outside-root' | 'not-regular' | 'too-large' | 'unreadable';

export interface GuardedFile {
  bytes: Buffer;
  /** Real path (symlinks resolved) of the file read. */
  realPath: string;
  mtimeMs: number;
}

export type GuardResult = { kind: 'ok'; file: GuardedFile } | { kind: 'refused'; code: RefusalCode; reason: string };

/** Read a regular file of at most `maxBytes` by descriptor. Symlinks are followed; use readInsideRoot to confine. */
export function readRegularFileSync(path: string, options: { maxBytes: number; followSymlinks?: boolean }): GuardResult {
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO with no writer returns at once instead of waiting forever.
    const noFollow = options.followSymlinks === false ? constants.O_NOFOLLOW : 0;
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | noFollow);
  } catch (error) {
    return refusedFromErrno(error);
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) return { kind: 'refused', code: 'not-regular', reason: `is ${describeKind(info)}, not a regular file` };
    if (info.size > options.maxBytes) return tooLarge(info.size, options.maxBytes);
    // Read to EOF but never past the cap: /proc files report size 0, and a file may grow after fstat.
    const chunks: Buffer[] = [];
    let total = 0;
    const chunkSize = Math.min(Math.max(info.size + 1, 4096), options.maxBytes + 1, 1 << 20);
    for (;;) {
      const chunk = Buffer.allocUnsafe(chunkSize);
      const read = readSync(fd, chunk, 0, chunk.length, null);
      if (read === 0) break;
      total += read;
      if (total > options.maxBytes) return tooLarge(total, options.maxBytes);
      chunks.push(read === chunk.length ? chunk : chunk.subarray(0, read));
    }
    return { kind: 'ok', file: { bytes: Buffer.concat(chunks, total), realPath: path, mtimeMs: info.mtimeMs } };
  } catch (error) {
    return refusedFromErrno(error);
  } finally {
    closeSync(fd);
  }
}

/** Is `path` a regular file? Opened (non-blocking) and fstat-ed, never read. */
export function probeRegularFileSync(path: string, options: { followSymlinks?: boolean } = {}): { kind: 'ok'; size: number } | Extract<GuardResult, { kind: 'refused' }> {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | (options.followSymlinks === false ? constants.O_NOFOLLOW : 0));
  } catch (error) {
    return refusedFromErrno(error);
  }
  try {
    const info = fstatSync(fd);
    return info.isFile() ? { kind: 'ok', size: info.size } : { kind: 'refused', code: 'not-regular', reason: `is ${describeKind(info)}, not a regular file` };
  } finally {
    closeSync(fd);
  }
}

export async function readRegularFile(path: string, options: { maxBytes: number }): Promise<GuardResult> {
  return readRegularFileSync(path, options);
}

/**
 * Read `path` (absolute, or relative to `root`) only when its real location is inside the real
 * root: a symlink out of the root is refused before anything is opened.
 */
export async function readInsideRoot(root: string, path: string, options: { maxBytes: number; realRoot?: string }): Promise<GuardResult> {
  const located = locateInsideRoot(root, path, options.realRoot);
  if (located.kind === 'refused') return located;
  const result = readRegularFileSync(located.realPath, { maxBytes: options.maxBytes, followSymlinks: false });
  return result;
}

/** The real path of `path` when it is inside the real root; never opens the file. */
export function locateInsideRoot(
  root: string,
  path: string,
  realRoot?: string,
): { kind: 'ok'; realPath: string; relPath: string } | { kind: 'refused'; code: RefusalCode; reason: string } {
  let real: string;
  let rootReal: string;
  try {
    rootReal = realRoot ?? realpathSync.native(root);
    real = realpathSync.native(isAbsolute(path) ? path : resolve(root, path));
  } catch (error) {
    return refusedFromErrno(error);
  }
  if (!isInside(rootReal, real)) {
    return { kind: 'refused', code: 'outside-root', reason: `resolves outside the root ${rootReal} (a symlink or ".." leading out); only files inside the root are read` };
  }
  return { kind: 'ok', realPath: real, relPath: relative(rootReal, real).split(sep).join('/') };
}

/** True when `child` is `parent` or below it (both absolute and real). */
export function isInside(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

function tooLarge(size: number, maxBytes: number): GuardResult {
  return { kind: 'refused', code: 'too-large', reason: `is over the size limit (${formatCount(size)}${size > maxBytes ? '' : '+'} bytes > ${formatCount(maxBytes)})` };
}

function refusedFromErrno(error: unknown): { kind: 'refused'; code: RefusalCode; reason: string } {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'refused', code: 'not-found', reason: 'does not exist' };
  if (code === 'ELOOP') return { kind: 'refused', code: 'not-regular', reason: 'is a symlink (loop or changed while reading), not a regular file' };
  if (code === 'EISDIR') return { kind: 'refused', code: 'not-regular', reason: 'is a directory, not a regular file' };
  return { kind: 'refused', code: 'unreadable', reason: `cannot be read (${code ?? 'error'})` };
}

function describeKind(info: import('node:fs').Stats): string {
  if (info.isDirectory()) return 'a directory';
  if (info.isFIFO()) return 'a FIFO (named pipe)';
  if (info.isCharacterDevice()) return 'a character device';
  if (info.isBlockDevice()) return 'a block device';
  if (info.isSocket()) return 'a socket';
  return 'not a regular file';
}
