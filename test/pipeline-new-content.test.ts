import { afterAll, describe, expect, it } from 'vitest';
import { ConfigSchema } from '../src/config/schema.js';
import { defaultDeps, runContextBudget } from '../src/pipeline.js';
import type { CollectStage, LevelsStage } from '../src/stages.js';
import { makeFixtureRepo, makeTempDir, type Fixture } from './helpers/fixture-repo.js';

const fixtures: Fixture[] = [];
afterAll(() => fixtures.forEach((f) => f.cleanup()));

describe('new content and the levels stage', () => {
  it('tells the levels stage of each file collect read as new content, once collect is done; a warm run of nothing new tells it nothing', async () => {
    const repo = makeFixtureRepo([{ files: { 'src/retry.ts': 'export function retry(n: number): number {\n  return n + 1;\n}\n', 'README.md': '# Retry\n' }, date: '2026-01-02T03:04:05Z' }]);
    const cache = makeTempDir('aiwg-new-content-');
    fixtures.push(repo, cache);
    const config = ConfigSchema.parse({ cache: { dir: cache.root }, relevance_scoring: { scoring_method: 'keyword' } });
    const run = async () => {
      const events: string[] = [];
      const real = defaultDeps(config, repo.root);
      const collect: CollectStage = async (input, ctx) => {
        const collected = await real.collect(input, ctx);
        events.push('collected');
        return collected;
      };
      const levels: LevelsStage = Object.assign((input: Parameters<LevelsStage>[0], ctx: Parameters<LevelsStage>[1]) => real.levels(input, ctx), {
        settle: () => real.levels.settle?.() ?? Promise.resolve(),
        newContent: (file: { path: string }) => void events.push(`new ${file.path}`),
      });
      await runContextBudget({ task: 'fix retry', root: repo.root, config }, { collect, levels });
      return events;
    };
    const cold = await run();
    expect(cold[0]).toBe('collected');
    expect(cold.slice(1).sort()).toEqual(['new README.md', 'new src/retry.ts']);
    expect(await run()).toEqual(['collected']);
  });
});
