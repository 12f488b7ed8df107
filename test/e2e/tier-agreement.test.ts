import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/fakes.js';
import { makeFixtureRepo, type Fixture } from '../helpers/fixture-repo.js';
import { SERVICE_FILES, SERVICE_TASK } from '../scoring/calibration-fixture.js';
import type { BudgetRecord } from '../../src/record/record-schema.js';
import { FILE_TIERS } from '../../src/allocate/tiers.js';

/**
 * `aiwg context-score` and `aiwg context-budget` share one tier rule (src/allocate/tiers.ts):
 * on every candidate of a fixture they must give the same tier, the calibration guard's
 * promotion and task @-mentions included. primary_threshold 0.8 leaves primary empty by
 * thresholds (the rank-relative rule off), so the guard has to promote the top file.
 */
const CONFIG = 'relevance_scoring:\n  thresholds:\n    primary_threshold: 0.8\n    relative:\n      enabled: false\n';
const TASKS = [SERVICE_TASK, `${SERVICE_TASK}; keep @src/util/logger.ts output unchanged`];

let repo: Fixture;
beforeAll(() => {
  repo = makeFixtureRepo([{ files: { ...SERVICE_FILES, '.aiwg/rag/config.yaml': CONFIG }, date: '2010-01-01T00:00:00Z' }]);
});
afterAll(() => repo.cleanup());

async function budgetTiers(task: string): Promise<{ tiers: Map<string, string>; record: BudgetRecord }> {
  const { code, stdout, stderr } = await runCli(['context-budget', task, '--scoring', 'keyword', '--json', '--no-record', '--root', repo.root], repo.root);
  expect(code, stderr).toBe(0);
  const record = JSON.parse(stdout) as BudgetRecord;
  const tiers = new Map<string, string>();
  for (const tier of FILE_TIERS) for (const f of record.allocation[tier].files) tiers.set(f.path, tier);
  for (const e of record.excluded) {
    // the default budget holds every file: only the tier rule excludes here
    expect(e.reason).not.toMatch(/over budget/);
    if (/below include_minimum/.test(e.reason)) tiers.set(e.path, 'excluded');
  }
  return { tiers, record };
}

async function scoreTier(task: string, path: string): Promise<{ tier: string; tierReason: string }> {
  const { code, stdout, stderr } = await runCli(['context-score', path, '--task', task, '--scoring', 'keyword', '--json', '--root', repo.root], repo.root);
  expect(code, stderr).toBe(0);
  return JSON.parse(stdout) as { tier: string; tierReason: string };
}

describe('context-score and context-budget agree on every tier', () => {
  it.each(TASKS)('task %j', async (task) => {
    const { tiers, record } = await budgetTiers(task);
    expect([...tiers.keys()].sort()).toEqual(Object.keys(SERVICE_FILES).sort());
    expect(record.warnings.some((w) => /promoted src\/http\/client\.ts .* to primary/.test(w))).toBe(task === SERVICE_TASK);
    for (const [path, tier] of tiers) {
      const scored = await scoreTier(task, path);
      expect({ path, tier: scored.tier }).toEqual({ path, tier });
      if (path === 'src/http/client.ts' && task === SERVICE_TASK) expect(scored.tierReason).toMatch(/calibration guard/);
      if (path === 'src/util/logger.ts' && task !== SERVICE_TASK) expect(scored.tierReason).toBe('the task @-mentions it');
    }
    // promoted by the guard; with a mentioned file in primary the guard stays out of the way
    expect(tiers.get('src/http/client.ts')).toBe(task === SERVICE_TASK ? 'primary' : 'supporting');
    if (task !== SERVICE_TASK) expect(tiers.get('src/util/logger.ts')).toBe('primary');
  }, 180_000);
});
