import { ConfigSchema, type Config } from '../../src/config/schema.js';
import type { PipelineDeps, PipelineResult } from '../../src/pipeline.js';
import { createRepoIndex, type RepoIndex, type RepoIndexOptions } from '../../src/repo-index/repo-index.js';
import { plainScores } from './plain-scores.js';

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

/** Keyword scoring, the chars4 tokenizer and its own cache directory: a warm or cold run without a model. */
export function keywordConfig(cacheDir: string): Config {
  return ConfigSchema.parse({ relevance_scoring: { scoring_method: 'keyword' }, tokenizer: 'chars4', cache: { dir: cacheDir } });
}

/** The record without what differs between any two runs (ids, times) or names the cache directory, and every file's scores with their explanations. */
export function comparableRun(result: PipelineResult): unknown {
  const { run_id: _id, timestamp: _t, timings_ms: _ms, config_hash: _hash, ...rest } = result.record;
  return { record: rest, scored: plainScores(result.scored), rendered: result.rendered };
}

/** A fixed clock and run id: two runs on the same tree give the same record. */
export const FIXED_RUN: Partial<PipelineDeps> = { now: () => Date.UTC(2026, 1, 1), newRunId: () => 'run' };
