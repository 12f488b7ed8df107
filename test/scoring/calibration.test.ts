import { describe, expect, it } from 'vitest';
import { createScoreStage } from '../../src/scoring/score-files.js';
import { assignTiers, tierOf } from '../../src/allocate/tiers.js';
import { defaultConfig } from '../../src/config/schema.js';
import { testContext } from '../helpers/fakes.js';
import { candidates, DAY_MS, gitFacts } from './helpers.js';
import { SERVICE_FILES, SERVICE_TASK } from './calibration-fixture.js';

const NOW = Date.UTC(2026, 0, 15);

/** Score the fixture with keyword alignment; every file last committed `ageDays` ago unless dirty. */
async function scoreService(options: { task?: string; dirty?: string[]; ageDays?: Record<string, number> } = {}) {
  const config = defaultConfig();
  config.relevance_scoring.scoring_method = 'keyword';
  const files = candidates(SERVICE_FILES, NOW - 90 * DAY_MS);
  const commits = Object.fromEntries(files.map((f) => [f.path, NOW - (options.ageDays?.[f.path] ?? 60) * DAY_MS]));
  const ctx = testContext({ config, nowMs: NOW });
  const result = await createScoreStage({ root: '/repo', config })(
    { task: options.task ?? SERVICE_TASK, collected: { root: '/repo', files, excluded: [], git: gitFacts(commits, options.dirty ?? []), warnings: [] } },
    ctx,
  );
  const tiering = assignTiers(result.files, config);
  const tier = (path: string) => {
    const verdict = tierOf(tiering, path);
    if (!verdict) throw new Error(`no score for ${path}`);
    return verdict.tier;
  };
  return { result, tier, ctx };
}

describe('calibration on a realistic service (default thresholds and weights)', () => {
  it('the file to change is primary although it is neither recent nor mentioned', async () => {
    const { result, tier } = await scoreService();
    expect(result.files[0]?.path).toBe('src/http/client.ts');
    expect(result.files[0]?.relevance).toBeGreaterThanOrEqual(0.7);
    expect(tier('src/http/client.ts')).toBe('primary');
  });

  it.each([
    ['src/http/retry.ts', ['primary', 'supporting']],
    ['test/http/client.test.ts', ['supporting', 'reference']],
    ['src/db/pool.ts', ['excluded']],
    ['src/db/invoices.ts', ['excluded']],
    ['src/util/logger.ts', ['excluded', 'reference']],
    ['test/db/pool.test.ts', ['excluded']],
    ['README.md', ['excluded']],
    ['package.json', ['excluded']],
  ])('%s lands in %j', async (path, tiers) => {
    const { tier } = await scoreService();
    expect(tiers).toContain(tier(path));
  });

  it('a task about something the repository does not contain puts nothing in primary or supporting', async () => {
    const { result } = await scoreService({ task: 'Add a Kubernetes ingress with TLS certificates for the staging cluster' });
    expect(result.files.every((f) => f.relevance < 0.5)).toBe(true);
  });

  it('a recently edited unrelated file rises, but stays out of the primary and supporting tiers', async () => {
    const { tier } = await scoreService({ dirty: ['src/db/invoices.ts'], ageDays: { 'src/db/pool.ts': 1 } });
    expect(['reference', 'excluded']).toContain(tier('src/db/invoices.ts'));
    expect(['reference', 'excluded']).toContain(tier('src/db/pool.ts'));
  });

  it('an @-mentioned file is flagged and scored up', async () => {
    const { result } = await scoreService({ task: `${SERVICE_TASK}; keep @src/util/logger.ts output unchanged` });
    const logger = result.files.find((f) => f.path === 'src/util/logger.ts');
    expect(logger?.mentionedInTask).toBe(true);
    expect(logger?.factors.mention_density.score).toBeGreaterThan(0.8);
  });
});
