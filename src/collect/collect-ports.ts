import { lstatSync, readdirSync, readFileSync, realpathSync, statSync, type Stats } from 'node:fs';
import type { Config } from '../types.js';
import { resolveCacheDir } from '../cache/cache-dir.js';
import type { FactKind } from '../facts/fact-kind.js';
import { factStorePath, openFactStore, type FactStore } from '../facts/fact-store.js';
import { DEFAULT_FACT_KINDS } from '../facts/registry.js';
import { MAX_INPUT_FILE_BYTES, readRegularFileSync, type RefusalCode } from '../security/read-guard.js';
import { execGit, type GitPort } from './git-port.js';

export { execGit, GitCommandError, type GitPort } from './git-port.js';

/** Error codes of a refused read, as read-candidate.ts maps them to reasons. */
const GUARD_ERRNO: Record<RefusalCode, string> = {
  'not-found': 'ENOENT',
  'outside-root': 'E_OUTSIDE_ROOT',
  'not-regular': 'E_NOT_REGULAR',
  'too-large': 'E_TOO_LARGE',
  unreadable: 'EIO',
};

/** What the collect stage needs from the file system. Tests may pass an in-memory fake. */
export interface CollectFs {
  lstat(path: string): Promise<FileInfo>;
  stat(path: string): Promise<FileInfo>;
  realpath(path: string): Promise<string>;
  /** The bytes of a regular file of at most `maxBytes` (checked on the descriptor before reading). */
  readFile(path: string, maxBytes?: number): Promise<Buffer>;
  readdir(path: string): Promise<DirEntry[]>;
  /**
   * Synchronous read, for content loaded on first use (a candidate whose facts came from the
   * fact store is read only if a later stage asks for its text). Without it every file is read at collect.
   */
  readFileSync?(path: string): Buffer;
  /** Synchronous lstat, for an mtime looked up on first use (throws as lstat does when the path is gone). */
  lstatSync?(path: string): FileInfo;
}

export type FileKind = 'file' | 'dir' | 'symlink' | 'other';

export interface FileInfo {
  kind: FileKind;
  size: number;
  mtimeMs: number;
  /** Inode number, when the file system has one: part of the stat key of the fact store. */
  ino?: number;
  /**
   * Status change time: part of the stat key too, as in git (core.trustctime). A tool that puts
   * a file's mtime back after writing it (utimes) cannot put its ctime back.
   */
  ctimeMs?: number;
}

export interface DirEntry {
  name: string;
  kind: FileKind;
}

/**
 * The persisted index for a root: null = none (every file is read, as with an in-memory fake
 * fs). Called once per collect; a long-lived process returns the same store every time.
 */
export type FactStorePort = (rootReal: string, config: Config) => Promise<FactStore | null>;

/** Ports of the collect stage. */
export interface CollectPorts {
  fs: CollectFs;
  git: GitPort;
  /** Files read at once. The libuv pool has 4 threads; more in flight keeps it busy. */
  concurrency: number;
  /** Default: the store under the cache directory when `fs` is the real one, else none. */
  factStore: FactStorePort;
  /** Fact kinds extracted from every blob read (default: src/facts/registry.ts). */
  factKinds: ReadonlyArray<FactKind<unknown>>;
}

export const DEFAULT_READ_CONCURRENCY = 32;

export function defaultCollectPorts(): CollectPorts {
  return { fs: nodeFs(), git: execGit(), concurrency: DEFAULT_READ_CONCURRENCY, factStore: diskFactStore, factKinds: DEFAULT_FACT_KINDS };
}

/** The fact store file under the run's cache directory, loaded in one read. */
export const diskFactStore: FactStorePort = (rootReal, config) => openFactStore(factStorePath(resolveCacheDir(rootReal, config)));

function toInfo(s: Stats): FileInfo {
  const kind: FileKind = s.isSymbolicLink() ? 'symlink' : s.isFile() ? 'file' : s.isDirectory() ? 'dir' : 'other';
  return { kind, size: s.size, mtimeMs: s.mtimeMs, ino: s.ino, ctimeMs: s.ctimeMs };
}

/**
 * The real file system. Synchronous calls behind the async port, on purpose: on a warm page
 * cache each fs/promises call is a thread-pool round trip, and reading the 5,000 files of
 * bench repo took 330 ms with fs/promises (any concurrency from 8 to 128), 240 ms with
 * promisified callbacks and 60 ms with sync calls (node /tmp/bench-read*.mjs, 2-core box).
 * Nothing else needs the event loop meanwhile; `git log` waits in its pipe.
 */
export function nodeFs(): CollectFs {
  return {
    lstat: async (path) => toInfo(lstatSync(path)),
    lstatSync: (path) => toInfo(lstatSync(path)),
    stat: async (path) => toInfo(statSync(path)),
    realpath: async (path) => realpathSync.native(path),
    readFile: async (path, maxBytes = MAX_INPUT_FILE_BYTES) => {
      const read = readRegularFileSync(path, { maxBytes });
      if (read.kind === 'ok') return read.file.bytes;
      throw Object.assign(new Error(`${path} ${read.reason}`), { code: GUARD_ERRNO[read.code] });
    },
    readFileSync: (path) => readFileSync(path),
    readdir: async (path) =>
      readdirSync(path, { withFileTypes: true }).map((d) => ({
        name: d.name,
        kind: d.isSymbolicLink() ? 'symlink' : d.isFile() ? 'file' : d.isDirectory() ? 'dir' : 'other',
      })),
  };
}
