import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export interface FixtureCommit {
  /** Files to write (content) or delete (null) in this commit, root-relative. */
  files: Record<string, string | null>;
  /** ISO date for author and committer, e.g. '2026-01-02T03:04:05Z'. */
  date: string;
  message?: string;
}

/** A temp directory, removed by `cleanup()`. */
export interface Fixture {
  root: string;
  cleanup(): void;
  git(...args: string[]): string;
  write(path: string, content: string): void;
}

/** Make an empty temp directory (no git). */
export function makeTempDir(prefix = 'aiwg-test-'): Fixture {
  const root = mkdtempSync(join(tmpdir(), prefix));
  return {
    root,
    cleanup: () => rmSync(root, { recursive: true, force: true }),
    git: (...args) => runGit(root, args, {}),
    write: (path, content) => writeFile(root, path, content),
  };
}

/**
 * Build a git repository in a temp dir from a list of commits with fixed dates, so
 * recency and history signals are deterministic.
 */
export function makeFixtureRepo(commits: FixtureCommit[], options: { untracked?: Record<string, string> } = {}): Fixture {
  const fixture = makeTempDir('aiwg-repo-');
  const { root } = fixture;
  runGit(root, ['init', '-q', '-b', 'main'], {});
  runGit(root, ['config', 'user.email', 'test@example.com'], {});
  runGit(root, ['config', 'user.name', 'Test'], {});
  runGit(root, ['config', 'commit.gpgsign', 'false'], {});
  for (const [i, commit] of commits.entries()) {
    for (const [path, content] of Object.entries(commit.files)) {
      if (content === null) runGit(root, ['rm', '-q', '--', path], {});
      else writeFile(root, path, content);
    }
    runGit(root, ['add', '-A'], {});
    const env = { GIT_AUTHOR_DATE: commit.date, GIT_COMMITTER_DATE: commit.date };
    runGit(root, ['commit', '-q', '--allow-empty', '-m', commit.message ?? `commit ${i + 1}`], env);
  }
  for (const [path, content] of Object.entries(options.untracked ?? {})) writeFile(root, path, content);
  return fixture;
}

function writeFile(root: string, path: string, content: string): void {
  const abs = join(root, path);
  mkdirSync(dirname(abs), { recursive: true });
  writeFileSync(abs, content);
}

function runGit(cwd: string, args: string[], env: Record<string, string>): string {
  return execFileSync('git', args, { cwd, env: { ...process.env, ...env }, encoding: 'utf8' });
}
