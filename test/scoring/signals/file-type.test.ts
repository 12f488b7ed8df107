import { describe, expect, it } from 'vitest';
import { fileTypeSignal } from '../../../src/scoring/signals/file-type.js';
import { testContext } from '../../helpers/fakes.js';
import { candidates, signalInput } from '../helpers.js';

describe('file_type', () => {
  const files = candidates({ 'src/a.ts': '', 'src/a.test.ts': '', '.aiwg/requirements/UC-1.md': '', 'README.md': '', 'package.json': '' });
  it.each([
    ['src/a.ts', 1.0, 'source_code'],
    ['src/a.test.ts', 0.9, 'test_code'],
    ['.aiwg/requirements/UC-1.md', 0.8, 'requirements'],
    ['README.md', 0.7, 'documentation'],
    ['package.json', 0.6, 'config'],
  ])('%s scores the configured priority %s (%s)', async (path, priority, category) => {
    const result = await fileTypeSignal.score(signalInput(files), testContext(), {});
    expect(result.get(path)).toEqual({ raw: priority, score: priority, detail: category });
  });

  it('uses priorities from the config', async () => {
    const ctx = testContext();
    ctx.config.relevance_scoring.factors.file_type.priorities.config = 0.1;
    const result = await fileTypeSignal.score(signalInput(files), ctx, {});
    expect(result.get('package.json')?.score).toBe(0.1);
  });

  it('scores the same files, categories and priorities once (a warm index asks on every query)', async () => {
    const input = signalInput(files);
    const first = await fileTypeSignal.score(input, testContext(), {});
    expect(await fileTypeSignal.score({ ...input, task: 'another task' }, testContext(), {})).toBe(first);
    const other = testContext();
    other.config.relevance_scoring.factors.file_type.priorities.config = 0.2;
    const reweighed = await fileTypeSignal.score(input, other, {});
    expect(reweighed.get('package.json')?.score).toBe(0.2);
    const more = candidates({ 'src/a.ts': '', 'src/b.ts': '' });
    expect([...(await fileTypeSignal.score(signalInput(more), testContext(), {})).keys()]).toEqual(['src/a.ts', 'src/b.ts']);
  });
});
