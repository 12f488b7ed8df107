import { randomBytes } from 'node:crypto';
import {
  closeSync,
  fstatSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readSync,
  constants,
  lstatSync,
  realpathSync,
  statSync,
  writeSync,
} from 'node:fs';
import { rename, rm, writeFile } from 'node:fs/promises';
import { dirname, parse, resolve } from 'node:path';
import { AiwgError } from '../errors.js';

/**
 * Writing without leaving anything half-done: whole files by temp file + rename, whole lines
 * by one O_APPEND write that is undone on failure, and directories made one level at a time
 * (Node's recursive mkdir loops forever under /proc). Failures the user can fix (read-only,
 * a directory or a file in the way, disk full) become one-line WriteErrors naming the path.
 */

/** A file could not be written for a reason on the user's side. Exit code 2. */
export class WriteError extends AiwgError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('E_WRITE', message, { exitCode: 2, ...options });
    this.name = 'WriteError';
  }
}

/** What went wrong with `path`, in words, for an errno error of a write. */
export function describeWriteFailure(path: string, error: unknown, flag = 'the path'): string {
  const code = (error as NodeJS.ErrnoException).code ?? 'error';
  const why: Record<string, string> = {
    EACCES: 'permission denied: choose a writable location',
    EPERM: 'permission denied: choose a writable location',
    EROFS: 'the file system is read-only: choose a writable location',
    EISDIR: 'it is a directory: give a file name',
    ENOTDIR: 'a part of the path is a file, not a directory: fix the path',
    EEXIST: 'a part of the path is a file, not a directory: fix the path',
    ENOENT: 'a directory on the way cannot be created: fix the path',
    ENOSPC: 'the disk is full: free space and run again',
    EDQUOT: 'the disk quota is exceeded: free space and run again',
    ELOOP: 'too many symlinks: fix the path',
    ENAMETOOLONG: 'the name is too long: use a shorter path',
  };
  return `cannot write ${path} (${code}): ${why[code] ?? `check ${flag}`}`;
}

/** Directories are made one level at a time, at most this many (a path deeper is a mistake). */
const MAX_NEW_DIRS = 64;

/**
 * mkdir -p without Node's recursive mkdir, which retries forever on /proc. Throws WriteError
 * naming the first component that is not a directory or cannot be made.
 */
export function ensureDir(dir: string): void {
  const missing: string[] = [];
  let current = resolve(dir);
  const { root } = parse(current);
  for (;;) {
    let info;
    try {
      info = statSync(current);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT') throw new WriteError(describeWriteFailure(current, error), { cause: error });
      if (current === root || missing.length >= MAX_NEW_DIRS) throw new WriteError(`cannot create ${dir}: no existing parent directory within ${MAX_NEW_DIRS} levels`);
      missing.push(current);
      current = dirname(current);
      continue;
    }
    if (!info.isDirectory()) throw new WriteError(`cannot create ${dir}: ${current} is a file, not a directory; fix the path`);
    break;
  }
  for (const path of missing.reverse()) {
    try {
      mkdirSync(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST' && statSync(path).isDirectory()) continue;
      throw new WriteError(describeWriteFailure(path, error), { cause: error });
    }
  }
}

/**
 * Write a file so readers see the old content or the new, never half of it: a temp file
 * beside the target, renamed over it (atomic on POSIX within one filesystem).
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array): Promise<void> {
  const staged = await stageFileAtomic(path, data);
  await staged.commit();
}

export interface StagedWrite {
  /** The path that will be written (a symlink's target when the path is a link to a file). */
  path: string;
  /** Make the staged content visible at `path`. */
  commit(): Promise<void>;
  /** Drop the staged content; `path` is untouched. */
  abort(): Promise<void>;
}

/**
 * Stage a write: every check that can fail (parent directories, a directory or a dangling
 * link in the way, permissions, disk space) happens now, the visible change only at commit.
 * So a run writes its output only after everything else succeeded, and a failing run leaves
 * no output behind. Character devices and FIFOs (`/dev/stdout`, a pipe) are written directly
 * at commit: they cannot be renamed over.
 */
