import { execFile, spawn } from 'node:child_process';

/**
 * git as the collect stage runs it: one module of node builtins only, so the CLI can start the
 * first git commands (git-ahead.ts) before it loads the rest of the engine.
 */

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

/** Settings every git child gets whatever the caller's environment. */
const GIT_ENV = { GIT_PAGER: 'cat', GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' } as const;

/** Large enough for `ls-files` of a monorepo (200k paths at ~100 bytes). */
const MAX_GIT_OUTPUT_BYTES = 512 * 1024 * 1024;

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
