import { execFile, spawn } from 'node:child_process';
import { lstatSync, readdirSync, readFileSync, realpathSync, statSync, type Stats } from 'node:fs';
import type { CandidateFile, Config, RunContext } from '../types.js';
import { resolveCacheDir } from '../cache/cache-dir.js';
import type { FactKind } from '../facts/fact-kind.js';
import { factStorePath, openFactStore, type FactStore } from '../facts/fact-store.js';
import { DEFAULT_FACT_KINDS } from '../facts/registry.js';
import { MAX_INPUT_FILE_BYTES, readRegularFileSync, type RefusalCode } from '../security/read-guard.js';

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

/** Failure of one git command; `notARepository` tells the stage to walk the tree instead. */
export class GitCommandError extends Error {
  constructor(
    readonly args: string[],
    readonly exitCode: number | null,
    readonly stderr: string,
    readonly isMissingGit = false,
  ) {
    super(isMissingGit ? 'git is not installed or not on PATH' : `git ${args.join(' ')} failed (exit ${exitCode}): ${stderr.trim()}`);
    this.name = 'GitCommandError';
  }

  get notARepository(): boolean {
    return /not a git repository/i.test(this.stderr);
  }
}

/** What the collect stage needs from git. */
export interface GitPort {
  /** Run git in `cwd`; resolve with stdout bytes, reject with GitCommandError. */
  run(args: string[], cwd: string): Promise<Buffer>;
  /**
   * Run git and hand stdout to `onData` chunk by chunk; when `onData` returns false the
   * process is stopped and the promise resolves (used to bound `git log` on long histories).
   */
  stream(args: string[], cwd: string, onData: (chunk: Buffer) => boolean): Promise<void>;
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

/** Settings every git child gets whatever the caller's environment. */
const GIT_ENV = { GIT_PAGER: 'cat', GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' } as const;

/** Large enough for `ls-files` of a monorepo (200k paths at ~100 bytes). */
const MAX_GIT_OUTPUT_BYTES = 512 * 1024 * 1024;
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

/**
 * git through execFile/spawn rather than simple-git: the same child process underneath
 * (`git ls-files` on 5,000 files, median of 15: execFile 68 ms, simple-git 79 ms, in
 * `node dist/bench/collect-bench.js` on a loaded 2-core box), and we need raw NUL-separated
 * bytes and early termination of `git log`, which simple-git does not expose.
 */
export function execGit(baseEnv?: Readonly<Record<string, string | undefined>>): GitPort {
  // Never let a user's pager, prompts or locale change what we parse. `baseEnv` is the caller's
  // environment (the CLI passes its own); without one the library reads none, and the child
  // inherits the process's as Node does when no `env` is given (these settings then unset).
  const env = baseEnv === undefined ? undefined : { ...baseEnv, ...GIT_ENV };
  // Whatever the environment, git never writes its index for us: a status that refreshed it
  // would take a lock the user's own git may need, and tell a warm index's watchers that git's
  // view changed when only a file did.
  const argv = (args: string[]) => ['--no-optional-locks', ...args];
  return {
    run: (args, cwd) =>
      new Promise((resolve, reject) => {
        execFile('git', argv(args), { cwd, env, encoding: 'buffer', maxBuffer: MAX_GIT_OUTPUT_BYTES }, (error, stdout, stderr) => {
          if (error) {
            const code = (error as NodeJS.ErrnoException).code;
            reject(new GitCommandError(args, typeof code === 'number' ? code : null, stderr?.toString('utf8') ?? '', code === 'ENOENT'));
          } else resolve(stdout);
        });
      }),
    stream: (args, cwd, onData) =>
      new Promise((resolve, reject) => {
        const child = spawn('git', argv(args), { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
        let stopped = false;
        let stderr = '';
        child.stderr.on('data', (chunk: Buffer) => {
          if (stderr.length < 4096) stderr += chunk.toString('utf8');
        });
        child.stdout.on('data', (chunk: Buffer) => {
          if (stopped) return;
          if (!onData(chunk)) {
            stopped = true;
            child.kill();
          }
        });
        child.on('error', (error: NodeJS.ErrnoException) =>
          reject(new GitCommandError(args, null, error.message, error.code === 'ENOENT')),
        );
        child.on('close', (code) => {
          if (stopped || code === 0) resolve();
          else reject(new GitCommandError(args, code, stderr));
        });
      }),
  };
}