export async function stageFileAtomic(path: string, data: string | Uint8Array, flag = 'the path'): Promise<StagedWrite> {
  const target = outputTarget(path, flag);
  if (target.kind === 'device') {
    return { path: target.path, commit: () => writeFile(target.path, data).catch((error: unknown) => rethrowWrite(target.path, error, flag)), abort: async () => {} };
  }
  ensureDir(dirname(target.path));
  const tmp = `${target.path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(tmp, data, { flag: 'wx' });
  } catch (error) {
    await rm(tmp, { force: true });
    rethrowWrite(target.path, error, flag);
  }
  return {
    path: target.path,
    commit: async () => {
      try {
        await rename(tmp, target.path);
      } catch (error) {
        await rm(tmp, { force: true });
        rethrowWrite(target.path, error, flag);
      }
    },
    abort: () => rm(tmp, { force: true }),
  };
}

/** Where a write to `path` lands, or WriteError when something is in the way. */
function outputTarget(path: string, flag: string): { kind: 'file' | 'device'; path: string } {
  let info;
  try {
    info = lstatSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { kind: 'file', path };
    if (code === 'ENOTDIR') throw new WriteError(describeWriteFailure(path, error, flag), { cause: error });
    throw new WriteError(describeWriteFailure(path, error, flag), { cause: error });
  }
  if (info.isSymbolicLink()) {
    let real: string;
    try {
      real = realpathSync(path);
    } catch {
      throw new WriteError(`cannot write ${path}: it is a symlink to a missing file; remove the link or give another path (${flag})`);
    }
    return outputTarget(real, flag);
  }
  if (info.isDirectory()) throw new WriteError(`cannot write ${path}: it is a directory; give a file name (${flag})`);
  if (info.isCharacterDevice() || info.isFIFO()) return { kind: 'device', path };
  if (!info.isFile()) throw new WriteError(`cannot write ${path}: it is not a regular file; give another path (${flag})`);
  return { kind: 'file', path };
}

function rethrowWrite(path: string, error: unknown, flag: string): never {
  if (error instanceof AiwgError) throw error;
  throw new WriteError(describeWriteFailure(path, error, flag), { cause: error });
}

/** The fs calls of appendLine: real by default, a fault-injecting fake in tests. */
export interface AppendFs {
  openSync: typeof openSync;
  fstatSync: (fd: number) => { size: number };
  readSync: (fd: number, buffer: Buffer, offset: number, length: number, position: number) => number;
  writeSync: (fd: number, buffer: Buffer) => number;
  ftruncateSync: (fd: number, len: number) => void;
  closeSync: (fd: number) => void;
}

const NODE_APPEND_FS: AppendFs = { openSync, fstatSync, readSync, writeSync, ftruncateSync, closeSync };

/**
 * Append one line (no newline inside) to a log so the log never holds a torn line: one write
 * of the whole line to a descriptor opened O_APPEND (concurrent writers never interleave
 * inside it); a short or failed write (disk full) is cut off again by truncating back to the
 * size before it; and when an earlier crash left the last line without its newline, a newline
 * goes first so that fragment cannot swallow this line.
 */
export function appendLine(path: string, line: string, fs: AppendFs = NODE_APPEND_FS): void {
  ensureDir(dirname(path));
  let fd: number;
  try {
    fd = fs.openSync(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT, 0o644);
  } catch (error) {
    throw new WriteError(describeWriteFailure(path, error), { cause: error });
  }
  try {
    const before = fs.fstatSync(fd).size;
    let prefix = '';
    if (before > 0 && lastByte(path, before, fs) !== 0x0a) prefix = '\n';
    const bytes = Buffer.from(`${prefix}${line}\n`, 'utf8');
    let written = 0;
    try {
      written = fs.writeSync(fd, bytes);
    } catch (error) {
      undoAppend(fd, before, fs);
      throw new WriteError(describeWriteFailure(path, error), { cause: error });
    }
    if (written !== bytes.length) {
      undoAppend(fd, before, fs);
      throw new WriteError(`cannot write ${path} (ENOSPC): only ${written} of ${bytes.length} bytes were written (disk full?); the partial line was removed`);
    }
  } finally {
    fs.closeSync(fd);
  }
}

/** The byte at `size - 1` (a write-only O_APPEND descriptor cannot read it); undefined when unreadable. */
function lastByte(path: string, size: number, fs: AppendFs): number | undefined {
  let fd: number | undefined;
  try {
    fd = fs.openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
    const byte = Buffer.alloc(1);
    return fs.readSync(fd, byte, 0, 1, size - 1) === 1 ? byte[0] : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

function undoAppend(fd: number, size: number, fs: AppendFs): void {
  try {
    fs.ftruncateSync(fd, size);
  } catch {
    // A device or a file system without truncate: nothing more we can do.
  }
}
