import { it } from 'vitest';
import { createScoreStage } from '../../src/scoring/score-files.js';
import { defaultConfig } from '../../src/config/schema.js';
import { testContext } from '../helpers/fakes.js';
import { candidates, DAY_MS, gitFacts } from './helpers.js';
import { SERVICE_FILES, SERVICE_TASK } from './calibration-fixture.js';
it('debug', async () => {
  const NOW = Date.UTC(2026, 0, 15);
  const config = defaultConfig();
  config.relevance_scoring.scoring_method = 'keyword';
  const files = candidates(SERVICE_FILES, NOW - 90 * DAY_MS);
  const commits = Object.fromEntries(files.map((f) => [f.path, NOW - 60 * DAY_MS]));
  const ctx = testContext({ config, nowMs: NOW });
  const r = await createScoreStage({ root: '/repo', config })({ task: process.env.TASK ?? SERVICE_TASK, collected: { root: '/repo', files, excluded: [], git: gitFacts(commits), warnings: [] } }, ctx);
  for (const s of r.files) console.log(s.relevance.toFixed(3), Object.values(s.factors).map((f) => f.score.toFixed(2)).join(' '), s.path, s.factors.task_alignment.detail);
});
