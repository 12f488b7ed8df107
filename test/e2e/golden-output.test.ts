import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GOLDEN_RUNS, goldenOutput, goldenRepo, type GoldenRepo } from './golden-runs.js';

/**
 * Byte-identical output of the front ends across refactors (issue 10): the files under
 * test/fixtures/golden/ were written by the code before the engine was unified. Rewrite them
 * (`npx vitest run test/e2e/golden-output.test.ts -u`) only for a deliberate change of output,
 * and say which in the commit.
 */
const GOLDEN = join(import.meta.dirname, '../fixtures/golden');

let repo: GoldenRepo;
beforeAll(() => {
  repo = goldenRepo();
});
afterAll(() => repo.cleanup());

describe('front ends print the same bytes as the pinned runs (test/fixtures/golden)', () => {
  it.each(GOLDEN_RUNS)('%s', async (name, argv) => {
    await expect(await goldenOutput(repo, argv)).toMatchFileSnapshot(join(GOLDEN, name));
  }, 120_000);
});
