import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeFixtureRepo, type Fixture } from '../helpers/fixture-repo.js';
import { runCli } from '../helpers/fakes.js';
import type { BudgetRecord } from '../../src/record/record-schema.js';
import { levelReason } from '../../src/record/level-reason.js';

/** `aiwg context-score <file> --run <id>` explains from the recorded run, not from today's tree. */
const fixtures: Fixture[] = [];
afterAll(() => fixtures.forEach((f) => f.cleanup()));

describe('context-score --run', () => {
  it('explains an included file with its recorded factors, level and why, after the tree changed', async () => {
    const fixture = makeFixtureRepo([
      {
        date: '2026-01-01T10:00:00Z',
        files: {
          'src/retry.ts': '/** Retry loop with backoff delay. */\nexport function retryDelay(n: number): number {\n  return n * 2;\n}\n',
          'src/client.ts': "import { retryDelay } from './retry.js';\nexport const client = { retryDelay };\n",
          'README.md': '# demo\n',
        },
      },
    ]);
    fixtures.push(fixture);
    const budget = await runCli(['context-budget', 'fix retryDelay backoff in src/retry.ts', '--scoring', 'keyword', '--json'], fixture.root);
    const record = JSON.parse(budget.stdout) as BudgetRecord;
    const tier = (['primary', 'supporting', 'reference'] as const).find((t) => record.allocation[t].files.some((f) => f.path === 'src/retry.ts'))!;
    const file = record.allocation[tier].files.find((f) => f.path === 'src/retry.ts')!;
    expect(file.level_reason).toBe(levelReason({ tier, level: file.level, truncated: file.truncated, overflow: null }));

    // Today's tree no longer matches the run: the explanation must not change.
    writeFileSync(join(fixture.root, 'src/retry.ts'), 'export const unrelated = 1;\n');
    const json = await runCli(['context-score', 'src/retry.ts', '--run', record.run_id.slice(0, 8), '--json'], fixture.root);
    expect(json.code).toBe(0);
    const explained = JSON.parse(json.stdout);
    expect(explained).toMatchObject({ run_id: record.run_id, outcome: 'included', tier, level: file.level, tokens: file.tokens, relevance: file.relevance_score, reason: file.level_reason });
    expect(explained.factors.map((f: { score: number }) => f.score)).toEqual(Object.values(file.factors));

    const human = await runCli(['context-score', 'src/retry.ts', '--run', record.run_id], fixture.root);
    expect(human.stdout).toContain(`Run:    ${record.run_id}`);
    expect(human.stdout).toContain(`Why:       ${file.level_reason}`);

    const excluded = record.excluded[0];
    if (excluded) {
      const out = await runCli(['context-score', excluded.path, '--run', record.run_id], fixture.root);
      expect(out.stdout).toContain(excluded.reason);
    }
    const unknownFile = await runCli(['context-score', 'src/nope.ts', '--run', record.run_id], fixture.root);
    expect(unknownFile.code).toBe(2);
    expect(unknownFile.stderr).toContain(`src/nope.ts was not seen by run ${record.run_id}`);
    const unknownRun = await runCli(['context-score', 'src/retry.ts', '--run', 'ffffffff'], fixture.root);
    expect(unknownRun.code).toBe(2);
    expect(unknownRun.stderr).toContain('--run ffffffff: no recorded run has this id');
  }, 60_000);
});
