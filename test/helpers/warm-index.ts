import type { Config } from '../../src/config/schema.js';
import { createRepoIndex, type RepoIndex, type RepoIndexOptions } from '../../src/repo-index/repo-index.js';

/**
 * A warm index over `root`, collected once after its files have aged past the racy-stat window
 * (files written in the last 2 s could change again without changing their stat), so its
 * watchers and stat table start from a settled tree.
 */
export async function settledWarmIndex(root: string, config: Config, deps?: RepoIndexOptions['deps']): Promise<RepoIndex> {
  const index = createRepoIndex({ root, config, ...(deps ? { deps } : {}) });
  await new Promise((done) => setTimeout(done, 2100));
  await index.refresh();
  return index;
}
