import { describe, expect, it } from 'vitest';
import { dependencyDepthSignal, seedFiles, SEED_MAX } from '../../../src/scoring/signals/dependency-depth.js';
import type { SignalInput } from '../../../src/types.js';
import { testContext } from '../../helpers/fakes.js';
import { candidates, signalInput } from '../helpers.js';

// chain: app -> service -> repo -> db -> driver -> wire; docs.md has no edges
const files = candidates({
  'src/app.ts': "import './service.js';",
  'src/service.ts': "import './repo.js';",
  'src/repo.ts': "import './db.js';",
  'src/db.ts': "import './driver.js';",
  'src/driver.ts': "import './wire.js';",
  'src/wire.ts': '',
  'docs.md': '# notes',
});

function priorWith(alignment: Record<string, number>): SignalInput['prior'] {
  return new Map([['task_alignment', new Map(files.map((f) => [f.path, { raw: 0, score: alignment[f.path] ?? 0 }]))]]);
}

describe('dependency_depth', () => {
  it.each([
    ['src/service.ts', 0, 1],
    ['src/app.ts', 1, 0.75],
    ['src/repo.ts', 1, 0.75],
    ['src/db.ts', 2, 0.5],
    ['src/driver.ts', 3, 0.25],
    ['src/wire.ts', -1, 0],
    ['docs.md', -1, 0],
  ])('%s: depth %s -> %s (max_depth 3)', async (path, depth, score) => {
    const result = await dependencyDepthSignal.score(signalInput(files, { prior: priorWith({ 'src/service.ts': 1 }) }), testContext(), {});
    expect(result.get(path)).toMatchObject({ raw: depth, score });
  });

  it('score falls with max_depth from the config', async () => {
    const ctx = testContext();
    ctx.config.relevance_scoring.factors.dependency_depth.max_depth = 1;
    const result = await dependencyDepthSignal.score(signalInput(files, { prior: priorWith({ 'src/service.ts': 1 }) }), ctx, {});
    expect(result.get('src/app.ts')?.score).toBe(0.5);
    expect(result.get('src/db.ts')?.score).toBe(0);
  });

  it('seeds from the task @-mentions even without alignment', async () => {
    const result = await dependencyDepthSignal.score(signalInput(files, { task: 'look at @src/wire.ts', prior: priorWith({}) }), testContext(), {});
    expect(result.get('src/wire.ts')?.score).toBe(1);
    expect(result.get('src/driver.ts')?.score).toBe(0.75);
  });

  it('without seeds every file is 0, and says why', async () => {
    const result = await dependencyDepthSignal.score(signalInput(files, { prior: priorWith({ 'src/app.ts': 0.3 }) }), testContext(), {});
    expect(new Set([...result.values()].map((s) => s.score))).toEqual(new Set([0]));
    expect(result.get('src/app.ts')?.detail).toContain('no seed');
  });

  it('takes the SEED_MAX best aligned files, plus every full match', () => {
    const alignment = Object.fromEntries(files.map((f, i) => [f.path, i < 4 ? 1 : 0.7]));
    const seeds = seedFiles(signalInput(files, { prior: priorWith(alignment) }));
    expect(seeds.length).toBe(Math.max(SEED_MAX, 4));
  });
});
