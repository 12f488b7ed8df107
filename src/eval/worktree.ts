import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GitRunner } from './git.js';

/**
 * Run `fn` in a temporary detached worktree of `repoRoot` at `commit`. The user's checkout
 * (working tree, index, HEAD, branches) is never touched; the worktree and its admin entry are
 * removed afterwards, also when `fn` throws.
 */
export async function withWorktree<T>(
  repoRoot: string,
  commit: string,
  fn: (dir: string) => Promise<T>,
  git: GitRunner,
): Promise<T> {
  const parent = await mkdtemp(join(tmpdir(), 'aiwg-eval-'));
  const dir = join(parent, 'checkout');
  try {
    // Hooks off: a repository's post-checkout hook has no business running in a throwaway checkout.
    await git(repoRoot, ['-c', 'core.hooksPath=/dev/null', 'worktree', 'add', '--detach', '--quiet', dir, commit]);
    return await fn(dir);
  } finally {
    await git(repoRoot, ['worktree', 'remove', '--force', dir]).catch(() => undefined);
    await rm(parent, { recursive: true, force: true });
    // Drops the admin entry when `worktree remove` failed (e.g. the add itself failed half way).
    await git(repoRoot, ['worktree', 'prune']).catch(() => undefined);
  }
}
